"""The full rules of backgammon's checker play on a board (docs/rules/backgammon.md), for
any number of checkers a side: the plays of a roll as distinct resulting boards.

A board is one int64 array of 2 * PLACES counts, seen by the side on roll: entries
0..25 are its own checkers (0: borne off, 1..24: its points, 25: the bar), entries
26..51 the opponent's in the opponent's own numbering (its point q is the mover's
point 25 - q). A side moves from its 24-point down to its 1-point and bears off from
its home board, points 1..6.

`plays(board, high, low, out)` writes every distinct board a roll can lead to: as many
dice as can be played are played, the higher of two when only one can be, a double
four times. It expands the boards one die at a time (both orders of two different
dice), keeping each distinct board once at every step, so the work stays small even
for 15 checkers and a double.
"""
import numpy as np
from numba import njit

PLACES = 26          # off, points 1..24, the bar
OFF = 0
BAR = 25
HOME = 6             # points 1..6 are a side's home board
BOARD = 2 * PLACES
THEM = PLACES        # the opponent's counts start here
MAX_BOARDS = 4096    # boards kept at one step of a roll's play with 15 checkers

_HASH_WEIGHTS = np.random.default_rng(20261205).integers(1, 2**62, size=(BOARD, 16))


@njit(cache=True)
def _hash(board):
    """A 64-bit key of a board (equal boards, equal keys; the plays compare boards
    with equal keys in full, so a collision costs time, never a wrong answer)."""
    key = 0
    for i in range(BOARD):
        if board[i]:
            key ^= _HASH_WEIGHTS[i, board[i]]
    return key


@njit(cache=True)
def all_home(board):
    """Whether every checker of the mover still in play stands on its home board."""
    for p in range(HOME + 1, PLACES):
        if board[p]:
            return False
    return True


@njit(cache=True)
def play_die(board, d, out, n):
    """Append to out[n:] the boards after moving one checker `d` pips (entering from
    the bar first; hitting a lone opposing checker; bearing off from the point d, or
    from a lower one when none stands higher, once all checkers are home); return the
    new count."""
    if board[BAR]:
        first, last = BAR, BAR
    else:
        first, last = 24, 1
    home = all_home(board)
    highest = 0
    for p in range(24, 0, -1):
        if board[p]:
            highest = p
            break
    for p in range(first, last - 1, -1):
        if board[p] == 0:
            continue
        to = p - d
        if to >= 1:
            them = THEM + 25 - to       # the opponent's count on the target point
            if board[them] >= 2:
                continue
            out[n, :] = board
            out[n, p] -= 1
            out[n, to] += 1
            if board[them] == 1:
                out[n, them] = 0
                out[n, THEM + BAR] += 1
            n += 1
        elif home and (to == 0 or p == highest):
            out[n, :] = board
            out[n, p] -= 1
            out[n, OFF] += 1
            n += 1
    return n


@njit(cache=True)
def _same(a, b):
    for i in range(BOARD):
        if a[i] != b[i]:
            return False
    return True


@njit(cache=True)
def distinct(boards, n):
    """Keep each distinct board of boards[:n] once (in place, in order); return the new
    count. Boards are compared by key first, in full where keys are equal."""
    keys = np.empty(n, dtype=np.int64)
    m = 0
    for i in range(n):
        key = _hash(boards[i])
        duplicate = False
        for t in range(m):
            if keys[t] == key and _same(boards[t], boards[i]):
                duplicate = True
                break
        if not duplicate:
            if m != i:
                boards[m, :] = boards[i]
            keys[m] = key
            m += 1
    return m


@njit(cache=True)
def _sources(board):
    """How many places the mover's checkers stand on (a die moves one of them)."""
    n = 0
    for p in range(1, PLACES):
        if board[p]:
            n += 1
    return n


@njit(cache=True)
def _play_in_order(board, dice, out, n, frontier, following):
    """The boards after playing `dice` in this order as far as they go: writes those
    that played the most dice to out[n:]; returns (new count, dice played). frontier
    and following are room for the boards of one step."""
    capacity = len(frontier)
    frontier[0, :] = board
    size = 1
    played = 0
    for d in dice:
        m = 0
        for i in range(size):
            if m + _sources(frontier[i]) > capacity:
                raise ValueError("too many boards for the room given to a roll's plays")
            m = play_die(frontier[i], d, following, m)
        if m == 0:
            break
        size = distinct(following, m)
        frontier, following = following, frontier
        played += 1
    if played == 0:
        return n, 0
    if n + size > len(out):
        raise ValueError("too many boards for the room given to a roll's plays")
    out[n:n + size, :] = frontier[:size]
    return n + size, played


@njit(cache=True)
def plays(board, high, low, out, work):
    """Every distinct board the roll high-low (high >= low) leads to, written to out
    (rows of BOARD counts); returns their count, 0 when no die can be played (the side
    passes). work: room for three steps' boards, (3, rows, BOARD) (MAX_BOARDS rows are
    enough for 15 checkers; the caller allocates it once for many rolls)."""
    if high == low:
        dice = np.empty(4, dtype=np.int64)
        dice[:] = high
        n, _ = _play_in_order(board, dice, out, 0, work[0], work[1])
        return n
    dice = np.empty(2, dtype=np.int64)
    dice[0] = high
    dice[1] = low
    n_high, played_high = _play_in_order(board, dice, out, 0, work[0], work[1])
    scratch = work[2]
    dice[0] = low
    dice[1] = high
    n_low, played_low = _play_in_order(board, dice, scratch, 0, work[0], work[1])
    if played_low == 2 and played_high < 2:
        out[:n_low, :] = scratch[:n_low]      # only low first plays both dice
        return n_low
    if played_low == 2:                       # both orders play both dice
        if n_high + n_low > len(out):
            raise ValueError("too many boards for the room given to a roll's plays")
        out[n_high:n_high + n_low, :] = scratch[:n_low]
        return distinct(out, n_high + n_low)
    if played_high >= 1:                      # one die only: the higher where it can
        return n_high
    out[:n_low, :] = scratch[:n_low]
    return n_low


def workspace(rows: int = MAX_BOARDS) -> np.ndarray:
    """Room for `plays` to work in."""
    return np.empty((3, rows, BOARD), dtype=np.int8)


def board_of(me: list, them: list) -> np.ndarray:
    """A board from each side's 26 counts (off, points 1..24, bar), own numbering."""
    return np.array(list(me) + list(them), dtype=np.int8)


def standard_start() -> np.ndarray:
    """Both sides' fifteen checkers where a game of backgammon starts."""
    side = [0] * PLACES
    for point, count in ((24, 2), (13, 5), (8, 3), (6, 5)):
        side[point] = count
    return board_of(side, side)
