"""EinStein würfelt nicht! (games/einstein.py): the rules file's test vectors, moves
equal to a plain reference implementation of the rules (tests/reference/
einstein_rules.py), tables equal to a brute-force recursion over those rules on
every position of the small boards, and the set-up game."""
import json
from itertools import permutations

import numpy as np
import pytest

from tabula.cli import main
from tabula.games import PositionError, get_game
from tabula.games.game import layer_id
from tabula.runtime.sampling import random_play_positions, uniform_positions
from tabula.session import start_session
from tabula.solver.setups import best_mixture, setup_game
from tabula.solver.table import Table
from tests.reference import einstein_rules as reference


def position(game, red: dict, blue: dict) -> int:
    """A position with red to throw, from the rules file's (row, col) squares."""
    return game.position_from_json({"me": {str(k): list(v) for k, v in red.items()},
                                    "opp": {str(k): list(v) for k, v in blue.items()}})


def blue_to_throw(game, red: dict, blue: dict) -> int:
    """A position with blue to throw: blue's view of the same board."""
    return game.mirror(position(game, red, blue))


def steps(game, code, throw):
    """(from, to, won) of each legal move, squares as (row, col) in the mover's frame."""
    n = game.presentation.layout["rows"]
    return sorted(((m["from"] // n, m["from"] % n), (m["to"] // n, m["to"] % n), m["over"])
                  for m in game.legal_moves(code, throw))


STANDARD = get_game("einstein", 6)


def test_vector_1_a_missing_cube_leaves_a_choice_and_a_cube_may_take_its_own():
    code = position(STANDARD, {1: (0, 0), 3: (1, 1)}, {2: (4, 4), 6: (3, 3)})
    assert steps(STANDARD, code, 2) == sorted([
        ((0, 0), (0, 1), False), ((0, 0), (1, 0), False), ((0, 0), (1, 1), False),
        ((1, 1), (1, 2), False), ((1, 1), (2, 1), False), ((1, 1), (2, 2), False)])
    onto_own = next(m for m in STANDARD.legal_moves(code, 2) if m["to"] == 6)
    assert STANDARD.presentation.events(code, onto_own) == ["cube 1 moves",
                                                            "removes its own cube 3"]
    after = STANDARD.to_json(STANDARD.mirror(onto_own["position"]))
    assert after == {"me": {"1": [1, 1]}, "opp": {"2": [4, 4], "6": [3, 3]}}


def test_vector_2_with_no_higher_cube_only_the_lower_moves():
    code = position(STANDARD, {1: (0, 0), 3: (1, 1)}, {2: (4, 4), 6: (3, 3)})
    cube_3 = [((1, 1), (1, 2), False), ((1, 1), (2, 1), False), ((1, 1), (2, 2), False)]
    assert steps(STANDARD, code, 5) == cube_3 and steps(STANDARD, code, 4) == cube_3
    assert {m["from"] for m in STANDARD.legal_moves(code, 1)} == {0}


def test_vector_3_which_cubes_each_throw_moves():
    n = 5
    code = position(STANDARD, {1: (0, 0), 3: (2, 0), 6: (0, 3)}, {1: (4, 4)})
    cube_on = {0: 1, 2 * n: 3, 3: 6}
    expected = {1: {1}, 2: {1, 3}, 3: {3}, 4: {3, 6}, 5: {3, 6}, 6: {6}}
    for throw, cubes in expected.items():
        assert {cube_on[m["from"]] for m in STANDARD.legal_moves(code, throw)} == cubes, throw


def test_vector_4_the_board_edge_and_the_goal():
    assert steps(STANDARD, position(STANDARD, {1: (0, 4)}, {1: (4, 0)}), 1) == [
        ((0, 4), (1, 4), False)]
    assert steps(STANDARD, position(STANDARD, {1: (4, 3)}, {1: (0, 4)}), 1) == [
        ((4, 3), (4, 4), True)]


def test_vector_5_taking_the_last_cube_on_the_goal_wins():
    code = position(STANDARD, {2: (3, 3)}, {5: (4, 4)})
    assert steps(STANDARD, code, 2) == [((3, 3), (3, 4), False), ((3, 3), (4, 3), False),
                                        ((3, 3), (4, 4), True)]


def test_vector_6_blue_reaches_its_goal():
    code = blue_to_throw(STANDARD, {6: (4, 0)}, {1: (1, 0), 4: (2, 2)})
    moves = STANDARD.legal_moves(code, 1)
    assert len(moves) == 1 and moves[0]["over"]
    assert STANDARD.presentation.events(code, moves[0])[-1] == "reaches its goal corner"


def test_vector_7_captures_that_do_not_win():
    code = position(STANDARD, {1: (2, 2)}, {3: (3, 3), 5: (2, 3)})
    assert steps(STANDARD, code, 1) == [((2, 2), (2, 3), False), ((2, 2), (3, 2), False),
                                        ((2, 2), (3, 3), False)]


def test_vector_8_on_the_smallest_board_the_first_mover_wins(tmp_path):
    out = tmp_path / "e2.h5"
    assert main(["solve", "einstein", "--board", "2", "--cubes", "1", "--out", str(out),
                 "--quiet"]) == 0
    table = Table(out)
    assert table.values([table.game.start])[0] == 1.0


VARIANTS = [(5, 6), (5, 3), (4, 4), (3, 3), (3, 2)]


@pytest.mark.parametrize("board,cubes", VARIANTS)
def test_moves_equal_the_reference_rules(board, cubes):
    game = get_game("einstein", cubes, f"{board}x{board}")
    codes = np.concatenate([uniform_positions(game, 3000, seed=board),
                            random_play_positions(game, 1000, seed=cubes)])
    for code in codes:
        state = tuple(tuple(sorted((int(k), *v) for k, v in game.to_json(code)[key].items()))
                      for key in ("me", "opp"))
        for throw in game.throws:
            ours = [(m["over"], None if m["over"] else m["position"])
                    for m in game.legal_moves(code, throw)]
            theirs = [(won, None if won else game.position_from_json(reference.as_json(after)))
                      for won, after in reference.moves(state, int(throw), board)]
            assert sorted(ours, key=str) == sorted(theirs, key=str), (game.to_json(code), throw)


@pytest.fixture(scope="module", params=[(2, 1), (3, 1), (3, 2),
                                        pytest.param((3, 3), marks=pytest.mark.slow)],
                ids=lambda p: f"{p[0]}x{p[0]}-{p[1]}")
def solved(request, tmp_path_factory):
    board, cubes = request.param
    out = tmp_path_factory.mktemp("einstein") / f"e{board}_{cubes}.h5"
    assert main(["solve", "einstein", "--board", str(board), "--cubes", str(cubes),
                 "--out", str(out), "--quiet"]) == 0
    return Table(out)


def test_the_table_equals_a_brute_force_solve_of_the_reference_rules(solved):
    """Every position of the small boards, each valued by plain recursion over the
    rules file's rules (no codes, ranks or layers), agrees with the one-pass table."""
    game = solved.game
    value = reference.solver(game.presentation.layout["rows"], game.pieces)
    for a, b in solved.layers:
        table = solved.layer(a, b)
        for rank in range(game.layer_size(a, b)):
            as_json = game.to_json(game.unrank(layer_id(a, b), rank))
            state = tuple(tuple(sorted((int(k), *v) for k, v in as_json[key].items()))
                          for key in ("me", "opp"))
            assert abs(table[rank] - value(state)) <= 1e-6, as_json


def test_one_pass_values_in_range_and_a_cube_next_to_its_goal(solved):
    """Each layer in one sweep (no position repeats); values are chances; a side whose
    cubes all stand one step from the goal wins whatever it throws."""
    game = solved.game
    n = game.presentation.layout["rows"]
    for a, b in solved.layers:
        assert solved.layer_attrs[(a, b)]["sweeps"] == 1
        values = solved.layer(a, b)
        assert ((values >= 0) & (values <= 1)).all()
    next_to_goal = [[n - 2, n - 1], [n - 1, n - 2], [n - 2, n - 2]]
    for cubes in range(1, min(game.pieces, 3) + 1):
        me = {str(k + 1): next_to_goal[k] for k in range(cubes)}
        code = game.position_from_json({"me": me, "opp": {"1": [n - 1, 0]}})
        assert solved.values([code])[0] == 1.0


def test_positions_in_json_refuse_what_cannot_be():
    for bad, says in [({"me": {"7": [0, 0]}, "opp": {"1": [4, 4]}}, "no cube"),
                      ({"me": {"1": [0, 0]}, "opp": {"1": [0, 0]}}, "two cubes"),
                      ({"me": {"1": [4, 4]}, "opp": {"1": [0, 1]}}, "its goal"),
                      ({"me": {"1": [1, 1]}, "opp": {"1": [0, 0]}}, "its goal"),
                      ({"me": {"1": [0, 5]}, "opp": {"1": [4, 4]}}, "[row, col]"),
                      ({"me": {"1": [0, True]}, "opp": {"1": [4, 4]}}, "[row, col]"),
                      ({"me": {}, "opp": {"1": [4, 4]}}, "must map"),
                      ({"me": [[0, 0]], "opp": {"1": [4, 4]}}, "must map")]:
        with pytest.raises(PositionError, match=says.replace("[", r"\[").replace("]", r"\]")):
            STANDARD.position_from_json(bad)
    with pytest.raises(PositionError, match="1..3 cubes"):
        get_game("einstein", 4, "3x3")


def test_the_standard_start_and_its_drawing():
    assert STANDARD.to_json(STANDARD.start) == {
        "me": {"1": [0, 0], "2": [0, 1], "3": [1, 0], "4": [0, 2], "5": [1, 1], "6": [2, 0]},
        "opp": {"1": [4, 4], "2": [4, 3], "3": [3, 4], "4": [4, 2], "5": [3, 3], "6": [2, 4]}}
    drawn = STANDARD.presentation.board(STANDARD.start, True).splitlines()
    assert drawn[0].split() == ["R1", "R2", "R4", ".", "."]
    assert drawn[4].split() == [".", ".", "B4", "B2", "B1"]
    assert STANDARD.presentation.board(STANDARD.mirror(STANDARD.start), False) == \
        STANDARD.presentation.board(STANDARD.start, True)
    assert len(STANDARD.setup.arrangements) == 720


def transposed(arrangement: tuple) -> tuple | None:
    """The arrangement reflected in the main diagonal: start squares (0,1) and (1,0)
    swap (the second and third), as do (0,2) and (2,0) (the fourth and sixth); None
    where the start squares are not symmetric (2, 4 or 5 cubes)."""
    order = {1: [0], 3: [0, 2, 1], 6: [0, 2, 1, 5, 4, 3]}.get(len(arrangement))
    return None if order is None else tuple(arrangement[i] for i in order)


def test_the_set_up_game_of_the_small_boards(solved, capsys):
    """Values of every pair of set-ups equal the table's start values; the board's
    reflection in its diagonal maps each pair onto one of the same value; the matrix
    game's value lies between the best pure choices of either side."""
    game = solved.game
    setups = setup_game(solved)
    index = {a: i for i, a in enumerate(setups.arrangements)}
    assert sorted(setups.arrangements) == sorted(permutations(range(1, game.pieces + 1)))
    for (i, red), (j, blue) in [((i, a), (j, b)) for i, a in enumerate(setups.arrangements)
                                for j, b in enumerate(setups.arrangements)]:
        start = game.setup.start(red, blue)
        assert setups.values[i, j] == solved.values([start])[0]
        assert transposed(red) is None or abs(setups.values[i, j]
                   - setups.values[index[transposed(red)], index[transposed(blue)]]) < 1e-6
    maximin = setups.values.min(axis=1).max()
    minimax = setups.values.max(axis=0).min()
    assert maximin - 1e-9 <= setups.value <= minimax + 1e-9
    assert abs(setups.first_mix.sum() - 1) < 1e-9 and abs(setups.second_mix.sum() - 1) < 1e-9
    assert (setups.first_mix @ setups.values).min() >= setups.value - 1e-9
    assert (setups.values @ setups.second_mix).max() <= setups.value + 1e-9
    assert main(["value", "einstein", "--rules", game.rules, "--cubes", str(game.pieces),
                 "--table", str(solved.path), "--setups", "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["value"] == pytest.approx(setups.value, abs=1e-12)
    assert said["arrangements"] == [game.setup.label(a) for a in setups.arrangements]


def test_a_matrix_game_with_a_known_mixed_solution():
    """Matching pennies: each side mixes half and half, the value is 1/2."""
    value, mix = best_mixture(np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert value == pytest.approx(0.5) and mix == pytest.approx([0.5, 0.5])
    value, mix = best_mixture(np.array([[0.3, 0.9], [0.6, 0.7]]))   # a saddle point
    assert value == pytest.approx(0.6) and mix == pytest.approx([0.0, 1.0])


def test_setups_is_refused_for_a_game_without_a_set_up(tables, capsys):
    assert main(["value", "ur", "--pieces", "3", "--table", str(tables[("ur", 3)].path),
                 "--setups"]) != 0
    assert "no set-up choice" in capsys.readouterr().err


def test_played_through_the_web_api_with_numbered_cubes(solved):
    """A game on a small board, the Master strength playing from the table: the board
    shows each cube's number, and the game ends with a win."""
    from starlette.testclient import TestClient

    from tabula.web import create_app
    from tests.test_web_api import new, play_out
    game = solved.game
    client = TestClient(create_app(solved), raise_server_exceptions=False)
    data = new(client, game="einstein", rules=game.rules, pieces=game.pieces, level="master",
               seed=1)
    assert data["layout"]["rows"] == game.presentation.layout["rows"]
    labels = data["state"]["board"]["labels"]
    assert sorted(labels.values()) == sorted(
        [str(c) for c in range(1, game.pieces + 1)] * 2)
    data, events = play_out(client, data["id"], data)
    assert data["state"]["phase"] == "over" and any(e["kind"] == "win" for e in events)


def test_a_game_in_the_terminal_names_squares_as_the_board_shows_them(solved, monkeypatch,
                                                                      capsys):
    """Both sides' moves are named by the board's (row, col), which stay put: red's
    go down and right, blue's up and left; the set-ups are drawn at random."""
    import io
    import re
    game = solved.game
    starts = set()
    for seed in range(4):
        monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 100))
        assert main(["play", "einstein", "--rules", game.rules, "--cubes", str(game.pieces),
                     "--level", "master", "--table", str(solved.path), "--seed",
                     str(seed)]) == 0
        text = capsys.readouterr().out
        starts.add(text.split("\n\n")[1].split("cubes lost")[0])
        assert re.search(r"(you \(red\) win|the computer \(blue\) wins)\n", text)
        for side, r, c, r2, c2 in re.findall(
                r"(red|blue)\) plays? \((\d),(\d)\) -> \((\d),(\d)\)", text):
            step = (int(r2) - int(r), int(c2) - int(c))
            assert step in ([(0, 1), (1, 0), (1, 1)] if side == "red"
                            else [(0, -1), (-1, 0), (-1, -1)]), (side, step)
    assert len(starts) > 1 or game.pieces == 1


def test_games_start_from_set_ups_drawn_at_random():
    """Every pair of set-ups comes up, about equally often, the same for a game's
    number and seed; a game without a set-up starts where it always does."""
    from tabula.games.loop import start_positions
    game = get_game("einstein", 3, "3x3")
    starts = start_positions(game, 7, np.arange(3600))
    assert np.array_equal(starts, start_positions(game, 7, np.arange(3600)))
    assert np.array_equal(starts[100:200], start_positions(game, 7, np.arange(100, 200)))
    _, counts = np.unique(starts, return_counts=True)
    assert len(counts) == 36 and counts.min() > 60 and counts.max() < 145   # 100 expected
    ur = get_game("ur", 3)
    assert (start_positions(ur, 7, np.arange(10)) == ur.start).all()


def test_the_standard_game_is_refused_by_the_solver_before_any_work(tmp_path, capsys):
    assert main(["solve", "einstein", "--out", str(tmp_path / "e.h5")]) == 2
    assert "too large to solve: its layer (6, 6)" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_the_shipped_network_plays_the_5x5_board_at_every_strength():
    """With no cubes named, the web app plays the standard game (6 cubes a side, which
    no table holds: models/einstein6.onnx, taught by tree search) at each strength, and
    judges with the network; 3 cubes have a network too (models/einstein3.onnx). The
    Master without a table is the tree search over the network, in 20 ms a move."""
    from starlette.testclient import TestClient

    from tabula.web import create_app
    from tests.test_web_api import new
    client = TestClient(create_app(), raise_server_exceptions=False)
    listed = next(g for g in client.get("/api/games").json()["games"] if g["name"] == "einstein")
    standard = next(r for r in listed["rules"] if r["name"] == "5x5")
    assert standard["shipped_pieces"] == [3, 6] and standard["default_pieces"] == 6
    for level in ("apprentice", "journeyman", "master"):
        data = new(client, game="einstein", level=level, side="blue", seed=4)
        assert data["state"]["pieces"] == 6 and data["judge"] is not None
        assert data["events"][0]["kind"] == "throw"   # the computer, red, opened
        assert len(data["state"]["board"]["cells"]) <= 12
    from tabula.session import MASTER_SEARCH, computer_player, shipped_model
    game = get_game("einstein", 6)
    master = computer_player(game, "master", model_path=shipped_model(game))
    assert master.spec == f"{MASTER_SEARCH}:{shipped_model(game)}"


def test_a_player_chooses_a_set_up_in_the_terminal(monkeypatch, capsys):
    """--setup 312 puts cube 3 in the player's corner, 1 beside it, 2 below it (blue's
    corner is the bottom-right one, its board turned); a wrong set-up, or one in a game
    without them, is one line."""
    import io
    for side, where in (("red", {(0, 0): "R3", (0, 1): "R1", (1, 0): "R2"}),
                        ("blue", {(4, 4): "B3", (4, 3): "B1", (3, 4): "B2"})):
        monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
        assert main(["play", "einstein", "--cubes", "3", "--side", side, "--setup", "312",
                     "--level", "apprentice", "--seed", "1"]) == 0
        board = [line.split() for line in capsys.readouterr().out.split("\n\n")[1]
                 .splitlines()[:5]]
        assert {square: board[square[0]][square[1]] for square in where} == where
    for args, says in ((["einstein", "--setup", "3124"], "once each"),
                       (["einstein", "--setup", "³¹²"], "once each"),   # not ASCII digits
                       (["ur", "--setup", "12"], "no set-up")):
        assert main(["play", *args]) == 2
        assert says in capsys.readouterr().err


def test_the_computer_sets_up_by_the_table_s_best_mixture(tmp_path):
    """With a table, the computer draws its set-up from the set-up game's best mixture
    (3x3 with 3 cubes: 123 or 132, half and half), not from all six alike."""
    out = tmp_path / "e3.h5"
    assert main(["solve", "einstein", "--board", "3", "--cubes", "3", "--out", str(out),
                 "--quiet"]) == 0
    table = Table(out)
    game = table.game
    best = {a for a, p in zip(game.setup.arrangements, setup_game(table).second_mix) if p > 0}
    assert best == {(1, 2, 3), (1, 3, 2)}
    theirs = []
    for seed in range(12):
        session = start_session(game, "master", "red", seed=seed, table=table, setup="321")
        theirs.append(next(b for b in game.setup.arrangements
                           if game.setup.start((3, 2, 1), b) == session.code))
    assert set(theirs) == best


def test_the_winning_cube_stands_on_the_goal_at_the_end():
    """A cube that reaches its goal corner wins; the code takes it off the board, but
    the board people see shows it in the corner, with its number, and does not count
    it lost (issue 65: it vanished, off [2, 2])."""
    game = get_game("einstein", 3, "3x3")
    goals = {c["id"] for c in game.presentation.layout["cells"] if c["mark"] == "goal"}
    corners = 0
    for seed in range(8):
        session = start_session(game, hotseat=True, seed=seed)
        while not session.over:
            session.roll()
            if session.throw is not None:
                last, before = session.legal_moves()[0], session.board()
                session.play(0)
        board, winner, to = session.board(), session.winner, last["to_cell"]
        assert board["cells"][to] == winner
        assert board["labels"][to] == before["labels"][last["from_cell"]]
        on_board = sum(seat == winner for seat in board["cells"].values())
        assert board["off"][winner] == game.pieces - on_board
        corners += to in goals
    assert corners >= 3   # most of these games end in a corner
