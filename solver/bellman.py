"""The Bellman equation evaluated from a table by lookups: what a move is worth,
and T(V) of a position. Used to certify tables and to value moves."""
import numpy as np
from numba import njit, prange

from tabula.games.game import OVER, worth
from .lookup import lookup


@njit(cache=True)
def move_worth(layer_of, rank, flat, offsets, next_code, info):
    """The mover's winning chance after a move (games.game.worth), by the table."""
    v = 0.0 if info & OVER else lookup(layer_of, rank, flat, offsets, next_code)
    return worth(info, v)


@njit(cache=True)
def move_worths(layer_of, rank, flat, offsets, next_codes, infos):
    out = np.empty(len(next_codes))
    for i in range(len(next_codes)):
        out[i] = move_worth(layer_of, rank, flat, offsets, next_codes[i], infos[i])
    return out


@njit(parallel=True, cache=True)
def decision_losses(layer_of, rank, flat, offsets, counts, next_codes, infos, chosen):
    """Each decision's loss, the best move's worth less the chosen one's: row i holds
    counts[i] legal moves (next codes, infos) and the index of the one chosen."""
    out = np.empty(len(counts))
    for i in prange(len(counts)):
        best = 0.0
        picked = 0.0
        for j in range(counts[i]):
            w = move_worth(layer_of, rank, flat, offsets, next_codes[i, j], infos[i, j])
            best = max(best, w)
            if j == chosen[i]:
                picked = w
        out[i] = best - picked
    return out


@njit(parallel=True, cache=True)
def bellman_many(moves, mirror, layer_of, rank, throws, probs, max_moves, flat, offsets,
                 codes):
    """T(V)(s) for each code s: sum over throws of p(t) times the best move's worth
    (a throw without a legal move is worth 1 - V(mirror(s)))."""
    out = np.empty(len(codes))
    for i in prange(len(codes)):
        out_codes = np.empty(max_moves, dtype=np.int64)
        out_info = np.empty(max_moves, dtype=np.int64)
        code = codes[i]
        total = 0.0
        for t in range(len(throws)):
            n = moves(code, throws[t], out_codes, out_info)
            if n == 0:  # the same board passes to the other side: a move with info 0
                best = worth(0, lookup(layer_of, rank, flat, offsets, mirror(code)))
            else:
                best = 0.0
                for j in range(n):
                    best = max(best, move_worth(layer_of, rank, flat, offsets, out_codes[j],
                                                out_info[j]))
            total += probs[t] * best
        out[i] = total
    return out


def table_move_worths(table, next_codes, infos) -> np.ndarray:
    """move_worth of each (resulting position, packed move info), from `table`."""
    return move_worths(table.game.layer_of, table.game.rank, table.flat, table.offsets,
                       np.asarray(next_codes, dtype=np.int64), np.asarray(infos, dtype=np.int64))


def table_bellman(table, codes) -> np.ndarray:
    g = table.game
    return bellman_many(g.moves, g.mirror, g.layer_of, g.rank, g.throws, g.probs, g.max_moves,
                        table.flat, table.offsets, np.asarray(codes, dtype=np.int64))


@njit(cache=True)
def best_move(layer_of, rank, flat, offsets, next_codes, infos, n):
    """Index of the best of the first n moves by the table (the first of equals)."""
    best_j = 0
    best = -1.0
    for j in range(n):
        w = move_worth(layer_of, rank, flat, offsets, next_codes[j], infos[j])
        if w > best:
            best = w
            best_j = j
    return best_j


@njit(parallel=True, cache=True)
def best_moves(layer_of, rank, flat, offsets, counts, next_codes, infos):
    """best_move of each decision (rows of next_codes and infos, counts[i] moves)."""
    out = np.empty(len(counts), dtype=np.int64)
    for i in prange(len(counts)):
        out[i] = best_move(layer_of, rank, flat, offsets, next_codes[i], infos[i], counts[i])
    return out


@njit(parallel=True, cache=True)
def decision_worths(layer_of, rank, flat, offsets, counts, next_codes, infos):
    """float32 (n, M): each legal move's worth to the mover (move_worth), 0 in unused
    slots."""
    worths = np.zeros(next_codes.shape, dtype=np.float32)
    for i in prange(len(counts)):
        for j in range(counts[i]):
            worths[i, j] = move_worth(layer_of, rank, flat, offsets, next_codes[i, j],
                                      infos[i, j])
    return worths
