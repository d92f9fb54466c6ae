"""The standard game's bear-offs valued by the bear-off tables (solver/bear_offs.py):
each side's chance of bearing off its first checker in r throws equals a plain
recursion and GNU Backgammon's one-sided database; the cubeless chances of positions
where both sides bear off equal gnubg's evaluation, which reads its own databases; a
network's values change there only, and only in their chances."""
import numpy as np
import pytest

from tabula.games import bearoff, get_game
from tabula.solver.bear_offs import TWO_SIDED, bear_off_values, with_bear_offs
from tabula.solver.one_sided import throws_to_first_off
from tests.bearoff_reference import rolls_distribution


@pytest.fixture(scope="module")
def standard():
    return get_game("backgammon", rules="standard")


def test_the_first_checker_off_equals_a_plain_recursion():
    game = get_game("bearoff", 15)
    first = throws_to_first_off(game)
    for counts in ((15, 0, 0, 0, 0, 0), (5, 5, 5, 0, 0, 0), (0, 7, 8, 0, 0, 0),
                   (0, 0, 15, 0, 0, 0)):
        want = rolls_distribution(counts, first_off=True)
        got = first[game.race.side_index(bearoff.side_from_counts(counts))]
        assert {r for r, p in enumerate(got) if p} == set(want)
        assert all(got[r] == pytest.approx(p, abs=1e-12) for r, p in want.items())
    fewer = game.race.side_index(bearoff.side_from_counts((14, 0, 0, 0, 0, 0)))
    assert not first[fewer].any()    # a side with a checker off: no gammon to save


def positions(game, n, seed):
    """Codes where both sides have every checker home, drawn at random (a side with
    none off, which may lose a gammon, a time in four): (code, checkers of the side on
    roll, of the other)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        sides = [rng.multinomial(15 if rng.random() < 0.25 else rng.integers(1, 15),
                                 rng.dirichlet(np.ones(6))) for _ in range(2)]
        points = [[p + 1 for p in range(6) for _ in range(side[p])] for side in sides]
        out.append((game.position_from_json({"me": points[0], "opp": points[1]}),
                    sides[0].sum(), sides[1].sum()))
    return out


def test_the_chances_are_gnubgs(standard):
    """Where a side has more than TWO_SIDED checkers, gnubg values the race by its
    one-sided database as tabula does: within its 16-bit rounding; with at most
    TWO_SIDED checkers a side, by its two-sided one as tabula does exactly: within
    gnubg's own drift (tests/test_bearoff.py)."""
    gnubg = pytest.importorskip("gnubg")
    one_sided = two_sided = gammons = 0
    for code, mine, theirs in positions(standard, 300, seed=3):
        ours = chances(standard, [code])
        want = gnubg.evaluate(standard.gnubg_board(code), gnubg.cubeinfo(),
                              gnubg.evalcontext(0, 0, 1, 0, 0.0))[:5]
        small = max(mine, theirs) <= TWO_SIDED
        assert ours[0] == pytest.approx(want, abs=1e-4 if small else 5e-5)
        two_sided += small
        one_sided += not small
        gammons += ours[0, 1] + ours[0, 3] > 1e-3
    assert one_sided > 150 and two_sided > 10 and gammons > 10


def chances(game, codes) -> np.ndarray:
    """The bear-off tables' chances of codes where both sides bear off."""
    home, sides = game.bear_offs.home_sides(game.codes(codes))
    assert home.all()
    return bear_off_values(game.bear_offs, game.pieces).chances(sides)


def test_a_network_s_chances_change_where_both_sides_bear_off_and_nowhere_else(standard):
    home_code, _, _ = positions(standard, 1, seed=5)[0]
    codes = standard.codes([standard.start, home_code])
    fake = np.tile(np.linspace(0.1, 0.9, 9), (2, 1))
    values = with_bear_offs(standard, lambda c: fake[:len(c)].copy())(codes)
    assert (values[0] == fake[0]).all() and (values[1, 5:] == fake[1, 5:]).all()
    assert (values[1, :5] == chances(standard, codes[1:])[0]).all()
    hyper = get_game("backgammon", 3)
    assert with_bear_offs(hyper, len) is len     # no home_counts: the values as they are
