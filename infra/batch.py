"""Compiled loops, on all cores, that apply a game's per-position functions to arrays."""
import numpy as np
from numba import njit, prange


@njit(parallel=True, cache=True)
def per_code(f, codes):
    """f(code) of each code, an integer (a game's rank, layer_of, ...)."""
    out = np.empty(len(codes), dtype=np.int64)
    for i in prange(len(codes)):
        out[i] = f(codes[i])
    return out


@njit(parallel=True, cache=True)
def _unrank_into(unrank, layers, ranks, out):
    for i in prange(len(ranks)):
        out[i] = unrank(layers[i], ranks[i])
    return out


def unrank_many(unrank, layers, ranks, dtype=np.int64) -> np.ndarray:
    """unrank(layer, rank) of each: codes of `dtype` (a game's code_dtype)."""
    return _unrank_into(unrank, layers, ranks, np.empty(len(ranks), dtype=dtype))


@njit(cache=True)
def is_code(code):
    """Whether a code has the form of one: an int64 at least 0, or a complex128 whose
    parts are whole numbers 0 .. 2^53 (games/game.py), before its game reads it."""
    if isinstance(code, complex):
        return 0 <= code.real < 2.0 ** 53 and 0 <= code.imag < 2.0 ** 53 and \
            code.real == np.floor(code.real) and code.imag == np.floor(code.imag)
    return code >= 0


@njit(parallel=True, cache=True)
def positions_of(layer_of, rank, unrank, layer_sizes, codes):
    """Whether each code is a position of the variant: its layer is one of the variant's
    (layer_sizes[layer] > 0), its rank within that layer, and unranking the rank gives
    the code back (a code with stray bits or impossible pieces does not)."""
    out = np.empty(len(codes), dtype=np.bool_)
    for i in prange(len(codes)):
        code = codes[i]
        out[i] = False
        if is_code(code):
            layer = layer_of(code)
            if 0 <= layer < len(layer_sizes) and layer_sizes[layer] > 0:
                r = rank(code)
                out[i] = 0 <= r < layer_sizes[layer] and unrank(layer, r) == code
    return out


@njit(parallel=True, cache=True)
def evaluate_many(evaluate, codes):
    """evaluate(code) -> float of each code (a game's heuristic, for instance)."""
    out = np.empty(len(codes))
    for i in prange(len(codes)):
        out[i] = evaluate(codes[i])
    return out


@njit(parallel=True, cache=True)
def all_throws(moves, mirror, throws, max_moves, codes):
    """Moves of every code for every throw: counts (n, T), next (n, T, M), info (n, T, M).
    A throw with no legal move is given as one move to the mirrored position that
    passes the turn (info 0), so searches need no special case for it."""
    n, n_throws = len(codes), len(throws)
    counts = np.empty((n, n_throws), dtype=np.int64)
    next_codes = np.zeros((n, n_throws, max_moves), dtype=codes.dtype)
    infos = np.zeros((n, n_throws, max_moves), dtype=np.int64)
    for i in prange(n):
        for t in range(n_throws):
            k = moves(codes[i], throws[t], next_codes[i, t], infos[i, t])
            if k == 0:
                next_codes[i, t, 0] = mirror(codes[i])
                k = 1
            counts[i, t] = k
    return counts, next_codes, infos
