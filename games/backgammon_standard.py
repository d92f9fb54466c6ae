"""Backgammon with contact, rule set `standard` (docs/rules/backgammon.md): fifteen
checkers a side from the usual start, the full rules (games/backgammon_rules.py),
gammons and backgammons, and the doubling cube.

Code (complex128, Game.code_dtype): the standard game has 18,528,584,051,601,162,496
positions seen by the player on roll, more than 2^64, so no int64 holds them all. A
code is a pair of whole numbers below 2^40, each exact in a float64, held as the two
parts of one complex number, which numba and numpy keep, compare and hash as one value:
  real part       the mover's side
  imaginary part  the opponent's side, in its own numbering
A side is gnubg's position key for one side: for each of its places 1..24 and the bar,
from the lowest bits up, as many 1 bits as it has checkers there and then a 0 (at most
15 ones and 25 zeros); checkers borne off are not stored. Mirroring swaps the parts.
Layer (a, b) = checkers in play (the bar included) of mover and opponent. Inside a
layer, positions are ranked point by point from the mover's 24-point down: each point
is empty, or holds 1..x of the mover's x checkers not yet placed, or 1..y of the
opponent's, in that order; the checkers left over stand on the bars.
"""
from functools import partial

import numpy as np
from numba import njit

from . import backgammon as hyper, bearoff
from .backgammon_rules import BAR, BOARD, HOME, OFF, PLACES, THEM, standard_start
from .cube import Cube
from .features import concat
from .game import LAYER_STRIDE, BearOffs, Encoding, Game, bear_off_successors
from .heuristic import TEMPO, logistic

CHECKERS = 15
POINTS = 24
MAX_MOVES = 3060       # distinct results of one roll at most (gnubg's MAX_MOVES)
ROOM = 4096            # boards kept at one step of a roll's play (backgammon_rules)
CODE_DTYPE = np.dtype(np.complex128)


# ---------------------------------------------------------------- codes and boards

@njit(cache=True)
def side_key(board, first):
    """The key of the side whose places are board[first:first + 26] (see the top)."""
    key = 0
    bit = 0
    for place in range(1, PLACES):
        for _ in range(board[first + place]):
            key |= 1 << bit
            bit += 1
        bit += 1
    return key


@njit(cache=True)
def side_counts_into(key, board, first):
    """Write the side of `key` into board[first:first + 26], its checkers off included."""
    place = 1
    in_play = 0
    board[first + 1:first + PLACES] = 0
    while place < PLACES:
        if key & 1:
            board[first + place] += 1
            in_play += 1
        else:
            place += 1
        key >>= 1
    board[first + OFF] = CHECKERS - in_play


@njit(cache=True)
def board_of_code(code, board):
    side_counts_into(np.int64(code.real), board, 0)
    side_counts_into(np.int64(code.imag), board, THEM)


@njit(cache=True)
def code_of_board(board):
    """The code of a board seen by its side on roll."""
    return complex(np.float64(side_key(board, 0)), np.float64(side_key(board, THEM)))


@njit(cache=True)
def mirror(code):
    return complex(code.imag, code.real)


@njit(cache=True)
def side_summary(key):
    """(checkers in play, pips to go, the farthest place: 25 the bar, 0 none in play)
    of a side's key."""
    in_play = pips = farthest = 0
    place = 1
    while key:
        if key & 1:
            in_play += 1
            pips += place
            farthest = place
        else:
            place += 1
        key >>= 1
    return in_play, pips, farthest


def home_sides(codes):
    """BearOffs.home_sides: each code's sides as bear-off sides (games/bearoff.py)."""
    home, counts = home_counts(codes)
    return home, bearoff.sides_from_counts(counts)


@njit(cache=True)
def home_counts(codes):
    """For each code, whether both sides have every checker in play on their home
    points 1..6 (a bear-off: the sides no longer meet), and, where they do, the two
    sides' counts on those points, the player on roll's first: bool (n,), int64 (n, 2,
    6)."""
    home = np.zeros(len(codes), dtype=np.bool_)
    counts = np.zeros((len(codes), 2, HOME), dtype=np.int64)
    for i in range(len(codes)):
        home[i] = True
        for s, key in enumerate((np.int64(codes[i].real), np.int64(codes[i].imag))):
            place = 1
            while key:
                if key & 1:
                    if place > HOME:
                        home[i] = False
                        break
                    counts[i, s, place - 1] += 1
                else:
                    place += 1
                key >>= 1
    return home, counts


@njit(cache=True)
def _in_play(key):
    return side_summary(key)[0]


@njit(cache=True)
def _pips(key):
    return side_summary(key)[1]


@njit(cache=True)
def layer_of(code):
    return _in_play(np.int64(code.real)) * LAYER_STRIDE + _in_play(np.int64(code.imag))


@njit(cache=True)
def moves(code, throw, out_codes, out_info):
    board = np.empty(BOARD, dtype=np.int8)
    board_of_code(code, board)
    after, n = hyper.plays_and_infos(board, throw, ROOM, out_info)
    for i in range(n):
        out_codes[i] = mirror(code_of_board(after[i]))
    return n


# ------------------------------------------------------------ ranks inside a layer

def _ways_table() -> np.ndarray:
    """WAYS[p, x, y]: the ways to place exactly x of the mover's and y of the
    opponent's checkers on its points 1..p (never both on one) and the bars."""
    ways = np.zeros((POINTS + 1, CHECKERS + 1, CHECKERS + 1), dtype=np.int64)
    ways[0] = 1
    for p in range(1, POINTS + 1):
        for x in range(CHECKERS + 1):
            for y in range(CHECKERS + 1):
                ways[p, x, y] = (ways[p - 1, x, y] + ways[p - 1, :x, y].sum()
                                 + ways[p - 1, x, :y].sum())
    return ways


WAYS = _ways_table()


@njit(cache=True)
def rank(code):
    board = np.empty(BOARD, dtype=np.int8)
    board_of_code(code, board)
    x = CHECKERS - board[OFF]
    y = CHECKERS - board[THEM + OFF]
    r = 0
    for p in range(POINTS, 0, -1):
        mine = board[p]
        theirs = board[THEM + BAR - p]
        if mine == 0 and theirs == 0:
            continue
        r += WAYS[p - 1, x, y]                       # the point left empty
        if mine:
            for k in range(1, mine):
                r += WAYS[p - 1, x - k, y]
            x -= mine
        else:
            for k in range(1, x + 1):                # all of the mover's counts
                r += WAYS[p - 1, x - k, y]
            for k in range(1, theirs):
                r += WAYS[p - 1, x, y - k]
            y -= theirs
    return r


@njit(cache=True)
def unrank(layer, r):
    x = layer // LAYER_STRIDE
    y = layer % LAYER_STRIDE
    board = np.zeros(BOARD, dtype=np.int8)
    board[OFF] = CHECKERS - x
    board[THEM + OFF] = CHECKERS - y
    for p in range(POINTS, 0, -1):
        if r < WAYS[p - 1, x, y]:
            continue
        r -= WAYS[p - 1, x, y]
        k = 1
        while k <= x and r >= WAYS[p - 1, x - k, y]:
            r -= WAYS[p - 1, x - k, y]
            k += 1
        if k <= x:
            board[p] = k
            x -= k
            continue
        k = 1
        while r >= WAYS[p - 1, x, y - k]:
            r -= WAYS[p - 1, x, y - k]
            k += 1
        board[THEM + BAR - p] = k
        y -= k
    board[BAR] = x
    board[THEM + BAR] = y
    return code_of_board(board)


def layer_size(a: int, b: int) -> int:
    return int(WAYS[POINTS, a, b])


# ------------------------------------------------------- scores, progress, heuristic

@njit(cache=True)
def progress(code):
    """Pips already gone of both sides (hits set a side back: only an order)."""
    return 2 * CHECKERS * BAR - _pips(np.int64(code.real)) - _pips(np.int64(code.imag))


SHOTS = np.array(hyper.SHOT_CHANCES)   # the chance of a roll carrying a checker d pips


@njit(cache=True)
def heuristic(code):
    """The hand-made evaluation (games/heuristic.py): the race in pips, and the pips the
    player on roll may win by hitting now: for each of the other side's blots, the
    best chance that one of the player's checkers behind it reaches it in one roll
    (SHOTS, blocks ignored), times the pips a hit sends it back. (The race alone
    hits at every chance and leaves blots everywhere: it loses to random play.)"""
    board = np.empty(BOARD, dtype=np.int8)
    board_of_code(code, board)
    score = _pips(np.int64(code.imag)) - _pips(np.int64(code.real)) + TEMPO
    for q in range(1, POINTS + 1):            # the other side's point, its numbering
        if board[THEM + q] != 1:
            continue
        best = 0.0
        for p in range(BAR - q + 1, BAR + 1):  # the player's checkers behind it
            if board[p]:
                best = max(best, SHOTS[p + q - BAR])
        score += best * (BAR - q)
    return logistic(score)


@njit(cache=True)
def loss_size(code, pieces):
    """What the player on roll loses when the other side has just borne off its last
    checker (backgammon.loss_of: its farthest checker from home decides)."""
    in_play, _, farthest = side_summary(np.int64(code.real))
    return hyper.loss_of(in_play, pieces, farthest)


def win_size(code: complex, pieces: int) -> int:
    return int(loss_size(mirror(CODE_DTYPE.type(code)), pieces))


# ------------------------------------------------------------------- for people

def board_of(code) -> np.ndarray:
    """The board (games/backgammon_rules.py) of a position, seen by the player on roll."""
    board = np.empty(BOARD, dtype=np.int8)
    board_of_code(CODE_DTYPE.type(code), board)
    return board


def from_json(obj, pieces: int) -> complex:
    """The code of a position in backgammon.counts_of_json's forms."""
    return complex(code_of_board(hyper.counts_of_json(obj, pieces)))


def to_json(code) -> dict:
    return hyper.json_of_board(board_of(code))


def start() -> complex:
    return complex(code_of_board(standard_start()))


# ------------------------------------------------------------------ network input

def _counts(keys):
    """Each side key's checkers on its places 1..25 (torch int64 (n,) -> (n, 25))."""
    bits = keys.unsqueeze(1).bitwise_right_shift(
        keys.new_tensor(list(range(40)))).bitwise_and(1)
    places = (1 - bits).cumsum(dim=1) - (1 - bits)        # the place index of each bit
    counts = bits[:, :BAR + 1] * 0   # zeros; not new_zeros(len(keys)): export keeps n free
    counts.scatter_add_(1, places.clamp(max=BAR), bits)
    return counts[:, :BAR]


def side_keys(codes):
    """The mover's and the opponent's keys of a batch of codes: torch complex128 (n,),
    or int64 (n, 2) as a model file takes them (runtime/model_file.py: model_input)."""
    if codes.is_complex():
        return codes.real.long(), codes.imag.long()
    return codes[:, 0].contiguous(), codes[:, 1].contiguous()


def features(codes, pieces: int = CHECKERS):
    """Network input of a batch of codes (side_keys): for each side (mover first), for
    each of its 24 points whether it holds at least 1, 2 and 3 checkers and
    (count - 3) / 2 beyond that (TD-Gammon's units), its checkers on the bar / 2, borne
    off / 15, and pips to go / 100: 2 * (4 * 24 + 3) inputs."""
    parts = []
    for part in side_keys(codes):
        counts = _counts(part)
        points = counts[:, :POINTS].float()
        parts += [(points >= 1).float(), (points >= 2).float(), (points >= 3).float(),
                  (points - 3).clamp(min=0) / 2,
                  counts[:, POINTS:].float() / 2,
                  (CHECKERS - counts.sum(dim=1, keepdim=True)).float() / CHECKERS,
                  (counts.float() @ counts.new_tensor(list(range(1, BAR + 1))).float()
                   .unsqueeze(1)) / 100]
    return concat(parts)


N_FEATURES = 2 * (4 * POINTS + 3)


# ------------------------------------------------------------------ the variant

def make() -> Game:
    from . import backgammon_view as shown
    layers = tuple((a, b) for a in range(1, CHECKERS + 1) for b in range(1, CHECKERS + 1))
    return Game(name=hyper.NAME, rules="standard", pieces=CHECKERS, throws=hyper.THROWS,
                probs=hyper.PROBS, max_moves=MAX_MOVES, layers=layers,
                layer_size=layer_size, start=start(), moves=moves, mirror=mirror,
                layer_of=layer_of, rank=rank, unrank=unrank, progress=progress,
                to_json=to_json, from_json=from_json, heuristic=heuristic,
                successor_layers=bear_off_successors(4),
                capabilities=hyper.CAPABILITIES, cube=Cube(),
                win_size=partial(win_size, pieces=CHECKERS), loss_size=loss_size,
                encoding=Encoding(features, N_FEATURES),
                presentation=shown.presentation(CHECKERS, __doc__.strip(), board_of),
                gnubg_board=lambda code: hyper.gnubg_sides(board_of(code)),
                bear_offs=BearOffs(home_sides, bearoff.make),
                code_dtype=CODE_DTYPE)

