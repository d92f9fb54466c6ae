"""Senet, rule set `kendall` (docs/rules/senet.md).

Packed code (int64), seen by the player about to throw:
  bits  0..29  mover's pieces on squares 1..30 (bit s-1 = square s)
  bits 30..59  opponent's pieces
Square 27 (House of Water) is always empty. Layer (m, o) = pieces on the board
of mover and opponent; inside it the rank is the colex rank of the mover's
cells among the 29 cells (squares without 27) times C(29 - m, o), plus the
colex rank of the opponent's cells among the 29 - m cells the mover leaves free.
"""
from functools import partial

import numpy as np
from numba import njit

from .combinatorics import (BINOM, colex_rank, colex_unrank, deposit_bits, extract_bits,
                           lowest_bit_index, popcount, squares_sum)
from .features import bit_planes, concat, one_hot, weighted_sum
from .heuristic import TEMPO, logistic
from .game import (AGAIN, LAYER_STRIDE, OVER, RULES_DOCS, Encoding, Game, PositionError,
                   Presentation, check_json_object, square_list)

NAME = "senet"
RULES = "kendall"
MAX_PIECES = 5
DEFAULT_PIECES = 5
SQUARES = 30
CELLS = 29
OFF = 31
WATER = 27
REBIRTH = 15
BEAUTY = 26
THROWS = np.array([1, 2, 3, 4, 5], dtype=np.int64)
PROBS = np.array([4, 6, 4, 1, 1], dtype=np.float64) / 16.0
MAX_MOVES = MAX_PIECES
WHITE_START = (9, 7, 5, 3, 1)   # highest first: a k-piece game keeps the first k
BLACK_START = (10, 8, 6, 4, 2)
SIDES = ("white", "black")
SQUARE_NAMES = {OFF: "off"}

BOARD_MASK = (1 << SQUARES) - 1
CELL_MASK = (1 << CELLS) - 1
LOW26 = (1 << 26) - 1


@njit(cache=True)
def mirror(code):
    return (code >> 30) | ((code & BOARD_MASK) << 30)


@njit(cache=True)
def _between(lo, hi):
    """Bit mask of the squares strictly between squares lo < hi."""
    if hi - lo < 2:
        return 0
    return ((1 << (hi - 1)) - 1) & ~((1 << lo) - 1)


@njit(cache=True)
def _step(me, opp, protected, a, d):
    """Move a piece from a to square d (1..30) by rules 7-9; -1 if illegal."""
    bit = 1 << (d - 1)
    if me & bit:
        return -1, -1
    new_me = (me & ~(1 << (a - 1))) | bit
    if opp & bit:
        if protected & bit:
            return -1, -1
        return new_me, (opp & ~bit) | (1 << (a - 1))
    return new_me, opp


@njit(cache=True)
def _blockade(side):
    """The blockade squares of a side: its runs of three or more in a row."""
    run = side & (side >> 1) & (side >> 2)
    return run | (run << 1) | (run << 2)


def position_kinds(code: int) -> list[str]:
    """["blockade"] when either side holds a blockade, else []."""
    me, opp = int(code) & BOARD_MASK, (int(code) >> 30) & BOARD_MASK
    return ["blockade"] if _blockade(me) or _blockade(opp) else []


@njit(cache=True)
def moves(code, throw, out_codes, out_info):
    me = code & BOARD_MASK
    opp = (code >> 30) & BOARD_MASK
    blockade = _blockade(opp)
    protected = opp & ((opp << 1) | (opp >> 1))
    n = 0
    pieces = me
    while pieces:
        low = pieces & -pieces
        pieces ^= low
        a = lowest_bit_index(low) + 1
        d = a + throw
        if a >= 28:
            if d != OFF:
                continue
        elif a < BEAUTY and d > BEAUTY:
            continue
        if blockade & _between(a, d):
            continue
        if d == OFF:
            new_me = me & ~(1 << (a - 1))
            new_opp = opp
        elif d == WATER:
            new_me = me & ~(1 << (a - 1))
            target = REBIRTH
            while ((new_me | opp) >> (target - 1)) & 1:
                target -= 1
            new_me |= 1 << (target - 1)
            new_opp = opp
            d = target
        else:
            new_me, new_opp = _step(me, opp, protected, a, d)
            if new_me < 0:
                continue
        out_codes[n] = new_me | (new_opp << 30)
        out_info[n] = a | (d << 5)
        n += 1
    if n == 0:  # backward moves, only when no forward move exists
        pieces = me & ((1 << BEAUTY) - 1)
        while pieces:
            low = pieces & -pieces
            pieces ^= low
            a = lowest_bit_index(low) + 1
            d = a - throw
            if d < 1 or blockade & _between(d, a):
                continue
            new_me, new_opp = _step(me, opp, protected, a, d)
            if new_me < 0:
                continue
            out_codes[n] = new_me | (new_opp << 30)
            out_info[n] = a | (d << 5)
            n += 1
    again = 1 if (throw == 1 or throw == 4 or throw == 5) else 0
    for i in range(n):
        over = 1 if (out_codes[i] & BOARD_MASK) == 0 else 0
        if over or not again:
            out_codes[i] = mirror(out_codes[i])
        out_info[i] |= ((again & (1 - over)) * AGAIN) | (over * OVER)
    return n


@njit(cache=True)
def progress(code):
    """Sum of the squares of both sides' pieces."""
    return squares_sum(code & BOARD_MASK) + squares_sum((code >> 30) & BOARD_MASK)


@njit(cache=True)
def _cells(mask):
    """Squares 1..30 without 27 onto cells 0..28."""
    return (mask & LOW26) | ((mask >> 27) << 26)


@njit(cache=True)
def _squares_of_cells(cells):
    return (cells & LOW26) | ((cells >> 26) << 27)


@njit(cache=True)
def layer_of(code):
    return popcount(code & BOARD_MASK) * LAYER_STRIDE + popcount((code >> 30) & BOARD_MASK)


@njit(cache=True)
def rank(code):
    me = _cells(code & BOARD_MASK)
    opp = _cells((code >> 30) & BOARD_MASK)
    m = popcount(me)
    o = popcount(opp)
    opp_rank = colex_rank(extract_bits(opp, CELL_MASK & ~me))
    return colex_rank(me) * BINOM[CELLS - m, o] + opp_rank


@njit(cache=True)
def unrank(layer, r):
    m = layer // LAYER_STRIDE
    o = layer % LAYER_STRIDE
    n_opp = BINOM[CELLS - m, o]
    me = colex_unrank(r // n_opp, m, CELLS)
    opp = deposit_bits(colex_unrank(r % n_opp, o, CELLS - m), CELL_MASK & ~me)
    return _squares_of_cells(me) | (_squares_of_cells(opp) << 30)


def layer_size(m: int, o: int) -> int:
    return int(BINOM[CELLS, m] * BINOM[CELLS - m, o])


def _squares(mask: int) -> list[int]:
    return [s + 1 for s in range(SQUARES) if (mask >> s) & 1]


def to_json(code: int) -> dict:
    code = int(code)
    return {"me": _squares(code & BOARD_MASK), "opp": _squares((code >> 30) & BOARD_MASK)}


def from_json(obj, pieces: int) -> int:
    check_json_object(obj, ("me", "opp"), "a Senet position", '{"me": [...], "opp": [...]}')
    masks = []
    for side in ("me", "opp"):
        squares = square_list(obj, side, SQUARES, "board")
        if WATER in squares:
            raise PositionError(f'a piece of "{side}" on square 27: '
                                'the House of Water is always empty')
        if not 1 <= len(squares) <= pieces:
            raise PositionError(f'"{side}" has {len(squares)} pieces on the board; '
                                f'a game in progress has 1..{pieces} (pieces={pieces})')
        masks.append(sum(1 << (s - 1) for s in squares))
    clash = masks[0] & masks[1]
    if clash:
        raise PositionError(f"two pieces on square {_squares(clash)[0]}")
    return masks[0] | (masks[1] << 30)


THROW_P = np.array([0.0, 4 / 16, 6 / 16, 4 / 16, 1 / 16, 1 / 16])  # P(exactly d)


@njit(cache=True)
def _senet_pips(board):
    total = 0
    for s in range(1, 31):
        if (board >> (s - 1)) & 1:
            total += 31 - s
    return total


@njit(cache=True)
def _senet_exposure(target, attackers, probs):
    """Expected pips lost to one throw: an unprotected piece below 26 is swapped back
    by an attacker 1..5 squares behind it."""
    protected = target & ((target << 1) | (target >> 1))
    loss = 0.0
    for d in range(2, 26):
        if not (target >> (d - 1)) & 1 or (protected >> (d - 1)) & 1:
            continue
        miss = 1.0
        for k in range(1, 6):
            s = d - k
            if s >= 1 and (attackers >> (s - 1)) & 1:
                miss *= 1.0 - probs[k]
        loss += (1.0 - miss) * k_distance(d, attackers)
    return loss


@njit(cache=True)
def k_distance(d, attackers):
    """Pips a piece on d loses when swapped with the nearest attacker behind it."""
    for k in range(1, 6):
        if d - k >= 1 and (attackers >> (d - k - 1)) & 1:
            return k
    return 0


@njit(cache=True)
def heuristic(code):
    """The hand-made evaluation (games/heuristic.py): race and exposure to swaps."""
    me = code & 0x3FFFFFFF
    opp = (code >> 30) & 0x3FFFFFFF
    score = _senet_pips(opp) - _senet_pips(me) + TEMPO
    score += _senet_exposure(opp, me, THROW_P)
    score -= 0.5 * _senet_exposure(me, opp, THROW_P)
    return logistic(score)



def draw(code: int, pieces: int, first_to_throw: bool) -> str:
    """The board in plain text: three rows of ten, played in an S."""
    position = to_json(code)
    me, opp = set(position["me"]), set(position["opp"])
    white, black = (me, opp) if first_to_throw else (opp, me)

    def cell(square):
        if square in white:
            return "[ W]"
        if square in black:
            return "[ B]"
        return f"[{square:2d}]"

    rows = [range(1, 11), range(20, 10, -1), range(21, 31)]
    lines = ["  " + "".join(cell(s) for s in row) for row in rows]
    arrows = ["  ->", "  <-", "  ->"]
    board = "\n".join(line + arrow for line, arrow in zip(lines, arrows))
    return (f"{board}\n  borne off: white {pieces - len(white)}, black {pieces - len(black)}"
            "   (15 rebirth, 26 beauty, 27 water, 28-30 final squares)")


def cell(seat: int, square: int) -> str:
    """The board cell of square 1..31 (31: borne off); both sides share the squares."""
    return f"off{seat}" if square == OFF else f"s{square}"


MARKS = {REBIRTH: "rebirth", BEAUTY: "beauty", WATER: "water", 28: "final", 29: "final",
         30: "final"}
TITLES = {REBIRTH: "15, the House of Rebirth: where a drowned piece comes back",
          BEAUTY: "26, the House of Beauty: every piece stops here",
          WATER: "27, the House of Water: a piece landing here drowns",
          28: "28: leaves the board with a 3 only", 29: "29: leaves the board with a 2 only",
          30: "30: leaves the board with a 1 only"}
LEGEND = ("15 the House of Rebirth, 26 the House of Beauty (every piece stops there), "
          "27 the House of Water (a piece drowns there, back to 15), 28-30 leave the board "
          "with the exact throw only")


def _layout() -> dict:
    """Three rows of ten, travelled in an S."""
    cells = []
    for s in range(1, SQUARES + 1):
        row = (s - 1) // 10
        col = (s - 1) % 10 if row != 1 else 9 - (s - 11)
        cells.append({"id": cell(0, s), "row": row, "col": col, "label": str(s),
                      "mark": MARKS.get(s, ""), **({"title": TITLES[s]} if s in TITLES else {})})
    return {"rows": 3, "cols": 10, "cells": cells, "pools": ["off"], "legend": LEGEND,
            "dice": {"name": "sticks", "count": 4,   # a throw of 5 is no light side up
                     "marked": {str(t): int(t) % 5 for t in THROWS}}}


def view(code: int, pieces: int, first_to_throw: bool) -> dict:
    """Which seat's piece is on each cell, and each seat's borne-off count."""
    position = to_json(code)
    keys = ("me", "opp") if first_to_throw else ("opp", "me")
    cells = {cell(seat, s): seat for seat, key in enumerate(keys) for s in position[key]}
    return {"cells": cells, "waiting": [0, 0],
            "off": [pieces - len(position[key]) for key in keys]}


def events(code: int, move: dict) -> list[str]:
    """What a move does, in words (the throw again and the win are said by the caller)."""
    said = []
    opp = to_json(code)["opp"]
    frm, to = move["from"], move["to"]
    if to == OFF:
        said.append("bears a piece off")
    elif frm == BEAUTY and to <= REBIRTH:
        said.append(f"drowns in the House of Water and goes back to {to}")
    elif to < frm:
        said.append("moves backward: no piece could move forward")
    if to in opp and to != OFF:
        said.append(f"swaps with the piece on {to}, which goes back to {frm}")
    return said


def features(codes, pieces: int):
    """Network input of a batch of codes (torch int64), after the published Senet
    network: occupancy of the 30 squares of each side, one-hot borne-off counts
    (0..pieces) of each side, and each side's distance to go (31 - s for a piece on
    square s) divided by 31 * pieces: 60 + 2 * (pieces + 1) + 2 inputs."""
    me = bit_planes(codes, 0, SQUARES)
    opp = bit_planes(codes, SQUARES, SQUARES)
    me_off = pieces - me.sum(1).long()
    opp_off = pieces - opp.sum(1).long()
    to_go = [float(OFF - s) / (OFF * pieces) for s in range(1, SQUARES + 1)]
    return concat([me, opp, one_hot(me_off, pieces + 1), one_hot(opp_off, pieces + 1),
                   weighted_sum(me, to_go), weighted_sum(opp, to_go)])


def n_features(pieces: int) -> int:
    return 2 * SQUARES + 2 * (pieces + 1) + 2


def make(pieces: int = DEFAULT_PIECES) -> Game:
    if not 1 <= pieces <= MAX_PIECES:
        raise PositionError(f"senet takes pieces 1..{MAX_PIECES}, not {pieces}")
    layers = tuple((m, o) for m in range(1, pieces + 1) for o in range(1, pieces + 1))
    start = from_json({"me": list(WHITE_START[:pieces]), "opp": list(BLACK_START[:pieces])},
                      pieces)
    return Game(name=NAME, rules=RULES, pieces=pieces, throws=THROWS, probs=PROBS,
                max_moves=MAX_MOVES, layers=layers, layer_size=layer_size, start=start,
                moves=moves, mirror=mirror, layer_of=layer_of, rank=rank, unrank=unrank,
                progress=progress, to_json=to_json, from_json=from_json, heuristic=heuristic,
                encoding=Encoding(partial(features, pieces=pieces), n_features(pieces)),
                presentation=Presentation(
                    sides=SIDES, square_names=SQUARE_NAMES, layout=_layout(),
                    draw=partial(draw, pieces=pieces), view=partial(view, pieces=pieces),
                    cell=cell, events=events, code_layout=__doc__.strip(),
                    rules_file=RULES_DOCS / "senet.md", position_kinds=position_kinds))
