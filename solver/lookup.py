"""A value of a layered table, looked up in compiled code: the table's layers as one
flat float32 array (memory-mapped or in memory) and each layer's offset in it."""
import numpy as np
from numba import njit, prange

from tabula.games.game import LAYER_STRIDE


@njit(cache=True)
def lookup(layer_of, rank, flat, offsets, code):
    """Value of `code` from a flat float32 array of layers starting at offsets[layer]
    (-1: not in the table, gives NaN). A side with no piece in play has won."""
    layer = layer_of(code)
    if layer // LAYER_STRIDE == 0:
        return 1.0
    if layer % LAYER_STRIDE == 0:
        return 0.0
    start = offsets[layer]
    if start < 0:
        return np.nan
    return np.float64(flat[start + rank(code)])


@njit(parallel=True, cache=True)
def lookup_many(layer_of, rank, flat, offsets, codes):
    out = np.empty(len(codes))
    for i in prange(len(codes)):
        out[i] = lookup(layer_of, rank, flat, offsets, codes[i])
    return out
