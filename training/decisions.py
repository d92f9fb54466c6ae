"""Decisions for the choice-aware losses: for some positions of a batch, a throw, its
legal moves and each move's exact worth from the table; for searched decisions also
every throw and move one step past each move (the leaves the one-throw search scores).

A value net plays by ranking the afterstates of one decision, so errors that keep
the ranking cost nothing and errors in the differences cost winning chance. The
model's optional decision loss (training/model.py) compares the net's choice
distribution over a decision's moves with the table's.
"""
import numpy as np
from numba import njit, prange

from tabula.games.batch import all_throws
from tabula.games.game import OVER
from tabula.games.rng import cumulative, draw_throw, stream_key
from tabula.solver.bellman import move_worth


@njit(parallel=True, cache=True)
def sample_decisions(moves, layer_of, rank, throws, cum_probs, max_moves, flat, offsets,
                     codes, seed):
    """For each code a throw (from stream (seed, i)), its moves and their exact worths
    (the mover's winning chance after each; 0 in unused slots)."""
    n = len(codes)
    counts = np.empty(n, dtype=np.int64)
    next_codes = np.zeros((n, max_moves), dtype=np.int64)
    infos = np.zeros((n, max_moves), dtype=np.int64)
    worths = np.zeros((n, max_moves), dtype=np.float32)
    for i in prange(n):
        throw = draw_throw(throws, cum_probs, stream_key(seed, i), 0)
        k = moves(codes[i], throw, next_codes[i], infos[i])
        counts[i] = k
        for j in range(k):
            worths[i, j] = move_worth(layer_of, rank, flat, offsets, next_codes[i, j],
                                      infos[i, j])
    return counts, next_codes, infos, worths


def decisions_for(table, codes: np.ndarray, seed: int):
    """The decisions with two or more moves among those of `codes`."""
    g = table.game
    counts, next_codes, infos, worths = sample_decisions(
        g.moves, g.layer_of, g.rank, g.throws, cumulative(g.probs), g.max_moves, table.flat,
        table.offsets, np.ascontiguousarray(codes), seed)
    keep = counts >= 2
    return counts[keep], next_codes[keep], infos[keep], worths[keep]


def searched_decisions_for(table, codes: np.ndarray, seed: int):
    """The decisions of decisions_for, plus the moves of every throw after each of their
    moves that neither ends the game nor is unused, in row-major order of those moves:
    leaf counts (k, T), leaf next codes (k, T, M), leaf infos (k, T, M) (games.batch's
    all_throws, so a throw with no move is one move passing the turn)."""
    g = table.game
    counts, next_codes, infos, worths = decisions_for(table, codes, seed)
    live = np.arange(g.max_moves) < counts[:, None]
    searched = next_codes[live & ((infos & OVER) == 0)]
    leaves = all_throws(g.moves, g.mirror, g.throws, g.max_moves, searched)
    return (counts, next_codes, infos, worths) + leaves
