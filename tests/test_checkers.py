"""Checkers (games/checkers.py, games/checkers_rules.py) and its endgame databases
(solver/retrograde.py): the rules file's vectors and counts, moves equal to a plain
reference implementation (tests/reference/checkers_rules.py), and databases equal to
a brute-force solve of those rules."""
import json

import numpy as np
import pytest

from tabula.games import get_game
from tabula.games.checkers import absolute_square, from_json, notation, pack, to_json, unpack
from tabula.games.checkers_rules import (MAX_CHAIN, MAX_MOVES, configurations, flip,
                                         legal_moves, other_view, work_space)
from tabula.games.game import OVER, PositionError
from tabula.runtime.sampling import random_play_positions, uniform_positions
from tabula.solver.retrograde import index_of
from tests.reference import checkers_rules as reference
from tests.test_cli_moves import run_cli


def position(black_men=(), white_men=(), black_kings=(), white_kings=(), turn="black"):
    return from_json({"turn": turn, "black": {"men": list(black_men), "kings": list(black_kings)},
                      "white": {"men": list(white_men), "kings": list(white_kings)}}, 24)


def written_moves(code, seat=0):
    game = get_game("checkers", 8)
    codes, infos = game.move_arrays(code, 0)
    return {notation(code, int(c), 0, seat): bool(i & OVER) for c, i in zip(codes, infos)}


def test_the_rules_files_vectors():
    game = get_game("checkers", 8)
    out = np.zeros((MAX_MOVES, 5 + MAX_CHAIN), dtype=np.int64)
    n = legal_moves(0xFFF, flip(0xFFF), 0, out, work_space())   # the start: 24 pieces
    assert {f"{row[3] + 1}-{row[5] + 1}" for row in out[:n]} == {
        "9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"}
    assert written_moves(position([1, 9], [14])) == {"9x18": True}   # White has no piece
    assert written_moves(position([9], [14, 23])) == {"9x18x27": True}
    crowned = written_moves(position([22], [26, 27]))
    assert set(crowned) == {"22x31"}
    assert set(written_moves(position(black_kings=[18], white_men=[32]))) == \
        {"18-14", "18-15", "18-22", "18-23"}
    assert game.move_arrays(position([28], [32]), 0)[0].size == 0


def test_white_to_move_reads_and_writes_its_own_squares():
    code = position(black_men=[5], white_men=[23], turn="white")
    assert set(written_moves(code, seat=1)) == {"23-18", "23-19"}
    assert to_json(code) == {"turn": "black", "black": {"men": [10], "kings": []},
                             "white": {"men": [28], "kings": []}}   # the same, reversed


@pytest.mark.parametrize("bad", [
    {"turn": "red", "black": {"men": [1], "kings": []}, "white": {"men": [9], "kings": []}},
    {"turn": "black", "black": {"men": [30], "kings": []}, "white": {"men": [9], "kings": []}},
    {"turn": "black", "black": {"men": [1], "kings": []}, "white": {"men": [1], "kings": []}},
    {"turn": "black", "black": {"men": [1], "kings": []}, "white": {"men": [], "kings": []}},
    {"turn": "black", "black": {"men": [33], "kings": []}, "white": {"men": [9], "kings": []}},
    {"turn": "black", "black": {"men": [1, 2, 3], "kings": []},
     "white": {"men": [9, 10], "kings": []}}])
def test_impossible_positions_are_refused(bad):
    with pytest.raises(PositionError):
        from_json(bad, 4)


def test_counts_equal_schaeffers():
    assert [configurations(n) for n in range(1, 7)] == [
        120, 6972, 261224, 7092774, 148688232, 2503611964]


def reference_position(code, side=reference.BLACK):
    """The reference's position of a code, the side to move playing `side`."""
    me, opp, kings = (int(x) for x in unpack(np.int64(code)))
    square = (lambda bit: bit + 1) if side == reference.BLACK else (lambda bit: 32 - bit)
    pieces = frozenset((square(bit), side if (me >> bit) & 1 else reference.other(side),
                        bool((kings >> bit) & 1))
                       for bit in range(32) if ((me | opp) >> bit) & 1)
    return pieces, side


@pytest.mark.parametrize("side", [reference.BLACK, reference.WHITE])
def test_moves_equal_the_reference_implementation(side):
    game = get_game("checkers", 6)
    codes = np.concatenate([uniform_positions(game, 1500, seed=4),
                            random_play_positions(game, 1500, seed=5)])
    for code in codes:
        ours = {reference_position(c, reference.other(side)) for c in game.move_arrays(code, 0)[0]}
        theirs = {nxt for _, nxt in reference.moves(reference_position(code, side))}
        assert ours == theirs, to_json(code)


def colour_reversed(position):
    pieces, side = position
    return (frozenset((33 - s, reference.other(c), k) for s, c, k in pieces),
            reference.other(side))


def check_databases_equal_brute_force(pieces, folder):
    """Every position with up to `pieces` pieces, either side to move: the database's
    value (solved into a file in `folder` and read back) equals the brute force's, which
    also holds colour reversal on its own."""
    from tabula.solver.outcome_table import OutcomeTable, solve_outcomes
    solve_outcomes(get_game("checkers", pieces), folder / "t.h5", quiet=True)
    table = OutcomeTable(folder / "t.h5")
    values, base = table.table, table.base
    solved = reference.solve(pieces)
    assert len(solved) == 2 * len(values)
    for (board, side), depth in solved.items():
        assert solved[colour_reversed((board, side))] == depth
        me = opp = kings = 0   # the position seen by the side to move, as Black
        for square, colour, king in board:
            bit = 1 << (square - 1 if side == reference.BLACK else 32 - square)
            me, opp = (me | bit, opp) if colour == side else (me, opp | bit)
            kings |= bit if king else 0
        assert values[index_of(base, me, opp, kings)] == (0 if depth is None else depth + 1)
    return values


def test_two_piece_databases_equal_brute_force(tmp_path):
    values = check_databases_equal_brute_force(2, tmp_path)
    assert (values % 2 == 0).any() and (values % 2 == 1).any() and (values == 0).any()


@pytest.mark.slow
def test_three_piece_databases_equal_brute_force(tmp_path):
    check_databases_equal_brute_force(3, tmp_path)


TWO_KINGS = json.dumps({"turn": "white", "black": {"men": [], "kings": [1]},
                        "white": {"men": [], "kings": [28, 32]}})


def test_solve_value_moves_and_table_on_the_command_line(tmp_path, capsys):
    """A database of 3 pieces solved, answered (White's two kings beat Black's one in
    the double corner), listed move by move and verified against every position's
    moves; a second solve refuses to overwrite it, and a solve setting it takes not."""
    out = tmp_path / "c3.h5"
    status, said, _ = run_cli(capsys, "solve", "checkers", "--pieces", "3", "--out", str(out),
                              "--json", "--quiet")
    summary = json.loads(said)
    assert status == 0 and summary["positions"] == 199520
    assert summary["wins"] + summary["losses"] + summary["draws"] == summary["positions"]
    status, said, _ = run_cli(capsys, "value", "checkers", "--pieces", "3", "--table", str(out),
                              "--position", TWO_KINGS, "--json")
    answer = json.loads(said)
    assert status == 0 and answer["result"] == "win" and answer["plies"] % 2 == 1
    status, said, _ = run_cli(capsys, "moves", "checkers", "--pieces", "3", "--table", str(out),
                              "--position", TWO_KINGS, "--json")
    moves = json.loads(said)["moves"]
    assert min(m["plies"] for m in moves if m["result"] == "win") == answer["plies"]
    assert {m["notation"] for m in moves} == {"1-6", "5-9"}   # shown as Black: 28 is 5
    status, said, _ = run_cli(capsys, "table", "verify", str(out), "--sample", "199520")
    assert status == 0 and "0 of 199,520 positions disagree" in said
    status, _, err = run_cli(capsys, "solve", "checkers", "--pieces", "3", "--out", str(out))
    assert status == 2 and "--force" in err
    status, _, err = run_cli(capsys, "solve", "checkers", "--pieces", "3", "--out",
                             str(tmp_path / "x.h5"), "--tol", "1e-3")
    assert status == 2 and "--tol is not for checkers" in err
    status, _, err = run_cli(capsys, "solve", "checkers", "--pieces", "8", "--out",
                             str(tmp_path / "c8.h5"))   # refused before any work
    assert status == 2 and "too large to solve" in err and not list(tmp_path.glob("c8*"))


def test_an_interrupted_solve_resumes_from_its_finished_units(tmp_path, monkeypatch):
    from tabula.games import get_game
    from tabula.solver import outcome_table, retrograde
    game = get_game("checkers", 3)
    whole = outcome_table.solve_outcomes(game, tmp_path / "whole.h5", quiet=True)
    solve_unit, solved = retrograde.solve_unit, []

    def stop_after_five(*args):
        if len(solved) == 5:
            raise KeyboardInterrupt
        solved.append(args[2])
        return solve_unit(*args)
    monkeypatch.setattr(retrograde, "solve_unit", stop_after_five)
    with pytest.raises(KeyboardInterrupt):
        outcome_table.solve_outcomes(game, tmp_path / "t.h5", quiet=True)
    assert len(list((tmp_path / "t.h5.partial").glob("unit-*.npy"))) == 5
    monkeypatch.setattr(retrograde, "solve_unit", lambda *args: solved.append(args[2]) or
                        solve_unit(*args))
    outcome_table.solve_outcomes(game, tmp_path / "t.h5", quiet=True)
    assert len(solved) == len(retrograde.units(3))   # the first five were not solved again
    assert outcome_table.OutcomeTable(tmp_path / "t.h5").attrs["sha256"] == \
        outcome_table.OutcomeTable(tmp_path / "whole.h5").attrs["sha256"]
    assert whole["positions"] == 199520


def test_a_damaged_outcome_table_is_refused(tmp_path):
    import h5py
    from tabula.games import get_game
    from tabula.solver.outcome_table import OutcomeTable, OutcomeTableError, solve_outcomes
    path = tmp_path / "c2.h5"
    solve_outcomes(get_game("checkers", 2), path, quiet=True)
    with h5py.File(path, "r+") as f:
        f["values"][7] = f["values"][7] + 2
    with pytest.raises(OutcomeTableError, match="checksum"):
        OutcomeTable(path)
    with h5py.File(path, "r+") as f:   # the value put back, a count of the header changed
        f["values"][7] = f["values"][7] - 2
        f.attrs["draws"] = int(f.attrs["draws"]) + 1
    with pytest.raises(OutcomeTableError, match="counts of wins"):
        OutcomeTable(path)
    with h5py.File(path, "r+") as f:
        f.attrs["draws"] = int(f.attrs["draws"]) - 1
        f.attrs["values"] = '["score"]'
    with pytest.raises(OutcomeTableError, match="holds the values score, not win"):
        OutcomeTable(path)
    with pytest.raises(OutcomeTableError, match="pieces=3"):
        OutcomeTable(tmp_path / "c2.h5", pieces=3)


def our_whole_moves(code, side) -> set:
    """{(squares of the move, the next position)} by games/checkers_rules.py, in the
    reference's terms, the side to move playing `side`."""
    me, opp, kings = unpack(np.int64(code))
    out = np.zeros((MAX_MOVES, 5 + MAX_CHAIN), dtype=np.int64)
    n = legal_moves(me, opp, kings, out, work_space())
    seat = 0 if side == reference.BLACK else 1
    found = set()
    for row in out[:n]:
        route = tuple(absolute_square(int(bit), seat) for bit in [row[3], *row[5:5 + row[4]]])
        after = pack(*other_view(row[0], row[1], row[2]))
        found.add((route, reference_position(after, reference.other(side))))
    return found


def check_moves_equal_imparaai(n, seed):
    """n positions of up to 6 pieces, half uniform in the layers and half met in random
    play, each with Black and with White to move: every whole move, chains included,
    and its result equal imparaai-checkers'."""
    from tests.imparaai_bridge import whole_moves
    game = get_game("checkers", 6)
    codes = np.concatenate([uniform_positions(game, n // 2, seed=seed),
                            random_play_positions(game, n - n // 2, seed=seed + 1)])
    chains = 0
    for i, code in enumerate(codes):
        side = (reference.BLACK, reference.WHITE)[i % 2]
        ours = our_whole_moves(code, side)
        assert ours == whole_moves(reference_position(code, side)), to_json(code)
        chains += any(len(route) > 2 for route, _ in ours)
    return chains


def test_moves_equal_imparaai_checkers():
    assert check_moves_equal_imparaai(300, seed=11) > 0


@pytest.mark.slow
def test_moves_equal_imparaai_checkers_on_many_positions():
    assert check_moves_equal_imparaai(2_000, seed=12) > 10


def test_two_people_play_in_the_terminal_each_side_naming_the_rules_squares(monkeypatch,
                                                                            capsys):
    import io

    from tabula.cli import main
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n1\nq\n"))
    assert main(["play", "checkers", "--pieces", "4", "--hotseat"]) == 0
    said = capsys.readouterr().out
    assert "4 pieces on the board at most" in said
    assert "black plays 1-5" in said and "white plays 32-28" in said


def test_perfect_play_wins_as_fast_as_the_table_says(tmp_path):
    """The table's best moves, against a side that moves at random, win the position of
    two kings against one in no more plies than the table says (a player who took any
    winning move could go round in circles for ever)."""
    from tabula.games import get_game
    from tabula.solver.outcome_table import OutcomeTable, solve_outcomes
    game = get_game("checkers", 3)
    solve_outcomes(game, tmp_path / "c3.h5", quiet=True)
    table = OutcomeTable(tmp_path / "c3.h5")
    code = game.position_from_json(json.loads(TWO_KINGS))
    promised = table.answer(code)["plies"]
    rng = np.random.default_rng(3)
    for plies in range(1, promised + 1):
        codes, infos = game.move_arrays(code, 0)
        if plies % 2:
            chosen = int(table.best_moves(np.array([len(codes)]), codes[None], infos[None])[0])
        else:
            chosen = int(rng.integers(len(codes)))
        if infos[chosen] & OVER:
            break
        code = codes[chosen]
    assert plies % 2 == 1 and infos[chosen] & OVER and plies <= promised


def test_a_game_is_drawn_after_forty_moves_each_that_change_nothing_for_good():
    """Kings walking to and fro: the state machine ends the game drawn at the 80th such
    ply, not before; a capture or a man's step starts the count again. Matches count a
    draw half a game."""
    from tabula.eval.measures import match
    from tabula.eval.players import make_player
    from tabula.games.state import MOVE, OVER, PLAY, ROLL, THROW, Action, State, step
    game = get_game("checkers", 4)
    kings = position(black_kings=[1], white_kings=[32])
    assert not game.draw_rule.irreversible(kings, game.move_arrays(kings, 0)[0][0])
    now = State(THROW, code=kings)
    for ply in range(1, 81):
        now = step(game, now, Action(ROLL, 0))
        assert now.phase == MOVE
        now = step(game, now, Action(PLAY, 0))
        assert (now.phase == OVER) == (ply == 80) and now.winner is None
    man = position(black_men=[9], white_kings=[32])
    assert game.draw_rule.irreversible(man, game.move_arrays(man, 0)[0][0])
    result = match(make_player("heuristic", game), make_player("heuristic", game), 4, seed=1)
    assert result["games_drawn"] + result["games_won_a"] <= result["games"]
    assert result["score_a"] == pytest.approx(
        (result["games_won_a"] + result["games_drawn"] / 2) / result["games"])


def test_the_terminal_game_says_a_draw(monkeypatch, capsys):
    import io

    from tabula.cli import main
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 200))
    assert main(["play", "checkers", "--pieces", "2", "--hotseat"]) == 0
    assert "a draw: 40 moves each" in capsys.readouterr().out


def test_a_game_through_the_web_api_has_no_throws_and_ends():
    """In the browser's API a person is never asked to throw (no dice): the moves are
    there at once; the game ends, won or drawn."""
    from starlette.testclient import TestClient

    from tabula.web import create_app
    client = TestClient(create_app(None), raise_server_exceptions=False)
    data = client.post("/api/games", json={"game": "checkers", "pieces": 4,
                                            "level": "apprentice", "seed": 2}).json()
    assert data["layout"]["dice"]["count"] == 0 and len(data["layout"]["cells"]) == 32
    key = data["id"]
    for _ in range(300):
        state = data["state"]
        if state["phase"] == "over":
            break
        assert state["phase"] == "move" and state["moves"]
        data = client.post(f"/api/games/{key}/move",
                           json={"move": state["moves"][0]["index"]}).json()
    assert data["state"]["phase"] == "over", "a game through the API did not end"


def test_an_endgame_played_out_from_a_position_with_hints_in_results(tmp_path, monkeypatch,
                                                                      capsys):
    """tabula play --position starts from an endgame; with a table, the hint ranks the
    moves by their results and the plies to the end, in the terminal and the web API."""
    import io

    from starlette.testclient import TestClient

    from tabula.cli import main
    from tabula.solver.outcome_table import OutcomeTable, solve_outcomes
    from tabula.web import create_app
    path = tmp_path / "c3.h5"
    solve_outcomes(get_game("checkers", 3), path, quiet=True)
    monkeypatch.setattr("sys.stdin", io.StringIO("?\nq\n"))
    assert main(["play", "checkers", "--pieces", "3", "--table", str(path), "--level",
                 "master", "--side", "white", "--position", TWO_KINGS]) == 0
    said = capsys.readouterr().out
    assert "32-27: you win in 31 plies" in said   # White's two kings, in their squares
    monkeypatch.setattr("sys.stdin", io.StringIO("?\nq\n"))
    assert main(["play", "checkers", "--pieces", "3", "--table", str(path), "--level",
                 "master", "--position", TWO_KINGS]) == 0
    assert "you lose in 30 plies" in capsys.readouterr().out   # after the computer's move
    client = TestClient(create_app(OutcomeTable(path)), raise_server_exceptions=False)
    data = client.post("/api/games", json={"game": "checkers", "pieces": 3, "level": "master",
                                            "side": "white",
                                            "position": json.loads(TWO_KINGS)}).json()
    assert data["state"]["seat"] == 1 and data["state"]["board"]["cells"]["s28"] == 1
    hint = client.get(f"/api/games/{data['id']}/hint").json()
    assert [(m["result"], m["plies"]) for m in hint["moves"]] == [("win", 31), ("win", 31)]
    refused = client.post("/api/games", json={"game": "checkers", "pieces": 3,
                                               "position": {"turn": "black"}})
    assert refused.status_code == 400 and "lacks" in refused.json()["error"]


def test_a_position_set_up_on_the_board_and_what_is_refused():
    """The page's set-up (Presentation.from_view): cells and kings' labels, White to move
    seen from White's side; a square off the board, a man on its crowning row, and a set-up
    in a game that has none are refused in one line."""
    from starlette.testclient import TestClient

    from tabula.web import create_app
    game = get_game("checkers", 5)
    code = game.presentation.from_view({"s1": 0, "s28": 1, "s32": 1}, {"s28": "K", "s32": "K"}, 1)
    assert code == position(black_men=[1], white_kings=[28, 32], turn="white")
    for cells in ({"s33": 0, "s1": 1}, {"s30": 0, "s1": 1}):
        with pytest.raises(PositionError):
            game.presentation.from_view(cells, {}, 0)
    client = TestClient(create_app(None), raise_server_exceptions=False)
    board = {"cells": {"s1": 0, "s32": 1}, "labels": {}, "seat": 0}
    assert client.post("/api/games", json={"game": "checkers", "level": "apprentice",
                                           "board": board}).status_code == 200
    refused = client.post("/api/games", json={"game": "ur", "level": "apprentice",
                                              "board": board})
    assert refused.status_code == 400 and "not set up on the board" in refused.json()["error"]


def test_the_review_says_what_a_move_threw_away(tmp_path):
    """Through the web API, a person's move that turns a win into a loss is reviewed with
    both results and their plies."""
    from starlette.testclient import TestClient

    from tabula.solver.outcome_table import OutcomeTable, solve_outcomes
    from tabula.web import create_app
    path = tmp_path / "c3.h5"
    game = get_game("checkers", 3)
    solve_outcomes(game, path, quiet=True)
    table = OutcomeTable(path)
    for code in uniform_positions(game, 2000, seed=9):   # a position where a move loses
        moves = game.legal_moves(code, 0)
        said = [m["result"] for m in table.move_answers(code, moves)]
        if "win" in said and "loss" in said and not any(m["over"] for m in moves):
            break
    client = TestClient(create_app(table), raise_server_exceptions=False)
    key = client.post("/api/games", json={"game": "checkers", "pieces": 3, "level": "master",
                                           "position": to_json(code)}).json()["id"]
    client.post(f"/api/games/{key}/move", json={"move": said.index("loss")})
    worst = client.get(f"/api/games/{key}/review").json()["review"][0]["worst"][0]
    assert "(a loss in" in worst["played"] and "(a win in" in worst["better"]
    assert worst["label"] == "blunder" and worst["throw"] is None


def test_positions_in_the_players_standard_notation():
    """FEN in and out ('W:W18,K26:B9,K1', ranges such as 1-3 too), either side to move;
    the terminal's board ends with it; what is not one is refused in one line."""
    from tabula.games.checkers import fen
    game = get_game("checkers", 6)
    assert game.position_from_json({"fen": "W:W18,K26:B9,K1"}) == \
        position(black_men=[9], black_kings=[1], white_men=[18], white_kings=[26], turn="white")
    assert game.position_from_json({"fen": "B:W30-32:B1-3"}) == \
        position(black_men=[1, 2, 3], white_men=[30, 31, 32])
    for code in uniform_positions(game, 500, seed=6):
        for seat in (0, 1):
            assert game.position_from_json({"fen": fen(code, seat)}) == code
    assert game.presentation.board(game.start, True).endswith("FEN B:W30,31,32:B1,2,3")
    for bad in ("", "B:W1", "X:W1:B2", "B:W1:W2", "B:Wx:B2", "B:W1-999999999999:B2",
                "B:W9-5:B2", 7):
        with pytest.raises(PositionError):
            game.position_from_json({"fen": bad})
