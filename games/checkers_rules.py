"""The rules of checkers (American checkers, English draughts) on bitboards, compiled
(docs/rules/checkers.md): the legal moves of a position, whole capture chains included,
and the dense index of the positions with given numbers of men and kings.

A position is seen by the side to move and is three 32-bit masks: `me` (the mover's
pieces), `opp` (the other side's) and `kings` (the kings of both). Bit i is square i + 1
of the rules' numbering in the mover's frame: the mover moves towards the higher rows
(as Black does), so its men never stand on row 7 (squares 29..32, where they are
crowned) nor the other side's on row 0 (squares 1..4). `flip` turns the board by half a
turn (square s to 33 - s), which with the two sides swapped is the position seen by the
other side.
"""
import numpy as np
from numba import njit

from tabula.games.combinatorics import (BINOM, colex_rank, colex_unrank, deposit_bits,
                                        extract_bits, lowest_bit_index, popcount)

SQUARES = 32
FULL = (1 << SQUARES) - 1
ROW0 = 0xF                      # squares 1..4: where the other side's men are crowned
ROW7 = 0xF << 28                # squares 29..32: where the mover's men are crowned
MIDDLE = FULL & ~ROW0 & ~ROW7   # rows 1..6: where the men of both sides may stand
MAX_MOVES = 128                 # room for the moves of one position (kings step 4 ways)
MAX_CHAIN = 12                  # landings in one capture chain (a side has 12 pieces)
MAX_SIDE = 12                   # pieces a side in checkers
# directions: 0, 1 forward (to the next row: left, right), 2, 3 backward
DIRECTIONS = ((1, -1), (1, 1), (-1, -1), (-1, 1))


def square_of(row: int, col: int) -> int:
    """The square number (1..32) of a dark square, or 0 off the board or on a light one."""
    if not (0 <= row < 8 and 0 <= col < 8) or (row + col) % 2 == 0:
        return 0
    return row * 4 + col // 2 + 1


def row_col(square: int) -> tuple[int, int]:
    """(row, column) of square 1..32: even rows use columns 1, 3, 5, 7, odd rows 0..6."""
    row, i = divmod(square - 1, 4)
    return row, 2 * i + (1 if row % 2 == 0 else 0)


def _tables():
    """NEIGHBOUR[bit, d] and JUMP[bit, d]: the bit one and two steps away in direction d
    (-1 off the board)."""
    neighbour = np.full((SQUARES, 4), -1, dtype=np.int64)
    jump = np.full((SQUARES, 4), -1, dtype=np.int64)
    for bit in range(SQUARES):
        row, col = row_col(bit + 1)
        for d, (dr, dc) in enumerate(DIRECTIONS):
            neighbour[bit, d] = square_of(row + dr, col + dc) - 1
            jump[bit, d] = square_of(row + 2 * dr, col + 2 * dc) - 1
    return neighbour, jump


NEIGHBOUR, JUMP = _tables()


@njit(cache=True)
def flip(mask):
    """The mask with the board turned by half a turn (bit i to bit 31 - i)."""
    out = 0
    for i in range(SQUARES):
        if (mask >> i) & 1:
            out |= 1 << (SQUARES - 1 - i)
    return out


@njit(cache=True)
def other_view(me, opp, kings):
    """The same board seen by the other side (whose turn it is after a move)."""
    return flip(opp), flip(me), flip(kings)


@njit(cache=True)
def _emit(out, n, me, opp, kings, origin, path, length):
    """Store move n: the resulting masks (seen by the mover), origin and landings."""
    if n >= MAX_MOVES:
        raise ValueError("more moves than a position has room for")
    out[n, 0] = me
    out[n, 1] = opp
    out[n, 2] = kings
    out[n, 3] = origin
    out[n, 4] = length
    for i in range(length):
        out[n, 5 + i] = path[i]


def work_space() -> np.ndarray:
    """The scratch rows legal_moves needs (made once by each caller, not once a call)."""
    return np.zeros((5, MAX_CHAIN + 1), dtype=np.int64)


@njit(cache=True)
def _captures(me, opp, kings, out, work):
    """Write every whole capture chain of the mover into out (rows: me, opp, kings of
    the result, origin bit, landings, landing bits...); return how many."""
    n = 0
    squares = work[0]   # where the piece is, by depth
    left = work[1]      # the opponent's pieces left, by depth
    tried = work[2]     # directions tried, by depth
    went_on = work[3]   # whether a jump went on from there
    path = work[4]      # the landings
    pieces = me
    while pieces:
        origin = first_square(pieces)
        pieces &= pieces - 1
        king = (kings >> origin) & 1
        others = me & ~(1 << origin)
        depth = 0
        squares[0] = origin
        left[0] = opp
        tried[0] = 0
        went_on[0] = 0
        while depth >= 0:
            d = tried[depth]
            if d == 4:
                if depth > 0 and not went_on[depth]:
                    n = _result(out, n, others, opp, left[depth], kings, origin, king,
                                squares[depth], False, path, depth)
                depth -= 1
                continue
            tried[depth] = d + 1
            if d >= 2 and not king:
                continue
            at = squares[depth]
            over = NEIGHBOUR[at, d]
            land = JUMP[at, d]
            if land < 0 or not (left[depth] >> over) & 1 or \
                    ((others | left[depth]) >> land) & 1:
                continue
            went_on[depth] = 1
            path[depth] = land
            if not king and land >= 28:       # crowned: the move ends here
                n = _result(out, n, others, opp, left[depth] & ~(1 << over), kings, origin,
                            king, land, True, path, depth + 1)
                continue
            depth += 1
            squares[depth] = land
            left[depth] = left[depth - 1] & ~(1 << over)
            tried[depth] = 0
            went_on[depth] = 0
    return n


@njit(cache=True)
def _result(out, n, others, opp, left, kings, origin, king, land, crowned, path, length):
    """Emit the position after the mover's piece went from origin to land, the other
    side's pieces reduced to `left`; return n + 1."""
    new_kings = kings & ~(1 << origin) & ~(opp & ~left)
    if king or crowned:
        new_kings |= 1 << land
    _emit(out, n, others | (1 << land), left, new_kings, origin, path, length)
    return n + 1


@njit(cache=True)
def legal_moves(me, opp, kings, out, work):
    """The mover's legal moves: every whole capture chain if any capture exists, else
    every step. Row i of out: the result (me, opp, kings, still seen by the mover),
    the origin bit, the number of landings and the landing bits. Returns how many; a
    chain is listed once for each way it is jumped (two orders can give one result).
    work: work_space()."""
    n = _captures(me, opp, kings, out, work)
    if n:
        return n
    path = work[4]
    empty = FULL & ~(me | opp)
    pieces = me
    while pieces:
        origin = first_square(pieces)
        pieces &= pieces - 1
        king = (kings >> origin) & 1
        for d in range(4 if king else 2):
            to = NEIGHBOUR[origin, d]
            if to >= 0 and (empty >> to) & 1:
                path[0] = to
                n = _result(out, n, me & ~(1 << origin), opp, opp, kings, origin, king, to,
                            to >= 28, path, 1)
    return n


@njit(cache=True)
def first_square(mask):
    """The bit of the lowest square in `mask` (not empty)."""
    return lowest_bit_index(mask & -mask)


@njit(cache=True)
def _can(me, opp, kings, jump):
    """Whether a piece of the mover can capture (jump), or else step."""
    empty = FULL & ~(me | opp)
    pieces = me
    while pieces:
        origin = first_square(pieces)
        pieces &= pieces - 1
        for d in range(4 if (kings >> origin) & 1 else 2):
            if jump:
                land = JUMP[origin, d]
                if land >= 0 and (opp >> NEIGHBOUR[origin, d]) & 1 and (empty >> land) & 1:
                    return True
            elif NEIGHBOUR[origin, d] >= 0 and (empty >> NEIGHBOUR[origin, d]) & 1:
                return True
    return False


@njit(cache=True)
def can_capture(me, opp, kings):
    """Whether the mover has a capture (then it must capture)."""
    return _can(me, opp, kings, True)


@njit(cache=True)
def can_move(me, opp, kings):
    """Whether the mover has a legal move (a side without one has lost)."""
    return _can(me, opp, kings, False) or _can(me, opp, kings, True)


# ---- the dense index of positions with mm men and mk kings of the mover and om men
# and ok kings of the other side (a "slice", as Chinook split its databases) ----------
#
# The men first: the mover's on row 0 (k of them, C(4, k) ways) and on rows 1..6, the
# other side's on row 7 (j) and on rows 1..6 where the mover's are not; the blocks of
# (k, j) one after the other. Then the mover's kings on the squares left, then the
# other side's kings on those left after them. Each set is ranked by its colex rank
# among the squares open to it, so the index is dense: 0 .. slice size - 1.

def _men_tables():
    """MEN_BLOCK[mm, om, k, j]: where the block of k mover's men on row 0 and j other
    men on row 7 starts; MEN_SIZE[mm, om]: all placements of the men."""
    block = np.zeros((MAX_SIDE + 1, MAX_SIDE + 1, 5, 5), dtype=np.int64)
    size = np.zeros((MAX_SIDE + 1, MAX_SIDE + 1), dtype=np.int64)
    for mm in range(MAX_SIDE + 1):
        for om in range(MAX_SIDE + 1):
            total = 0
            for k in range(min(mm, 4) + 1):
                for j in range(min(om, 4) + 1):
                    block[mm, om, k, j] = total
                    total += (int(BINOM[4, k]) * int(BINOM[4, j]) * int(BINOM[24, mm - k])
                              * int(BINOM[24 - (mm - k), om - j]))
            size[mm, om] = total
    return block, size


MEN_BLOCK, MEN_SIZE = _men_tables()


@njit(cache=True)
def slice_size(mm, mk, om, ok):
    """How many positions have mm men and mk kings of the mover, om and ok of the other."""
    free = SQUARES - mm - om
    if mm > MAX_SIDE or om > MAX_SIDE or mk + ok > free:
        return 0
    return MEN_SIZE[mm, om] * BINOM[free, mk] * BINOM[free - mk, ok]


@njit(cache=True)
def slice_rank(me, opp, kings):
    """The position's index among those of its slice (dense)."""
    men = me & ~kings
    others = opp & ~kings
    mm = popcount(men)
    om = popcount(others)
    k = popcount(men & ROW0)
    j = popcount(others & ROW7)
    middle_men = (men & MIDDLE) >> 4
    middle_others = (others & MIDDLE) >> 4
    r = colex_rank(men & ROW0) * BINOM[4, j] + colex_rank(others >> 28)
    r = r * BINOM[24, mm - k] + colex_rank(middle_men)
    r = r * BINOM[24 - (mm - k), om - j] + colex_rank(
        extract_bits(middle_others, (MIDDLE >> 4) & ~middle_men))
    r += MEN_BLOCK[mm, om, k, j]
    free = FULL & ~(men | others)
    my_kings = me & kings
    mk = popcount(my_kings)
    ok = popcount(opp & kings)
    n_free = SQUARES - mm - om
    r = r * BINOM[n_free, mk] + colex_rank(extract_bits(my_kings, free))
    return r * BINOM[n_free - mk, ok] + colex_rank(extract_bits(opp & kings, free & ~my_kings))


@njit(cache=True)
def slice_unrank(mm, mk, om, ok, r):
    """The position (me, opp, kings) with index r in its slice (slice_rank's inverse)."""
    n_free = SQUARES - mm - om
    r_ok = r % BINOM[n_free - mk, ok]
    r //= BINOM[n_free - mk, ok]
    r_mk = r % BINOM[n_free, mk]
    r //= BINOM[n_free, mk]
    k = 0
    j = 0
    for kk in range(min(mm, 4) + 1):            # the block (k, j) that holds r
        for jj in range(min(om, 4) + 1):
            if MEN_BLOCK[mm, om, kk, jj] <= r and BINOM[4, kk] * BINOM[4, jj] > 0 and \
                    BINOM[24, mm - kk] > 0 and BINOM[24 - (mm - kk), om - jj] > 0:
                k = kk
                j = jj
    r -= MEN_BLOCK[mm, om, k, j]
    n_others = BINOM[24 - (mm - k), om - j]
    r_others = r % n_others
    r //= n_others
    r_middle = r % BINOM[24, mm - k]
    r //= BINOM[24, mm - k]
    r_row7 = r % BINOM[4, j]
    r_row0 = r // BINOM[4, j]
    middle_men = colex_unrank(r_middle, mm - k, 24)
    middle_others = deposit_bits(colex_unrank(r_others, om - j, 24 - (mm - k)),
                                 (MIDDLE >> 4) & ~middle_men)
    men = colex_unrank(r_row0, k, 4) | (middle_men << 4)
    others = (colex_unrank(r_row7, j, 4) << 28) | (middle_others << 4)
    free = FULL & ~(men | others)
    my_kings = deposit_bits(colex_unrank(r_mk, mk, n_free), free)
    opp_kings = deposit_bits(colex_unrank(r_ok, ok, n_free - mk), free & ~my_kings)
    return men | my_kings, others | opp_kings, my_kings | opp_kings


def configurations(pieces: int) -> int:
    """Board configurations with exactly `pieces` pieces (the side to move not counted),
    the sum of the slices' sizes: Schaeffer's counts (1: 120, 2: 6,972, ...)."""
    return sum(int(slice_size(mm, mk, om, ok))
               for mm in range(pieces + 1) for mk in range(pieces + 1 - mm)
               for om in range(pieces + 1 - mm - mk) for ok in [pieces - mm - mk - om])
