"""Decisions drawn from a table: for positions, a throw, its legal moves and each
move's exact worth (the mover's winning chance after it). The decision losses of
training (training/decisions.py) and the decision sets (datagen/decision_set.py)
are made of them."""
import numpy as np
from numba import njit, prange

from tabula.infra.rng import cumulative, draw_throw, stream_key


@njit(parallel=True, cache=True)
def sample_decisions(moves, throws, cum_probs, max_moves, codes, seeds, streams):
    """For each code a throw (from stream (seeds[i], streams[i])) and its moves."""
    n = len(codes)
    counts = np.empty(n, dtype=np.int64)
    next_codes = np.zeros((n, max_moves), dtype=codes.dtype)
    infos = np.zeros((n, max_moves), dtype=np.int64)
    for i in prange(n):
        throw = draw_throw(throws, cum_probs, stream_key(seeds[i], streams[i]), 0)
        counts[i] = moves(codes[i], throw, next_codes[i], infos[i])
    return counts, next_codes, infos


def sampled_decisions(table, codes, seeds, streams, every_cube_state: bool = False):
    """The decisions of `codes` with two or more moves (position i's throw from stream
    (seeds[i], streams[i])), each move's exact worth (the mover's winning chance after
    it, or a money table's decision_worths; 0 in unused slots), and which positions they
    are (a mask). every_cube_state: a money table's worths in each of the mover's cube
    states, (k, M, 3)."""
    g = table.game
    counts, next_codes, infos = sample_decisions(
        g.moves, g.throws, cumulative(g.probs), g.max_moves, np.ascontiguousarray(codes),
        seeds, streams)
    worths = (table.decision_worths(counts, next_codes, infos, every_state=True)
              if every_cube_state else table.decision_worths(counts, next_codes, infos))
    keep = counts >= 2
    return counts[keep], next_codes[keep], infos[keep], worths[keep], keep


def decisions_for(table, codes: np.ndarray, seed: int):
    """The decisions with two or more moves among those of `codes` (position i's throw
    from stream (seed, i))."""
    n = len(codes)
    return sampled_decisions(table, codes, np.full(n, seed, np.int64), np.arange(n))[:4]


def decisions_with_positions(table, codes: np.ndarray, seed: int):
    """The decisions of decisions_for, each preceded by its position: (positions,
    counts, next codes, infos, worths)."""
    n = len(codes)
    *decisions, keep = sampled_decisions(table, codes, np.full(n, seed, np.int64), np.arange(n))
    return (np.asarray(codes)[keep], *decisions)
