"""Money values of hypergammon, plain Python: Jacobi value iteration over every position,
moves from tests/reference/backgammon_rules.py, the equations written out from
shared/rules/backgammon.md and bearoff.md (a different program from solver/contact.py:
no numbering, no tabled moves, no sweep order, no in-place updates).

A state is (me, opp) as in backgammon_rules; its values, for the player on roll:
(win, win_gammon, win_backgammon, lose_gammon, lose_backgammon, centered, owned,
unavailable, centered_jacoby), the last four when not doubling now.
"""
from itertools import product

from .backgammon_rules import BAR, plays

ROLLS = [(high, low, (1 if high == low else 2) / 36)
         for high in range(1, 7) for low in range(1, high + 1)]


def states(checkers):
    """Every position with both sides in play, `checkers` a side."""
    def sides():
        for places in product(range(BAR + 1), repeat=checkers):
            if list(places) == sorted(places):
                side = [0] * (BAR + 1)
                for place in places:
                    side[place] += 1
                if side[0] < checkers:
                    yield tuple(side)
    return [(me, opp) for me in sides() for opp in sides()
            if not any(me[p] and opp[BAR - p] for p in range(1, 25))]


def loss_size(loser, checkers):
    """What a side loses when the other has just borne off its last checker."""
    if loser[0]:
        return 1
    return 3 if any(loser[19:]) else 2


def take_point(no_double, no_double_unavailable):
    """The equity of a player who may double: double if it does not lower it."""
    return max(no_double, min(2 * no_double_unavailable, 1.0))


def successor_values(after, values, checkers):
    """The mover's values after a play to `after` (the mover's view)."""
    me, opp = after
    if me[0] == checkers:
        size = loss_size(opp, checkers)
        return (1.0, float(size >= 2), float(size >= 3), 0.0, 0.0,
                float(size), float(size), float(size), 1.0)
    v = values[(opp, me)]
    return (1 - v[0], v[3], v[4], v[1], v[2], -take_point(v[5], v[7]), -v[7],
            -take_point(v[6], v[7]), -take_point(v[8], v[7]))


def solve(checkers, tol=1e-13):
    """{state: values} to a fixed point (no value changing by more than tol)."""
    everything = states(checkers)
    plays_of = {(s, r): plays(*s, high, low) or [s]        # blocked: the same board passes
                for s in everything for r, (high, low, _) in enumerate(ROLLS)}
    values = {s: (0.0,) * 9 for s in everything}
    while True:
        new = {}
        for state in everything:
            total = [0.0] * 9
            for r, (_, _, p) in enumerate(ROLLS):
                options = [successor_values(a, values, checkers) for a in plays_of[state, r]]
                cubeless = [2 * o[0] - 1 + o[1] + o[2] - o[3] - o[4] for o in options]
                top = max(cubeless)
                best = max((o for o, c in zip(options, cubeless) if c > top - 1e-12),
                           key=lambda o: o[0])
                picked = list(best[:5]) + [max(o[k] for o in options) for k in range(5, 9)]
                total = [t + p * x for t, x in zip(total, picked)]
            new[state] = tuple(total)
        change = max(abs(a - b) for s in everything for a, b in zip(new[s], values[s]))
        values = new
        if change < tol:
            return values
