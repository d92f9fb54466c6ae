"""Each side's moves in a race whose sides never meet (games.game.Race): for every side
of at most N pieces and every throw, the sides it can reach, as index lists. The two
race solvers (two_sided.py, one_sided.py) work on these lists instead of codes.

Sides are renumbered by pips to go (`order`), so that the sides of one pip count are
one contiguous range and a solver can finish them in one pass from the lowest count.
"""
from dataclasses import dataclass

import numpy as np
from numba import njit


@dataclass
class SideMoves:
    order: np.ndarray        # order[q] = side index (race.side_index) of the q-th side by pips
    place: np.ndarray        # its inverse: place[side index] = q
    pips: np.ndarray         # pips to go of side q (non-decreasing)
    checkers: np.ndarray     # pieces left of side q
    pip_start: np.ndarray    # sides with v pips are q in pip_start[v] .. pip_start[v + 1] - 1
    starts: np.ndarray       # side q, throw t: targets[starts[q*T + t]:starts[q*T + t + 1]]
    targets: np.ndarray      # q of the side reached (0: every piece borne off)


@njit(cache=True)
def _count(side_moves, sides, throws, max_moves):
    counts = np.zeros(len(sides) * len(throws), dtype=np.int64)
    out = np.empty(max_moves, dtype=np.int64)
    for q in range(len(sides)):
        if sides[q] == 0:
            continue
        for t in range(len(throws)):
            counts[q * len(throws) + t] = side_moves(sides[q], throws[t], out)
    return counts


@njit(cache=True)
def _fill(side_moves, side_index, sides, throws, place, starts, targets, max_moves):
    out = np.empty(max_moves, dtype=np.int64)
    for q in range(len(sides)):
        if sides[q] == 0:
            continue
        for t in range(len(throws)):
            n = side_moves(sides[q], throws[t], out)
            first = starts[q * len(throws) + t]
            for i in range(n):
                targets[first + i] = place[side_index(out[i])]


def side_moves(game, pieces: int | None = None) -> SideMoves:
    """The moves of every side of at most `pieces` (default: the game's) pieces."""
    race = game.race
    n = race.n_sides(game.pieces if pieces is None else pieces)
    by_index = np.array([race.side_of_index(i) for i in range(n)], dtype=np.int64)
    pips_by_index = np.array([race.side_pips(s) for s in by_index], dtype=np.int64)
    order = np.argsort(pips_by_index, kind="stable")
    place = np.empty(n, dtype=np.int64)
    place[order] = np.arange(n)
    sides = by_index[order]
    pips = pips_by_index[order]
    counts = _count(race.side_moves, sides, game.throws, game.max_moves)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    targets = np.empty(starts[-1], dtype=np.int32)
    _fill(race.side_moves, race.side_index, sides, game.throws, place, starts, targets,
          game.max_moves)
    pip_start = np.searchsorted(pips, np.arange(pips[-1] + 2)).astype(np.int64)
    checkers = np.array([race.side_checkers(s) for s in sides], dtype=np.int64)
    return SideMoves(order=order, place=place, pips=pips, checkers=checkers,
                     pip_start=pip_start, starts=starts, targets=targets)
