"""How far the pieces of both sides have come: the solver sweeps positions from
the most advanced down, so most successors of a position already hold fresh values."""
from numba import njit

from .combinatorics import lowest_bit_index


@njit(cache=True)
def squares_sum(mask):
    """Sum of the square numbers (bit i = square i + 1) of a bit mask."""
    total = 0
    while mask:
        low = mask & -mask
        mask ^= low
        total += lowest_bit_index(low) + 1
    return total
