"""Compiled loops that apply a game's per-position functions to arrays of codes."""
import numpy as np
from numba import njit


@njit(cache=True)
def rank_many(rank, codes):
    out = np.empty(len(codes), dtype=np.int64)
    for i in range(len(codes)):
        out[i] = rank(codes[i])
    return out


@njit(cache=True)
def layer_of_many(layer_of, codes):
    out = np.empty(len(codes), dtype=np.int64)
    for i in range(len(codes)):
        out[i] = layer_of(codes[i])
    return out


@njit(cache=True)
def unrank_many(unrank, layers, ranks):
    out = np.empty(len(ranks), dtype=np.int64)
    for i in range(len(ranks)):
        out[i] = unrank(layers[i], ranks[i])
    return out
