"""Binomial table and colexicographic ranking of bit sets (combinatorial number system).

A set {c_1 < c_2 < ... < c_k} of cells gets rank sum_i C(c_i, i); the ranks of
all k-subsets of n cells are exactly 0 .. C(n, k) - 1, dense and gap-free.
"""
import numpy as np
from numba import njit

MAX_N = 64


def _binomial_table(n_max: int) -> np.ndarray:
    table = np.zeros((n_max + 1, n_max + 1), dtype=np.int64)
    for n in range(n_max + 1):
        table[n, 0] = 1
        for k in range(1, n + 1):
            table[n, k] = table[n - 1, k - 1] + table[n - 1, k]
    return table


BINOM = _binomial_table(MAX_N)


@njit(cache=True)
def binom(n, k):
    if k < 0 or n < 0 or k > n:
        return 0
    return BINOM[n, k]


@njit(cache=True)
def colex_rank(mask):
    """Rank of the set of set bits of `mask` among all sets of the same size."""
    rank = 0
    i = 0
    cell = 0
    while mask:
        if mask & 1:
            i += 1
            rank += BINOM[cell, i]
        mask >>= 1
        cell += 1
    return rank


@njit(cache=True)
def colex_unrank(rank, k, n):
    """Inverse of colex_rank: the k-subset of n cells with this rank, as a bit mask."""
    mask = 0
    cell = n - 1
    for i in range(k, 0, -1):
        while BINOM[cell, i] > rank:
            cell -= 1
        rank -= BINOM[cell, i]
        mask |= 1 << cell
        cell -= 1
    return mask


@njit(cache=True)
def popcount(x):
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


_DEBRUIJN = 0x03F79D71B4CB0A89
_DEBRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN_INDEX[((((1 << _i) * _DEBRUIJN) & (2**64 - 1)) >> 58)] = _i


@njit(cache=True)
def lowest_bit_index(low):
    """Index of the single set bit of `low` (a power of two below 2**62)."""
    return _DEBRUIJN_INDEX[((low * _DEBRUIJN) >> 58) & 63]
