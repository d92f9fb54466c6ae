"""The full rules of backgammon's checker play on a board (docs/rules/backgammon.md), for
any number of checkers a side: the plays of a roll as distinct resulting boards.

A board is one int8 array of 2 * PLACES counts, seen by the side on roll: entries
0..25 are its own checkers (0: borne off, 1..24: its points, 25: the bar), entries
26..51 the opponent's in the opponent's own numbering (its point q is the mover's
point 25 - q). A side moves from its 24-point down to its 1-point and bears off from
its home board, points 1..6.

`plays(board, high, low, out, work, keys)` writes every distinct board a roll can lead
to: as many dice as can be played are played, the higher of two when only one can be,
a double four times. It expands the boards one die at a time (both orders of two different
dice), keeping each distinct board once at every step, so the work stays small even
for 15 checkers and a double.
"""
import numpy as np
from numba import njit

PLACES = 26          # off, points 1..24, the bar
OFF = 0
BAR = 25
HOME = 6             # points 1..6 are a side's home board
# the 21 throws of two dice, the higher die first (6-1 is 61), and their chances
THROWS = np.array([10 * hi + lo for hi in range(1, 7) for lo in range(1, hi + 1)],
                  dtype=np.int64)
PROBS = np.array([1.0 if t // 10 == t % 10 else 2.0 for t in THROWS]) / 36.0
BOARD = 2 * PLACES
THEM = PLACES        # the opponent's counts start here
MAX_BOARDS = 4096    # boards kept at one step of a roll's play with 15 checkers

# the key of a board: the XOR of one random word per place and count (none for a count
# of 0), so that a checker's step changes it by a few words
_HASH_WEIGHTS = np.random.default_rng(20261205).integers(1, 2**62, size=(BOARD, 17))
_HASH_WEIGHTS[:, 0] = 0


@njit(cache=True)
def board_key(board):
    """A 64-bit key of a board (equal boards, equal keys; the plays compare boards with
    equal keys in full, so a collision costs time, never a wrong answer)."""
    key = 0
    for i in range(BOARD):
        key ^= _HASH_WEIGHTS[i, board[i]]
    return key


@njit(cache=True)
def _count_change(key, board, i, step):
    """The key after board[i] changes by `step` (the board itself is not changed)."""
    return key ^ _HASH_WEIGHTS[i, board[i]] ^ _HASH_WEIGHTS[i, board[i] + step]


@njit(cache=True)
def play_die(board, key, d, out, out_keys, n):
    """Append to out[n:] (and their keys to out_keys) the boards after moving one
    checker `d` pips (entering from the bar first; hitting a lone opposing checker;
    bearing off from the point d, or from a lower one when none stands higher, once all
    checkers are home); return the new count. `key` is the board's key. A ValueError
    where `out` has no room left."""
    highest = 0                     # the mover's highest point with a checker
    for p in range(24, 0, -1):
        if board[p]:
            highest = p
            break
    home = board[BAR] == 0 and highest <= HOME
    first, last = (BAR, BAR) if board[BAR] else (highest, 1)
    for p in range(first, last - 1, -1):
        if board[p] == 0:
            continue
        if n == len(out):
            raise ValueError("too many boards for the room given to a roll's plays")
        to = p - d
        if to >= 1:
            them = THEM + 25 - to       # the opponent's count on the target point
            if board[them] >= 2:
                continue
            moved = _count_change(_count_change(key, board, p, -1), board, to, 1)
            out[n, :] = board
            out[n, p] -= 1
            out[n, to] += 1
            if board[them] == 1:
                moved = _count_change(_count_change(moved, board, them, -1), board,
                                      THEM + BAR, 1)
                out[n, them] = 0
                out[n, THEM + BAR] += 1
            out_keys[n] = moved
            n += 1
        elif home and (to == 0 or p == highest):
            out[n, :] = board
            out[n, p] -= 1
            out[n, OFF] += 1
            out_keys[n] = _count_change(_count_change(key, board, p, -1), board, OFF, 1)
            n += 1
    return n


@njit(cache=True)
def _same(a, b):
    for i in range(BOARD):
        if a[i] != b[i]:
            return False
    return True


@njit(cache=True)
def distinct(boards, keys, n):
    """Keep each distinct board of boards[:n] once (in place, in order, their keys with
    them); return the new count. Boards are compared by key first, in full where keys
    are equal."""
    m = 0
    for i in range(n):
        duplicate = False
        for t in range(m):
            if keys[t] == keys[i] and _same(boards[t], boards[i]):
                duplicate = True
                break
        if not duplicate:
            if m != i:
                boards[m, :] = boards[i]
                keys[m] = keys[i]
            m += 1
    return m


@njit(cache=True)
def _play_in_order(board, key, dice, out, out_keys, n, work, keys):
    """The boards after playing `dice` in this order as far as they go: writes those
    that played the most dice to out[n:] (their keys to out_keys); returns (new count,
    dice played). work[0], work[1] (keys[0], keys[1]) hold the boards of one step, kept
    distinct whenever they run short of room."""
    frontier, following = work[0], work[1]
    frontier_keys, following_keys = keys[0], keys[1]
    frontier[0, :] = board
    frontier_keys[0] = key
    size = 1
    played = 0
    for d in dice:
        m = 0
        for i in range(size):
            if len(following) - m < PLACES:       # one board's die adds at most 25:
                m = distinct(following, following_keys, m)   # make room by merging
            m = play_die(frontier[i], frontier_keys[i], d, following, following_keys, m)
        if m == 0:
            break
        size = distinct(following, following_keys, m)
        frontier, following = following, frontier
        frontier_keys, following_keys = following_keys, frontier_keys
        played += 1
    if played == 0:
        return n, 0
    if n + size > len(out):
        raise ValueError("too many boards for the room given to a roll's plays")
    out[n:n + size, :] = frontier[:size]
    out_keys[n:n + size] = frontier_keys[:size]
    return n + size, played


@njit(cache=True)
def plays(board, high, low, out, work, keys):
    """Every distinct board the roll high-low (high >= low) leads to, written to out
    (rows of BOARD counts); returns their count, 0 when no die can be played (the side
    passes). work, keys: room to work in (`workspace`: MAX_BOARDS rows are enough for
    15 checkers; the caller makes it once for many rolls)."""
    key = board_key(board)
    out_keys, scratch, scratch_keys = keys[2], work[2], keys[3]
    if high == low:
        dice = np.empty(4, dtype=np.int64)
        dice[:] = high
        n, _ = _play_in_order(board, key, dice, out, out_keys, 0, work, keys)
        return n
    dice = np.empty(2, dtype=np.int64)
    dice[0] = high
    dice[1] = low
    n_high, played_high = _play_in_order(board, key, dice, out, out_keys, 0, work, keys)
    dice[0] = low
    dice[1] = high
    n_low, played_low = _play_in_order(board, key, dice, scratch, scratch_keys, 0, work,
                                       keys)
    if played_low == 2 and played_high < 2:
        out[:n_low, :] = scratch[:n_low]      # only low first plays both dice
        return n_low
    if played_low == 2:                       # both orders play both dice
        if n_high + n_low > len(out):
            raise ValueError("too many boards for the room given to a roll's plays")
        out[n_high:n_high + n_low, :] = scratch[:n_low]
        out_keys[n_high:n_high + n_low] = scratch_keys[:n_low]
        return distinct(out, out_keys, n_high + n_low)
    if played_high >= 1:                      # one die only: the higher where it can
        return n_high
    out[:n_low, :] = scratch[:n_low]
    return n_low


def workspace(rows: int = MAX_BOARDS) -> tuple:
    """Room for `plays` to work in: (boards, keys)."""
    return np.empty((3, rows, BOARD), dtype=np.int8), np.empty((4, rows), dtype=np.int64)


def board_of(me: list, them: list) -> np.ndarray:
    """A board from each side's 26 counts (off, points 1..24, bar), own numbering."""
    return np.array(list(me) + list(them), dtype=np.int8)


def standard_start() -> np.ndarray:
    """Both sides' fifteen checkers where a game of backgammon starts."""
    side = [0] * PLACES
    for point, count in ((24, 2), (13, 5), (8, 3), (6, 5)):
        side[point] = count
    return board_of(side, side)
