"""A plain reference for bear-offs, written from ../shared/rules/bearoff.md only: its own
move generator on tuples (no codes, no indices), memoised recursion over positions in
exact fractions or floats. Slow; for small numbers of checkers."""
from fractions import Fraction
from functools import lru_cache

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def play_die(side: tuple, d: int) -> set:
    """Sides after one die: a checker from p to p - d, off from p = d, or off from the
    highest point when d is above it."""
    if sum(side) == 0:
        return {side}
    highest = max(p for p in range(1, 7) if side[p - 1])
    out = set()
    for p in range(1, 7):
        if not side[p - 1]:
            continue
        s = list(side)
        s[p - 1] -= 1
        if p > d:
            s[p - d - 1] += 1
        elif not (p == d or p == highest):
            continue
        out.add(tuple(s))
    return out


def plays(side: tuple, roll) -> set:
    """The distinct results of a roll: a double four times, otherwise both dice in
    either order (every die is playable while a checker is left)."""
    a, b = roll
    orders = [(a,) * 4] if a == b else [(a, b), (b, a)]
    results = set()
    for order in orders:
        frontier = {side}
        for d in order:
            frontier = {t for s in frontier for t in play_die(s, d)}
        results |= frontier
    return results


def probability(roll, exact=True):
    p = Fraction(1 if roll[0] == roll[1] else 2, 36)
    return p if exact else float(p)


def solver(gammon_checkers=15, exact=True):
    """values(me, opp) -> (win, win_gammon, lose_gammon, centered, owned, unavailable)
    for the player on roll (no-double cubeful equities), by the rules' definitions."""
    one = Fraction(1) if exact else 1.0

    def cube(nd, nd_unavailable):
        return max(nd, min(2 * nd_unavailable, one))

    @lru_cache(maxsize=None)
    def values(me, opp):
        totals = [0 * one] * 6
        for roll in ROLLS:
            best = None
            for after in plays(me, roll):
                if sum(after) == 0:
                    points = 2 * one if sum(opp) == gammon_checkers else one
                    mine = (points, one, points - one, 0 * one, points, points, points)
                else:
                    w, gw, gl, c, o, u = values(opp, after)
                    mine = (1 - 2 * w + gl - gw, 1 - w, gl, gw,
                            -cube(c, u), -u, -cube(o, u))
                if best is None:
                    best = list(mine)
                    continue
                if mine[0] > best[0]:
                    best[:4] = mine[:4]
                for q in range(4, 7):
                    best[q] = max(best[q], mine[q])
            for q in range(6):
                totals[q] += probability(roll, exact) * best[q + 1]
        return tuple(totals)

    return values


def rolls_distribution(side: tuple, first_off: bool = False):
    """The chances of needing exactly r rolls to bear off (with first_off, to bear off
    a first checker), playing for the fewest on average (ties: the first in sorted
    order), as {r: chance}."""
    @lru_cache(maxsize=None)
    def dist(s):
        if sum(s) == 0 or (first_off and sum(s) < sum(side)):
            return ((0, 1.0),)
        out = {}
        for roll in ROLLS:
            options = sorted(plays(s, roll))
            best = min(options, key=lambda t: sum(r * p for r, p in dist(t)))
            for r, p in dist(best):
                out[r + 1] = out.get(r + 1, 0.0) + probability(roll, False) * p
        return tuple(sorted(out.items()))
    return dict(dist(side))
