"""Bit-set primitives for the perfect indices: binomials, colexicographic ranking
(combinatorial number system), and bit extract/deposit, all by byte tables.

A set {c_1 < c_2 < ... < c_k} of cells gets rank sum_i C(c_i, i); the ranks of
all k-subsets of n cells are exactly 0 .. C(n, k) - 1, dense and gap-free.
Masks here have at most 32 bits.
"""
import numpy as np
from numba import njit

MAX_N = 64
MASK_BYTES = 4


def _binomial_table(n_max: int) -> np.ndarray:
    table = np.zeros((n_max + 1, n_max + 1), dtype=np.int64)
    for n in range(n_max + 1):
        table[n, 0] = 1
        for k in range(1, n + 1):
            table[n, k] = table[n - 1, k - 1] + table[n - 1, k]
    return table


BINOM = _binomial_table(MAX_N)
_BYTES = np.arange(256)
POP8 = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)


def _colex_byte_table() -> np.ndarray:
    """COLEX8[b, byte, seen]: the rank contribution of the set bits of byte number b
    when `seen` smaller cells are already in the set."""
    table = np.zeros((MASK_BYTES, 256, 8 * MASK_BYTES + 1), dtype=np.int64)
    for b in range(MASK_BYTES):
        for byte in range(256):
            cells = [8 * b + j for j in range(8) if (byte >> j) & 1]
            for seen in range(8 * b + 1):
                table[b, byte, seen] = sum(BINOM[c, seen + i + 1] for i, c in enumerate(cells))
    return table


def _extract_deposit_tables():
    """PEXT8[mask, avail]: the bits of mask under avail, packed down;
    PDEP8[compact, avail]: the low bits of compact spread onto avail's bits."""
    mask = _BYTES[:, None]
    avail = _BYTES[None, :]
    pext = np.zeros((256, 256), dtype=np.int64)
    pdep = np.zeros((256, 256), dtype=np.int64)
    packed = np.zeros((1, 256), dtype=np.int64)
    for j in range(8):
        bit = (avail >> j) & 1
        pext |= ((mask >> j) & bit) << packed
        pdep |= ((mask >> packed) & bit) << j
        packed = packed + bit
    return pext, pdep


COLEX8 = _colex_byte_table()
PEXT8, PDEP8 = _extract_deposit_tables()


@njit(cache=True)
def popcount(x):
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56 & 0xFF


@njit(cache=True)
def colex_rank(mask):
    """Rank of the set of set bits of `mask` among all sets of the same size."""
    rank = 0
    seen = 0
    b = 0
    while mask:
        byte = mask & 255
        rank += COLEX8[b, byte, seen]
        seen += POP8[byte]
        mask >>= 8
        b += 1
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
def extract_bits(mask, avail):
    """The bits of `mask` that lie under `avail`, packed onto consecutive low cells."""
    out = 0
    shift = 0
    while avail:
        byte = avail & 255
        out |= PEXT8[mask & 255, byte] << shift
        shift += POP8[byte]
        avail >>= 8
        mask >>= 8
    return out


@njit(cache=True)
def deposit_bits(compact, avail):
    """Inverse of extract_bits: cell i of `compact` goes to the i-th set bit of `avail`."""
    out = 0
    shift = 0
    while avail:
        byte = avail & 255
        out |= PDEP8[compact & 255, byte] << shift
        compact >>= POP8[byte]
        avail >>= 8
        shift += 8
    return out


_DEBRUIJN = 0x03F79D71B4CB0A89
_DEBRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN_INDEX[((((1 << _i) * _DEBRUIJN) & (2**64 - 1)) >> 58)] = _i


@njit(cache=True)
def lowest_bit_index(low):
    """Index of the single set bit of `low` (a power of two below 2**62)."""
    return _DEBRUIJN_INDEX[((low * _DEBRUIJN) >> 58) & 63]


@njit(cache=True)
def squares_sum(mask):
    """Sum of the square numbers (bit i = square i + 1) of a bit mask: how far a side's
    pieces have come, for a game's progress (the solver sweeps positions from the most
    advanced down, so most successors of a position already hold fresh values)."""
    total = 0
    while mask:
        low = mask & -mask
        mask ^= low
        total += lowest_bit_index(low) + 1
    return total
