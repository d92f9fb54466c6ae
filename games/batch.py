"""Compiled loops, on all cores, that apply a game's per-position functions to arrays."""
import numpy as np
from numba import njit, prange


@njit(parallel=True, cache=True)
def rank_many(rank, codes):
    out = np.empty(len(codes), dtype=np.int64)
    for i in prange(len(codes)):
        out[i] = rank(codes[i])
    return out


@njit(parallel=True, cache=True)
def layer_of_many(layer_of, codes):
    out = np.empty(len(codes), dtype=np.int64)
    for i in prange(len(codes)):
        out[i] = layer_of(codes[i])
    return out


@njit(parallel=True, cache=True)
def unrank_many(unrank, layers, ranks):
    out = np.empty(len(ranks), dtype=np.int64)
    for i in prange(len(ranks)):
        out[i] = unrank(layers[i], ranks[i])
    return out


@njit(parallel=True, cache=True)
def mirror_many(mirror, codes):
    out = np.empty(len(codes), dtype=np.int64)
    for i in prange(len(codes)):
        out[i] = mirror(codes[i])
    return out
