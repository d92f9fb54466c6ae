"""Checkers endgames (American checkers, English draughts; docs/rules/checkers.md) as a
game of the contract: positions with at most `pieces` pieces on the board in all, the
world of the endgame databases (solver/retrograde.py). There are no dice: one throw,
0, with probability 1. A side without a legal move has lost, so a move that leaves the
other side without one wins (OVER); a position may also be drawn, play going on
forever (Capabilities.draws).

Packed code (int64), seen by the side to move, in its frame (it moves down the board
as Black does: games/checkers_rules.py):
  bits 0..31   the occupied squares (bit i: square i + 1)
  bits 32..63  two bits for each occupied square, in the order of the squares:
               bit 0 set for the other side's piece, bit 1 for a king
so up to 16 pieces. Layer (a, b): the pieces of the side to move and of the other.
The rank inside a layer: the slices (men and kings of each side: the mover's kings
0..a, then the other's 0..b) one after the other, each by checkers_rules.slice_rank.
"""
from functools import partial
from math import ceil

import numpy as np
from numba import njit

from tabula.games.checkers_rules import (MAX_MOVES, MAX_CHAIN, ROW0, ROW7, can_move, flip,
                                         legal_moves, other_view, row_col, slice_rank,
                                         slice_size, slice_unrank)
from tabula.games.combinatorics import popcount
from tabula.games.features import concat
from tabula.games.game import (LAYER_STRIDE, OVER, RULES_DOCS, Capabilities, DrawRule, Encoding,
                               Game, PositionError, Presentation, check_json_object,
                               whole_numbers)
from tabula.games.heuristic import logistic

NAME = "checkers"
RULES = "american"
MIN_PIECES = 2        # pieces on the board in all (the code holds 16; the databases
MAX_PIECES = 8        # are solved up to 5 or 6 here)
DEFAULT_PIECES = 5
PIECES_MEAN = "pieces on the board in all"
SIDES = ("black", "white")
KING_VALUE = 1.5      # heuristic: a king is worth this many men
MATERIAL_SCALE = 25.0  # ... and a man this many pips of the logistic's scale


@njit(cache=True)
def pack(me, opp, kings):
    """The code of a position (see the top)."""
    occupied = me | opp
    attributes = 0
    i = 0
    for bit in range(32):
        if (occupied >> bit) & 1:
            attributes |= (((opp >> bit) & 1) | (((kings >> bit) & 1) << 1)) << (2 * i)
            i += 1
    return occupied | (attributes << 32)


@njit(cache=True)
def unpack(code):
    """(me, opp, kings) of a code."""
    occupied = code & 0xFFFFFFFF
    attributes = (code >> 32) & 0xFFFFFFFF
    me = 0
    opp = 0
    kings = 0
    i = 0
    for bit in range(32):
        if (occupied >> bit) & 1:
            if (attributes >> (2 * i)) & 1:
                opp |= 1 << bit
            else:
                me |= 1 << bit
            if (attributes >> (2 * i + 1)) & 1:
                kings |= 1 << bit
            i += 1
    return me, opp, kings


@njit(cache=True)
def moves(code, throw, out_codes, out_info):
    """The legal moves, told apart by their result (two orders of one capture chain
    are one move), each seen by the other side; OVER where it is left without a move."""
    me, opp, kings = unpack(code)
    found = np.empty((MAX_MOVES, 5 + MAX_CHAIN), dtype=np.int64)
    work = np.zeros((5, MAX_CHAIN + 1), dtype=np.int64)
    n = legal_moves(me, opp, kings, found, work)
    k = 0
    for i in range(n):
        a, b, c = other_view(found[i, 0], found[i, 1], found[i, 2])
        nxt = pack(a, b, c)
        seen = False
        for j in range(k):
            seen = seen or out_codes[j] == nxt
        if seen:
            continue
        out_codes[k] = nxt
        over = OVER if a == 0 or not can_move(a, b, c) else 0
        out_info[k] = found[i, 3] | (found[i, 4 + found[i, 4]] << 5) | over
        k += 1
    return k


@njit(cache=True)
def mirror(code):
    me, opp, kings = unpack(code)
    a, b, c = other_view(me, opp, kings)
    return pack(a, b, c)


@njit(cache=True)
def layer_of(code):
    me, opp, _ = unpack(code)
    return popcount(me) * LAYER_STRIDE + popcount(opp)


def _slice_offsets():
    """SLICE_OFFSET[mm, mk, om, ok]: where the slice starts inside its layer."""
    offsets = np.zeros((MAX_PIECES + 1,) * 4, dtype=np.int64)
    for a in range(MAX_PIECES + 1):
        for b in range(MAX_PIECES + 1 - a):
            start = 0
            for mk in range(a + 1):
                for ok in range(b + 1):
                    offsets[a - mk, mk, b - ok, ok] = start
                    start += int(slice_size(a - mk, mk, b - ok, ok))
    return offsets


SLICE_OFFSET = _slice_offsets()


@njit(cache=True)
def rank(code):
    me, opp, kings = unpack(code)
    return SLICE_OFFSET[popcount(me & ~kings), popcount(me & kings), popcount(opp & ~kings),
                        popcount(opp & kings)] + slice_rank(me, opp, kings)


@njit(cache=True)
def unrank(layer, r):
    a = layer // LAYER_STRIDE
    b = layer % LAYER_STRIDE
    for mk in range(a + 1):
        for ok in range(b + 1):
            size = slice_size(a - mk, mk, b - ok, ok)
            if r < size:
                me, opp, kings = slice_unrank(a - mk, mk, b - ok, ok, r)
                return pack(me, opp, kings)
            r -= size
    return -1


def layer_size(a: int, b: int) -> int:
    return sum(int(slice_size(a - mk, mk, b - ok, ok))
               for mk in range(a + 1) for ok in range(b + 1))


@njit(cache=True)
def progress(code):
    """Rows the men of both sides have come from their own back rows."""
    me, opp, kings = unpack(code)
    total = 0
    for bit in range(32):
        if (kings >> bit) & 1:
            continue
        if (me >> bit) & 1:
            total += bit // 4
        elif (opp >> bit) & 1:
            total += 7 - bit // 4
    return total


@njit(cache=True)
def heuristic(code):
    """Material: men and kings (a king KING_VALUE men), the side to move a little ahead."""
    me, opp, kings = unpack(code)
    score = (popcount(me & ~kings) + KING_VALUE * popcount(me & kings)
             - popcount(opp & ~kings) - KING_VALUE * popcount(opp & kings))
    return logistic(MATERIAL_SCALE * score)


DRAW_PLIES = 80   # in play, a game is drawn after each side's 40 moves without a capture
                 # or a man's step (the American Checker Federation's 40-move rule)


def irreversible(code: int, next_code: int) -> bool:
    """Whether a move can never be undone: it took a piece, or a man stepped (or was
    crowned), which changes the men's progress (the same seen from either side)."""
    return popcount(np.int64(code) & 0xFFFFFFFF) != popcount(np.int64(next_code) & 0xFFFFFFFF) \
        or progress(np.int64(code)) != progress(np.int64(next_code))


def successor_layers(a: int, b: int) -> tuple:
    """The other side's layers after a move: a capture chain takes 0 .. b - 1 of its
    pieces (all of them wins); the mover keeps all of its own."""
    return tuple((b - taken, a) for taken in range(b))


def start(pieces: int) -> int:
    """The start of the variant: Black's ceil(pieces / 2) men on squares 1, 2, ..., and
    White's others on 32, 31, ... (each side's own back row first); Black to move."""
    black = sum(1 << i for i in range(ceil(pieces / 2)))
    return pack(black, flip(sum(1 << i for i in range(pieces // 2))), 0)


# ---- positions for people -----------------------------------------------------------

def _squares(mask: int, seat: int = 0) -> list[int]:
    """The rules' numbers of the squares in `mask`, a frame of `seat` (0: Black), in order."""
    return sorted(absolute_square(bit, seat) for bit in range(32) if (mask >> bit) & 1)


def to_json(code: int) -> dict:
    """{"turn": "black", "black": {"men": [...], "kings": [...]}, "white": {...}}: the
    side to move is shown as Black (a position and its colours reversed are the same)."""
    me, opp, kings = (int(x) for x in unpack(np.int64(code)))
    return {"turn": "black",
            **{side: {"men": _squares(mask & ~kings), "kings": _squares(mask & kings)}
               for side, mask in (("black", me), ("white", opp))}}


_KEYS = ("turn", "black", "white")
_SHAPE = '{"turn": "black", "black": {"men": [9, 10], "kings": [18]}, "white": {...}}'


def seat_to_move(obj) -> int:
    """The seat (0: Black) to move in a position written as from_json reads it."""
    if isinstance(obj, dict) and set(obj) == {"fen"}:
        obj = json_of_fen(obj["fen"])
    return SIDES.index(obj["turn"])


def fen(code: int, seat: int = 0) -> str:
    """The position in the players' standard notation (PDN's FEN), `seat` to move (0:
    Black; the code is seen by that seat): 'W:W18,K26:B9,K1' (who moves, then each side's
    squares, K before a king's)."""
    me, opp, kings = (int(x) for x in unpack(np.int64(code)))
    mover, other = ("B", "W") if seat == 0 else ("W", "B")
    pieces = {mover: me, other: opp}
    return f"{mover}:" + ":".join(
        letter + ",".join([str(s) for s in _squares(pieces[letter] & ~kings, seat)]
                          + [f"K{s}" for s in _squares(pieces[letter] & kings, seat)])
        for letter in "WB")


def json_of_fen(text) -> dict:
    """to_json's form of a position in FEN ('W:W18,K26:B9,K1'; ranges such as 1-12 too),
    else a PositionError saying how one is written."""
    how = "a FEN is written W:W18,K26:B9,K1 (who moves, then each side's squares)"
    parts = text.replace(" ", "").rstrip(".").split(":") if isinstance(text, str) else []
    if len(parts) != 3 or parts[0] not in ("B", "W") or len(text) > 200:
        raise PositionError(how)
    shown = {"turn": SIDES["BW".index(parts[0])]}
    for part in parts[1:]:
        if not part or part[0] not in "BW" or SIDES["BW".index(part[0])] in shown:
            raise PositionError(how)
        men, kings = [], []
        for item in filter(None, part[1:].split(",")):
            king = item.startswith("K")
            first, dash, last = item[king:].partition("-")
            last = last if dash else first
            if not (first.isdigit() and last.isdigit() and 1 <= int(first) <= int(last) <= 32):
                raise PositionError(f"{how}, squares 1..32, not {item[:20]!r}")
            squares = range(int(first), int(last) + 1)
            (kings if king else men).extend(squares)
        shown[SIDES["BW".index(part[0])]] = {"men": men, "kings": kings}
    return shown


def from_json(obj, pieces: int) -> int:
    """The code of a position written as to_json writes it, either side to move, or as
    {"fen": "W:W18,K26:B9,K1"}."""
    if isinstance(obj, dict) and set(obj) == {"fen"}:
        obj = json_of_fen(obj["fen"])
    check_json_object(obj, _KEYS, "a checkers position", _SHAPE + ', or {"fen": "W:W18:B9,K1"}')
    if obj["turn"] not in SIDES:
        raise PositionError('"turn" is "black" or "white"')
    masks, taken = {}, set()
    for side in SIDES:
        pieces_of = obj[side]
        if not isinstance(pieces_of, dict) or set(pieces_of) != {"men", "kings"}:
            raise PositionError(f'"{side}" is {{"men": [squares], "kings": [squares]}}')
        mask = {}
        for kind in ("men", "kings"):
            squares = pieces_of[kind]
            if not whole_numbers(squares) or any(not 1 <= s <= 32 for s in squares):
                raise PositionError(f'"{side}" {kind} are square numbers 1..32')
            if taken & set(squares) or len(set(squares)) != len(squares):
                raise PositionError(f"two pieces on square "
                                    f"{sorted(taken & set(squares) or squares)[0]}")
            taken |= set(squares)
            mask[kind] = sum(1 << (s - 1) for s in squares)
        crowning = ROW7 if side == "black" else ROW0
        if mask["men"] & crowning:
            raise PositionError(f"a {side} man on square {_squares(mask['men'] & crowning)[0]},"
                                f" where it would be a king")
        masks[side] = mask
    if not len(taken) <= pieces:
        raise PositionError(f"{len(taken)} pieces on the board: this variant has at most "
                            f"{pieces}")
    black = masks["black"]["men"] | masks["black"]["kings"]
    white = masks["white"]["men"] | masks["white"]["kings"]
    if not black or not white:
        raise PositionError("both sides need a piece on the board (a side without one has "
                            "lost)")
    kings = masks["black"]["kings"] | masks["white"]["kings"]
    me, opp = (black, white) if obj["turn"] == "black" else (flip(white), flip(black))
    return int(pack(me, opp, kings if obj["turn"] == "black" else flip(kings)))


def absolute_square(bit: int, seat: int) -> int:
    """The rules' number of the square at bit `bit` of a frame of `seat` (0: Black)."""
    return bit + 1 if seat == 0 else 32 - bit


def cell(seat: int, square: int) -> str:
    """The board cell of square bit `square` in the frame of `seat`."""
    return f"s{absolute_square(square, seat)}"


def _layout() -> dict:
    cells = []
    for square in range(1, 33):
        row, col = row_col(square)
        cells.append({"id": f"s{square}", "row": row, "col": col, "label": str(square),
                      "mark": "", "title": ""})
    return {"rows": 8, "cols": 8, "pools": [], "colours": ["#212121", "#c62828"],
            "dice": {"name": "none", "count": 0, "faces": 0, "marked": {"0": 0}},
            "moves": "listed", "cells": cells,
            # what a tap on a square of the board set up by a person puts there, in turn
            "setup": [{"seat": 0, "label": ""}, {"seat": 0, "label": "K"},
                      {"seat": 1, "label": ""}, {"seat": 1, "label": "K"}]}


def view(code: int, first_to_throw: bool) -> dict:
    """Which seat (0: Black) has a piece on each cell; "K" labels a king."""
    me, opp, kings = (int(x) for x in unpack(np.int64(code)))
    mover = 0 if first_to_throw else 1
    cells, labels = {}, {}
    for bit in range(32):
        for seat, mask in ((mover, me), (1 - mover, opp)):
            if (mask >> bit) & 1:
                cells[cell(mover, bit)] = seat
                if (kings >> bit) & 1:
                    labels[cell(mover, bit)] = "K"
    return {"cells": cells, "labels": labels, "waiting": [0, 0], "off": [0, 0]}


def from_view(cells: dict, labels: dict, seat: int, pieces: int) -> int:
    """The code of a position set up on the board (cells "s1".."s32": the seat of the
    piece there, "K" labelling a king), `seat` (0: Black) to move."""
    sides = {side: {"men": [], "kings": []} for side in SIDES}
    for cell, owner in cells.items():
        if not (cell.startswith("s") and cell[1:].isdigit() and 1 <= int(cell[1:]) <= 32):
            raise PositionError(f"no square {cell[:10]!r} on a checkers board")
        kind = "kings" if labels.get(cell) == "K" else "men"
        sides[SIDES[owner]][kind].append(int(cell[1:]))
    return from_json({"turn": SIDES[seat], **sides}, pieces)


def draw(code: int, first_to_throw: bool) -> str:
    """The board from Black's side (square 1 top left of its row): b and B Black's men and
    kings, w and W White's; Black moves down the board, White up."""
    shown = view(code, first_to_throw)
    rows = []
    for row in range(8):
        marks = []
        for col in range(8):
            square = row * 4 + col // 2 + 1 if (row + col) % 2 else 0
            c = f"s{square}"
            if not square:
                marks.append(" ")
            elif c in shown["cells"]:
                mark = "bw"[shown["cells"][c]]
                marks.append(mark.upper() if c in shown["labels"] else mark)
            else:
                marks.append(".")
        rows.append(f"  {row * 4 + 1:>2} " + " ".join(marks))
    return "\n".join(rows + ["  (b, B: Black's men and kings; w, W: White's)",
                            f"  FEN {fen(code, 0 if first_to_throw else 1)}"])


def notation(code: int, next_code: int, throw: int = 0, seat: int = 0) -> str:
    """The move from `code` to `next_code` as players write it ('9-13', '9x18x27'), the
    squares numbered as `seat` (0: Black) plays them."""
    me, opp, kings = unpack(np.int64(code))
    found = np.empty((MAX_MOVES, 5 + MAX_CHAIN), dtype=np.int64)
    n = legal_moves(me, opp, kings, found, np.zeros((5, MAX_CHAIN + 1), dtype=np.int64))
    for i in range(n):
        if pack(*other_view(found[i, 0], found[i, 1], found[i, 2])) == next_code:
            path = [int(found[i, 3])] + [int(x) for x in found[i, 5:5 + found[i, 4]]]
            joint = "x" if popcount(found[i, 1]) < popcount(opp) else "-"
            return joint.join(str(absolute_square(bit, seat)) for bit in path)
    raise PositionError("that position does not follow from this one by a legal move")


def events(code: int, move: dict) -> list[str]:
    """What a move does, in words: the pieces it takes, a crowning."""
    me, opp, kings = unpack(np.int64(code))
    a, b, c = unpack(np.int64(move["position"]))   # seen by the other side
    said = []
    taken = popcount(opp) - popcount(a)
    if taken:
        said.append(f"takes {taken} piece{'s' if taken > 1 else ''}")
    if popcount(b & c) > popcount(me & kings):
        said.append("is crowned")
    if move["over"]:
        said.append("leaves the other side without a move" if a else "takes the last piece")
    return said


def features(codes):
    """For each of the 32 squares, whether it holds a man of the side to move, a king of
    it, a man of the other side, a king of it (128 inputs, the mover's frame)."""
    import torch   # the positions' attribute bits are found by the squares' order
    bits = codes.new_tensor(list(range(32)))
    occupied = codes.unsqueeze(1).bitwise_right_shift(bits).bitwise_and(1)
    order = torch.cumsum(occupied, dim=1) - 1
    attributes = codes.unsqueeze(1).bitwise_right_shift(32 + 2 * order.clamp(min=0)) \
        .bitwise_and(3)
    planes = [(occupied == 1) & (attributes == kind) for kind in (0, 2, 1, 3)]
    return concat([p.float() for p in planes])


def make(pieces: int | None = None) -> Game:
    """Endgames with at most `pieces` pieces on the board in all (2..MAX_PIECES)."""
    pieces = DEFAULT_PIECES if pieces is None else pieces
    if not MIN_PIECES <= pieces <= MAX_PIECES:
        raise PositionError(f"checkers takes {MIN_PIECES}..{MAX_PIECES} pieces on the board, "
                            f"not {pieces}")
    return Game(name=NAME, rules=RULES, pieces=pieces,
                throws=np.zeros(1, dtype=np.int64), probs=np.ones(1), max_moves=MAX_MOVES,
                layers=tuple((a, b) for a in range(1, pieces) for b in range(1, pieces + 1 - a)),
                layer_size=layer_size, start=start(pieces), moves=moves, mirror=mirror,
                layer_of=layer_of, rank=rank, unrank=unrank, progress=progress,
                to_json=to_json, from_json=from_json, heuristic=heuristic,
                successor_layers=successor_layers,
                capabilities=Capabilities(removes_for_good=True, pieces_in_all=True,
                                          draws=True),
                draw_rule=DrawRule(DRAW_PLIES, irreversible),
                encoding=Encoding(features, 4 * 32),
                presentation=Presentation(
                    sides=SIDES, square_names={bit: str(bit + 1) for bit in range(32)},
                    layout=_layout(), draw=draw, view=view, cell=cell, events=events,
                    code_layout=__doc__[__doc__.index("Packed code"):],
                    rules_file=RULES_DOCS / "checkers.md", win_words="wins",
                    named_by_board=True, notation=notation, throw_text=lambda throw: "-",
                    from_view=partial(from_view, pieces=pieces),
                    seat_to_move=seat_to_move))
