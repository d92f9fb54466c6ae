"""Checkers (games/checkers.py, games/checkers_rules.py) and its endgame databases
(solver/retrograde.py): the rules file's vectors and counts, moves equal to a plain
reference implementation (tests/reference/checkers_rules.py), and databases equal to
a brute-force solve of those rules."""
import numpy as np
import pytest

from tabula.games import get_game
from tabula.games.checkers import from_json, notation, to_json, unpack
from tabula.games.checkers_rules import (MAX_CHAIN, MAX_MOVES, configurations, flip,
                                         legal_moves, work_space)
from tabula.games.game import OVER, PositionError
from tabula.runtime.sampling import random_play_positions, uniform_positions
from tabula.solver.retrograde import index_of, solve_database
from tests.reference import checkers_rules as reference


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


def check_databases_equal_brute_force(pieces):
    """Every position with up to `pieces` pieces, either side to move: the database's
    value equals the brute force's, which also holds colour reversal on its own."""
    values, base = solve_database(pieces)
    solved = reference.solve(pieces)
    assert len(solved) == 2 * len(values)
    for (board, side), depth in solved.items():
        assert solved[colour_reversed((board, side))] == depth
        code = np.int64(from_json({"turn": side, **{
            colour: {"men": [s for s, c, k in board if c == colour and not k],
                     "kings": [s for s, c, k in board if c == colour and k]}
            for colour in (reference.BLACK, reference.WHITE)}}, pieces))
        assert values[index_of(base, *unpack(code))] == (0 if depth is None else depth + 1)
    return values


def test_two_piece_databases_equal_brute_force():
    values = check_databases_equal_brute_force(2)
    assert (values % 2 == 0).any() and (values % 2 == 1).any() and (values == 0).any()


@pytest.mark.slow
def test_three_piece_databases_equal_brute_force():
    check_databases_equal_brute_force(3)
