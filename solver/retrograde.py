"""Win/loss/draw databases of checkers endgames by retrograde analysis, as Chinook built
them (games/checkers_rules.py has the rules and the index).

Every position with at most N pieces, both sides on the board, seen by the side to move
(the colour-reversed position is the same entry: games/checkers_rules.py). Its value is
the result with best play and the plies to the end: the side to move wins fastest,
loses slowest, and a draw is a position from which neither side can force a win. One
number says both, VALUE = plies + 1 (0: a draw): a position lost now (no move) is lost
in 0 plies, a move into it wins in 1, so an odd number of plies is a win and an even
one a loss.

The positions are split into slices by the numbers of men and kings of each side
(mm, mk, om, ok). A capture or a crowning leaves a slice for one with fewer pieces or
fewer men; every other move goes to the colour-reversed slice (om, ok, mm, mk). So a
slice and its reverse are solved together as one unit, units in order of pieces and
then of men, each after every unit its captures and crownings reach.

A unit is solved in two passes:
  1. every position's moves: those that leave the unit are read from the solved
     slices; the others are counted;
  2. depth by depth from 0, the positions decided at that depth are fixed, and each
     predecessor inside the unit (the moves played backwards: a step undone, where the
     position before had no capture to make) learns of it: a predecessor of a lost
     position is won one ply later; one of a won position counts a move down, and is
     lost when no move is left that does not lose (one ply after the slowest).
What is never decided is a draw.
"""
import numpy as np
from numba import njit, prange

from tabula.games.checkers_rules import (MAX_MOVES, MAX_CHAIN, NEIGHBOUR, can_capture,
                                         first_square, legal_moves, other_view, slice_rank,
                                         slice_size, slice_unrank)
from tabula.games.combinatorics import popcount

SIDE = 13                  # slice ids: ((mm * SIDE + mk) * SIDE + om) * SIDE + ok
DRAW = 0
NOT_YET = 0xFFFF           # pass 1's "no depth found yet"
CHUNK = 4096               # positions a thread takes at a time in pass 1


def slice_id(mm: int, mk: int, om: int, ok: int) -> int:
    return ((mm * SIDE + mk) * SIDE + om) * SIDE + ok


def reverse(piece_slice: tuple) -> tuple:
    """The slice of the same positions seen by the other side."""
    mm, mk, om, ok = piece_slice
    return om, ok, mm, mk


def units(pieces: int) -> list[tuple]:
    """The units of a database of at most `pieces` pieces, in the order they are solved:
    each a slice, or a slice and its reverse, with both sides on the board."""
    found, seen = [], set()
    for total in range(2, pieces + 1):
        for men in range(total + 1):
            for mm in range(men + 1):
                om = men - mm
                for mk in range(total - men + 1):
                    ok = total - men - mk
                    s = (mm, mk, om, ok)
                    if mm + mk == 0 or om + ok == 0 or s in seen or not slice_size(*s):
                        continue
                    unit = tuple(dict.fromkeys((s, reverse(s))))
                    seen.update(unit)
                    found.append(unit)
    return found


UNIT_BYTES = 10   # a unit's working bytes a position while it is solved (solve_unit)
MAX_UNIT = 1 << 32   # positions of a unit (its positions are counted in 32 bits)


def memory_needed(pieces: int) -> int:
    """Bytes a solve needs in memory at once: the largest unit's working arrays and its
    own values (2 bytes a position). The other values wait in a memory-mapped file
    (solver/outcome_table.py), read where the unit's moves lead."""
    largest = max(sum(int(slice_size(*s)) for s in unit) for unit in units(pieces))
    return (UNIT_BYTES + 2) * largest


def layout(pieces: int):
    """Where each slice's values start in the database's one array (units one after
    the other, a slice's positions by slice_rank), -1 for slices it has not; and the
    array's length."""
    base = np.full(SIDE ** 4, -1, dtype=np.int64)
    start = 0
    for unit in units(pieces):
        for s in unit:
            base[slice_id(*s)] = start
            start += int(slice_size(*s))
    return base, start


@njit(cache=True)
def _slice_of(me, opp, kings):
    return (((popcount(me & ~kings) * SIDE + popcount(me & kings)) * SIDE
             + popcount(opp & ~kings)) * SIDE + popcount(opp & kings))


@njit(cache=True)
def index_of(base, me, opp, kings):
    """The database entry of a position (base: layout's)."""
    return base[_slice_of(me, opp, kings)] + slice_rank(me, opp, kings)


@njit(cache=True)
def _unit_position(u, slices, sizes):
    """Position u of a unit (its first slice's positions, then its second's)."""
    t = 0
    if u >= sizes[0]:
        u -= sizes[0]
        t = 1
    return slice_unrank(slices[t, 0], slices[t, 1], slices[t, 2], slices[t, 3], u)


@njit(cache=True)
def _first_look(u, values, base, slices, sizes, count, slowest, pending, drawn, out, work):
    """Pass 1 at position u of the unit."""
    me, opp, kings = _unit_position(u, slices, sizes)
    n = legal_moves(me, opp, kings, out, work)
    their_fastest_loss = NOT_YET
    their_slowest_win = 0
    inside = 0
    draws = False
    my_kings = popcount(me & kings)
    for i in range(n):
        me2, opp2, kings2 = out[i, 0], out[i, 1], out[i, 2]
        if opp2 == 0:                  # took the last piece: the other side lost at once
            their_fastest_loss = 1
            continue
        if popcount(opp2) == popcount(opp) and popcount(me2 & kings2) == my_kings:
            inside += 1
            continue
        a, b, c = other_view(me2, opp2, kings2)
        v = values[index_of(base, a, b, c)]
        if v == DRAW:
            draws = True
        elif v % 2 == 1:               # the other side loses in v - 1 plies
            their_fastest_loss = min(their_fastest_loss, v)
        else:
            their_slowest_win = max(their_slowest_win, v)
    count[u] = inside
    slowest[u] = their_slowest_win
    drawn[u] = draws
    if their_fastest_loss != NOT_YET:
        pending[u] = their_fastest_loss + 1
    elif inside == 0 and not draws:
        pending[u] = their_slowest_win + 1   # every move loses (none at all: lost in 0)


@njit(parallel=True, cache=True)
def _first_pass(values, base, slices, sizes, count, slowest, pending, drawn):
    """Pass 1 over a unit: each position's moves that
    stay in the unit are counted (count); of those that leave it, the fastest win
    (pending: its value), the slowest loss (slowest) and whether one draws (drawn)."""
    total = sizes[0] + sizes[1]
    for chunk in prange((total + CHUNK - 1) // CHUNK):
        out = np.empty((MAX_MOVES, 5 + MAX_CHAIN), dtype=np.int64)
        work = np.zeros((5, MAX_CHAIN + 1), dtype=np.int64)
        for u in range(chunk * CHUNK, min(total, (chunk + 1) * CHUNK)):
            _first_look(u, values, base, slices, sizes, count, slowest, pending, drawn, out,
                        work)


@njit(cache=True)
def _predecessors(me, opp, kings, out):
    """The positions, seen by their mover, from which a step inside the slice leads to
    (me, opp, kings): the other side's step undone, where that side then had no capture
    to make. Returns how many are in out (rows: me, opp, kings)."""
    n = 0
    empty = ~(me | opp) & 0xFFFFFFFF
    pieces = opp
    while pieces:
        at = first_square(pieces)
        pieces &= pieces - 1
        king = (kings >> at) & 1
        for d in range(4 if king else 2):   # its men came from the row above (0, 1)
            was = NEIGHBOUR[at, d]
            if was < 0 or not (empty >> was) & 1:
                continue
            moved = (1 << at) | (1 << was)
            q_me, q_opp, q_kings = other_view(me, opp ^ moved, kings ^ moved if king else kings)
            if not can_capture(q_me, q_opp, q_kings):
                out[n, 0] = q_me
                out[n, 1] = q_opp
                out[n, 2] = q_kings
                n += 1
    return n


@njit(cache=True)
def _second_pass(values, base, slices, sizes, first, count, slowest, pending, drawn):
    """Pass 2: fix the unit's positions depth by depth (see the top); return the
    largest value fixed."""
    total = sizes[0] + sizes[1]
    out = np.empty((4 * 16, 3), dtype=np.int64)
    done = np.zeros(total, dtype=np.uint32)    # the positions fixed at this depth
    value = 1
    most = 0
    latest = 0
    for u in range(total):
        latest = max(latest, pending[u])
    while value <= latest:
        k = 0
        for u in range(total):
            if pending[u] == value and values[first + u] == DRAW:
                values[first + u] = value
                done[k] = u
                k += 1
        for i in range(k):
            me, opp, kings = _unit_position(done[i], slices, sizes)
            n = _predecessors(me, opp, kings, out)
            for j in range(n):
                q = index_of(base, out[j, 0], out[j, 1], out[j, 2]) - first
                if values[first + q] != DRAW:
                    continue
                if value % 2 == 1:      # lost here: won one ply earlier
                    if pending[q] == 0 or pending[q] > value + 1:
                        pending[q] = value + 1
                else:                   # won here: one move fewer that does not lose
                    count[q] -= 1
                    if count[q] == 0 and not drawn[q] and pending[q] == 0:
                        pending[q] = max(value, slowest[q]) + 1
                latest = max(latest, pending[q])
        if k:
            most = value
        value += 1
    return most


def solve_unit(values, base, unit: tuple) -> int:
    """Solve one unit into `values` (its slices' entries, all DRAW before); return the
    largest value it holds (0: all drawn)."""
    slices = np.array([unit[0], unit[-1]], dtype=np.int64)
    sizes = np.array([slice_size(*unit[0]), slice_size(*unit[1]) if len(unit) > 1 else 0],
                     dtype=np.int64)
    total = int(sizes.sum())
    if total >= MAX_UNIT:
        raise ValueError(f"unit {unit} has {total:,} positions, more than {MAX_UNIT:,}")
    first = int(base[slice_id(*unit[0])])
    count = np.zeros(total, dtype=np.uint8)
    slowest = np.zeros(total, dtype=np.uint16)
    pending = np.zeros(total, dtype=np.uint16)
    drawn = np.zeros(total, dtype=np.bool_)
    _first_pass(values, base, slices, sizes, count, slowest, pending, drawn)
    return int(_second_pass(values, base, slices, sizes, first, count, slowest, pending,
                            drawn))
