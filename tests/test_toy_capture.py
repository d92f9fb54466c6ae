"""The toy capture game (tests/toy/capture.py), registered only in the tests: moves
that remove either side's pieces for good, a throw that leaves the mover a choice,
and a one-pass solve, checked against a brute-force recursive solve."""
import functools
import json

import numpy as np
import pytest

from tabula.cli import main
from tabula.games import get_game
from tabula.games.game import OVER, layer_id, worth
from tabula.solver.layered import unit_order
from tabula.solver.table import Table


def brute_force_values(game):
    """Every position's winning chance by plain recursion over the moves, memoised by
    code: no layers, ranks, sweeps or ordering (the game has no cycles)."""
    out_codes = np.zeros(game.max_moves, dtype=np.int64)
    out_info = np.zeros(game.max_moves, dtype=np.int64)

    @functools.cache
    def value(code):
        total = 0.0
        for throw, prob in zip(game.throws, game.probs):
            n = game.moves(code, throw, out_codes, out_info)
            assert n > 0, "a side to move always has a move"
            moves = [(int(out_info[i]), int(out_codes[i])) for i in range(n)]
            total += prob * max(worth(info, 0.0 if info & OVER else value(nxt))
                                for info, nxt in moves)
        return total
    return value


@pytest.fixture(scope="module", params=[1, 2, 3])
def solved(request, tmp_path_factory):
    path = tmp_path_factory.mktemp("capture") / f"capture{request.param}.h5"
    assert main(["solve", "toycapture", "--pieces", str(request.param), "--out", str(path),
                 "--quiet"]) == 0
    return Table(path)


def test_the_table_equals_a_brute_force_solve_on_every_position(solved):
    game = solved.game
    value = brute_force_values(game)
    for a, b in solved.layers:
        codes = [game.unrank(layer_id(a, b), r) for r in range(game.layer_size(a, b))]
        exact = np.array([value(int(c)) for c in codes])
        assert np.abs(solved.layer(a, b) - exact).max() <= 1e-7, (a, b)


def test_one_pass_and_layers_ordered_by_what_moves_reach(solved):
    """Every layer in one sweep; each unit after the layers its moves reach, which lose
    a piece of either side (not only the mover's)."""
    for layer in solved.layers:
        assert solved.layer_attrs[layer]["sweeps"] == 1, layer
    game = solved.game
    order = [unit for unit in unit_order(game)]
    place = {layer: i for i, unit in enumerate(order) for layer in unit}
    for (a, b), i in place.items():
        for target in game.successor_layers(a, b):
            if min(target) > 0 and target not in ((a, b), (b, a)):
                assert place[target] < i, ((a, b), target)


def test_a_capture_removes_the_opponents_piece_for_good():
    """Red (pieces on 1 and 4) throws 2: its second piece steps to 5, onto Blue's
    piece, which leaves the game; Blue throws next with one piece (on 7, which Blue
    sees as square 1), and the layer goes from (2, 2) to Blue's (1, 2)."""
    game = get_game("toycapture", 2)
    code = game.position_from_json({"me": [1, 4], "opp": [5, 7]})
    moves = game.legal_moves(code, 2)
    assert [(m["from"], m["to"]) for m in moves] == [(4, 5), (4, 7), (4, 8)]
    onto_blue = moves[0]
    assert game.to_json(game.mirror(onto_blue["position"])) == {"me": [1, 5], "opp": [7]}
    assert game.to_json(onto_blue["position"]) == {"me": [1], "opp": [3, 7]}
    assert not onto_blue["over"] and moves[2]["over"]          # 8 is Red's goal
    assert game.presentation.events(code, onto_blue) == ["removes a piece of the other side"]


def test_the_throw_leaves_a_choice_when_its_piece_is_gone():
    """With one piece left, a throw of 2 names a piece Red no longer has: Red moves the
    piece it has. A step onto Red's own piece removes it."""
    game = get_game("toycapture", 2)
    lone = game.position_from_json({"me": [4], "opp": [7]})
    assert [(m["from"], m["to"]) for m in game.legal_moves(lone, 2)] == [(4, 5), (4, 7),
                                                                         (4, 8)]
    pair = game.position_from_json({"me": [0, 1], "opp": [8]})
    first = game.legal_moves(pair, 1)
    assert [(m["from"], m["to"]) for m in first] == [(0, 1), (0, 3), (0, 4)]
    assert game.to_json(game.mirror(first[0]["position"]))["me"] == [1]   # its own piece


def test_the_commands_take_the_capture_game(solved, capsys):
    pieces = solved.game.pieces
    assert main(["value", "toycapture", "--pieces", str(pieces), "--position", "start",
                 "--table", str(solved.path), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert 0.0 <= answer["value"] <= 1.0
    assert main(["eval", "regret", "toycapture", "--pieces", str(pieces), "--table",
                 str(solved.path), "--player", "heuristic", "--games", "100", "--json",
                 "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 100 and result["loss_per_game_points"] >= 0


def test_a_game_of_it_is_played_to_the_end(solved, monkeypatch, capsys):
    """tabula play against the table's perfect player: the board, the events of
    captures, the end and the review."""
    import io
    pieces = str(solved.game.pieces)
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 200))
    assert main(["play", "toycapture", "--pieces", pieces, "--level", "master", "--table",
                 str(solved.path), "--seed", "3"]) == 0
    text = capsys.readouterr().out
    assert "[R]" in text and ("you (red) win" in text or "the computer (blue) wins" in text)


@pytest.mark.slow
def test_the_whole_chain_runs_on_it(tmp_path, capsys):
    """tabula pipeline: solve, datagen, train, export and the report, as for any game."""
    import yaml
    config = {"name": "capture", "game": "toycapture", "pieces": 3,
              "workdir": str(tmp_path / "work"),
              "datagen": {"games": 300, "uniform": 3000, "seed": 1},
              "train": {"model": {"hidden": [16]}, "data": {"batch_size": 256},
                        "trainer": {"max_epochs": 2, "enable_progress_bar": False,
                                    "enable_model_summary": False}},
              "report": {"games": 100, "players": ["random", "heuristic", "net", "perfect"]}}
    path = tmp_path / "capture.yaml"
    path.write_text(yaml.safe_dump(config))
    assert main(["pipeline", str(path)]) == 0
    results = json.loads((tmp_path / "work" / "report" / "results.json").read_text())
    rows = {row["player"]: row for row in results["players"]}
    assert rows["perfect"]["loss_per_game_points"] == 0.0
    assert rows["random"]["loss_per_game_points"] > 0
    assert results["provenance"]["game"] == "toycapture"
    model = json.loads((tmp_path / "work" / "model.json").read_text())
    assert (model["game"], model["rules"], model["pieces"]) == ("toycapture", "toy", 3)
