"""Decisions drawn from a table: for positions, a throw, its legal moves and each
move's exact worth (the mover's winning chance after it). The decision losses of
training (training/decisions.py) and the decision sets (datagen/decision_set.py)
are made of them."""
import numpy as np
from numba import njit, prange

from tabula.infra.rng import cumulative, draw_throw, stream_key
from tabula.solver.bellman import move_worth


@njit(parallel=True, cache=True)
def sample_decisions(moves, layer_of, rank, throws, cum_probs, max_moves, flat, offsets,
                     codes, seeds, streams):
    """For each code a throw (from stream (seeds[i], streams[i])), its moves and their
    exact worths (the mover's winning chance after each; 0 in unused slots)."""
    n = len(codes)
    counts = np.empty(n, dtype=np.int64)
    next_codes = np.zeros((n, max_moves), dtype=np.int64)
    infos = np.zeros((n, max_moves), dtype=np.int64)
    worths = np.zeros((n, max_moves), dtype=np.float32)
    for i in prange(n):
        throw = draw_throw(throws, cum_probs, stream_key(seeds[i], streams[i]), 0)
        k = moves(codes[i], throw, next_codes[i], infos[i])
        counts[i] = k
        for j in range(k):
            worths[i, j] = move_worth(layer_of, rank, flat, offsets, next_codes[i, j],
                                      infos[i, j])
    return counts, next_codes, infos, worths


def sampled_decisions(table, codes, seeds, streams):
    """The decisions of `codes` with two or more moves (position i's throw from stream
    (seeds[i], streams[i])), and which positions they are (a mask)."""
    g = table.game
    counts, next_codes, infos, worths = sample_decisions(
        g.moves, g.layer_of, g.rank, g.throws, cumulative(g.probs), g.max_moves, table.flat,
        table.offsets, np.ascontiguousarray(codes), seeds, streams)
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
