"""The Royal Game of Ur (docs/rules/ur.md), under rule sets given as data (UrRules;
the named sets are in RULE_SETS, Finkel's the default).

Packed code (int64), seen by the player about to throw:
  bits  0..13  mover's pieces on track squares 1..14 (bit j-1 = square j)
  bits 14..27  opponent's pieces on their track squares 1..14
  bits 28..30  mover's waiting pieces
  bits 31..33  opponent's waiting pieces
Squares 5..12 are shared: square k of one track is square k of the other.

Layer (a, b): a, b = pieces still in play (waiting + on the board) of mover and
opponent. Inside a layer positions fall into blocks by (k_m, s_m, k_o): mover's
pieces on the board, how many of them on shared squares, opponent's pieces on
the board. A block holds C(6, k_m - s_m) C(8, s_m) C(14 - s_m, k_o) positions:
the mover's private and shared squares, then the opponent's squares among the
14 - s_m not taken by the mover.
"""
from dataclasses import dataclass
from functools import partial
from itertools import product
from math import comb

import numpy as np
from numba import njit

from .combinatorics import (BINOM, colex_rank, colex_unrank, deposit_bits, extract_bits,
                            popcount, squares_sum)
from .features import bit_planes, concat, field, one_hot, weighted_sum
from .heuristic import TEMPO, logistic
from .game import (AGAIN, LAYER_STRIDE, OVER, RULES_DOCS, Encoding, Game, PositionError,
                   Presentation, check_json_object, whole_numbers)

NAME = "ur"
MAX_PIECES = 7
DEFAULT_PIECES = 7   # Finkel's; a rule set names its own
TRACK = 14
OFF = 15
MAX_MOVES = MAX_PIECES + 1

TRACK_MASK = (1 << TRACK) - 1
SHARED_MASK = 0xFF << 4          # squares 5..12
ROSETTES = (4, 8, 14)
SAFE_SQUARE = 8
SIDES = ("light", "dark")
SQUARE_NAMES = {0: "enter", OFF: "off"}
PATHS = ("bell",)   # the paths whose squares this module indexes (Bell's: 4 + 8 + 2)


@dataclass(frozen=True)
class UrRules:
    """A rule set of Ur as data, in the terms of royalur's game settings. The throw
    is the number of marked tips of `dice` binary dice (each up with chance 1/2); a
    throw of 0 counts as `zero_counts_as` where that is not 0 (Masters: 4)."""
    name: str
    pieces: int = 7                 # pieces a side (the default of --pieces)
    path: str = "bell"              # the path each side takes (PATHS)
    dice: int = 4
    zero_counts_as: int = 0
    safe_rosettes: bool = True      # no capture on the shared rosette (square 8)
    again_on_rosette: bool = True   # landing on a rosette gives another throw
    again_on_capture: bool = False  # a capture gives another throw

    def check(self):
        """Refuse settings this module cannot play (one line each)."""
        if self.path not in PATHS:
            raise PositionError(f"ur rules {self.name!r}: path {self.path!r} is not indexed "
                                f"yet (paths: {', '.join(PATHS)})")
        if not 1 <= self.dice <= 4 or not 0 <= self.zero_counts_as <= 4:
            raise PositionError(f"ur rules {self.name!r}: 1..4 dice, a zero counting 0..4")
        if not 1 <= self.pieces <= MAX_PIECES:
            raise PositionError(f"ur rules {self.name!r}: pieces 1..{MAX_PIECES}")

    def throws(self) -> tuple[np.ndarray, np.ndarray]:
        """The possible throws and their chances."""
        chance = {}
        for marked in range(self.dice + 1):
            throw = self.zero_counts_as if marked == 0 and self.zero_counts_as else marked
            chance[throw] = chance.get(throw, 0) + comb(self.dice, marked) / 2 ** self.dice
        throws = sorted(chance)
        return (np.array(throws, dtype=np.int64),
                np.array([chance[t] for t in throws], dtype=np.float64))


FINKEL = UrRules("finkel")
RULE_SETS = {}
RULES = FINKEL.name   # the default rule set


def register_rules(rules: UrRules):
    """Make a rule set available by its name (--rules NAME)."""
    rules.check()
    RULE_SETS[rules.name] = rules


register_rules(FINKEL)


@njit(cache=True)
def pack(me, opp, me_waiting, opp_waiting):
    return me | (opp << 14) | (me_waiting << 28) | (opp_waiting << 31)


@njit(cache=True)
def mirror(code):
    me = code & TRACK_MASK
    opp = (code >> 14) & TRACK_MASK
    return pack(opp, me, (code >> 31) & 7, (code >> 28) & 7)


def _compile_moves(safe_rosettes: bool, again_on_rosette: bool, again_on_capture: bool):
    """The compiled move generator of one combination of the rule switches (constants
    to numba). It is named by them and kept in this module, where infra/numba_cache.py
    finds it when a cached kernel that took it as an argument is loaded."""
    def moves(code, throw, out_codes, out_info):
        me = code & TRACK_MASK
        opp = (code >> 14) & TRACK_MASK
        me_waiting = (code >> 28) & 7
        opp_waiting = (code >> 31) & 7
        if throw == 0:
            return 0
        n = 0
        for a in range(0, OFF - throw + 1):
            if a == 0:
                if me_waiting == 0:
                    continue
            elif not (me >> (a - 1)) & 1:
                continue
            d = a + throw
            new_me = me
            new_opp = opp
            new_me_waiting = me_waiting
            new_opp_waiting = opp_waiting
            if a == 0:
                new_me_waiting -= 1
            else:
                new_me &= ~(1 << (a - 1))
            captured = False
            if d < OFF:
                if (me >> (d - 1)) & 1:
                    continue
                if 5 <= d <= 12 and (opp >> (d - 1)) & 1:
                    if safe_rosettes and d == SAFE_SQUARE:
                        continue
                    new_opp &= ~(1 << (d - 1))
                    new_opp_waiting += 1
                    captured = True
                new_me |= 1 << (d - 1)
            again = 1 if ((again_on_rosette and (d == 4 or d == 8 or d == 14))
                          or (again_on_capture and captured)) else 0
            over = 1 if (d == OFF and new_me == 0 and new_me_waiting == 0) else 0
            new = pack(new_me, new_opp, new_me_waiting, new_opp_waiting)
            if not again:
                new = mirror(new)
            out_codes[n] = new
            out_info[n] = a | (d << 5) | (again * AGAIN) | (over * OVER)
            n += 1
        return n

    moves.__name__ = moves.__qualname__ = "moves_" + "".join(
        "1" if flag else "0" for flag in (safe_rosettes, again_on_rosette, again_on_capture))
    compiled = njit(cache=True)(moves)
    globals()[moves.__name__] = compiled
    return compiled


# every combination made now: a cached kernel may name any of them
MOVES = {flags: _compile_moves(*flags) for flags in product((False, True), repeat=3)}


def rule_moves(rules: UrRules):
    return MOVES[(rules.safe_rosettes, rules.again_on_rosette, rules.again_on_capture)]


@njit(cache=True)
def progress(code):
    """Squares travelled by the pieces on the board of both sides (borne-off pieces are
    constant inside a layer)."""
    return squares_sum(code & TRACK_MASK) + squares_sum((code >> 14) & TRACK_MASK)


def _block_tables():
    """Offsets of the (k_m, s_m, k_o) blocks inside every layer, and layer sizes."""
    n = MAX_PIECES + 1   # tables indexed by (a, b, ...)
    offset = np.full((n, n, n, 8, n), -1, dtype=np.int64)
    block_start = np.zeros((n, n, 513), dtype=np.int64)
    block_key = np.zeros((n, n, 512), dtype=np.int64)
    n_blocks = np.zeros((n, n), dtype=np.int64)
    sizes = np.zeros((n, n), dtype=np.int64)
    for a in range(n):
        for b in range(n):
            total = 0
            j = 0
            for k_m in range(a + 1):
                for s_m in range(min(k_m, 8) + 1):
                    if k_m - s_m > 6:
                        continue
                    for k_o in range(b + 1):
                        size = (BINOM[6, k_m - s_m] * BINOM[8, s_m]
                                * BINOM[TRACK - s_m, k_o])
                        if size == 0:
                            continue
                        offset[a, b, k_m, s_m, k_o] = total
                        block_start[a, b, j] = total
                        block_key[a, b, j] = k_m | (s_m << 4) | (k_o << 8)
                        total += size
                        j += 1
            block_start[a, b, j] = total
            n_blocks[a, b] = j
            sizes[a, b] = total
    return offset, block_start, block_key, n_blocks, sizes


OFFSET, BLOCK_START, BLOCK_KEY, N_BLOCKS, LAYER_SIZES = _block_tables()


@njit(cache=True)
def layer_of(code):
    me = code & TRACK_MASK
    opp = (code >> 14) & TRACK_MASK
    a = ((code >> 28) & 7) + popcount(me)
    b = ((code >> 31) & 7) + popcount(opp)
    return a * LAYER_STRIDE + b


@njit(cache=True)
def rank(code):
    me = code & TRACK_MASK
    opp = (code >> 14) & TRACK_MASK
    k_m = popcount(me)
    k_o = popcount(opp)
    a = ((code >> 28) & 7) + k_m
    b = ((code >> 31) & 7) + k_o
    me_shared = (me >> 4) & 0xFF
    s_m = popcount(me_shared)
    me_private = (me & 0xF) | ((me >> 12) << 4)
    mover = colex_rank(me_private) * BINOM[8, s_m] + colex_rank(me_shared)
    avail = TRACK_MASK & ~(me & SHARED_MASK)
    opp_rank = colex_rank(extract_bits(opp, avail))
    return OFFSET[a, b, k_m, s_m, k_o] + mover * BINOM[TRACK - s_m, k_o] + opp_rank


@njit(cache=True)
def unrank(layer, r):
    a = layer // LAYER_STRIDE
    b = layer % LAYER_STRIDE
    lo = 0
    hi = N_BLOCKS[a, b] - 1
    while lo < hi:  # last block whose start is <= r
        mid = (lo + hi + 1) // 2
        if BLOCK_START[a, b, mid] <= r:
            lo = mid
        else:
            hi = mid - 1
    key = BLOCK_KEY[a, b, lo]
    k_m = key & 15
    s_m = (key >> 4) & 15
    k_o = (key >> 8) & 15
    r -= BLOCK_START[a, b, lo]
    n_opp = BINOM[TRACK - s_m, k_o]
    mover = r // n_opp
    opp_rank = r % n_opp
    n_shared = BINOM[8, s_m]
    private = colex_unrank(mover // n_shared, k_m - s_m, 6)
    shared = colex_unrank(mover % n_shared, s_m, 8)
    me = (private & 0xF) | (shared << 4) | ((private >> 4) << 12)
    avail = TRACK_MASK & ~(me & SHARED_MASK)
    opp = deposit_bits(colex_unrank(opp_rank, k_o, TRACK - s_m), avail)
    return pack(me, opp, a - k_m, b - k_o)


def layer_size(a: int, b: int) -> int:
    return int(LAYER_SIZES[a, b])


def _squares(mask: int) -> list[int]:
    return [j + 1 for j in range(TRACK) if (mask >> j) & 1]


def to_json(code: int) -> dict:
    code = int(code)
    return {"me": _squares(code & TRACK_MASK), "me_waiting": (code >> 28) & 7,
            "opp": _squares((code >> 14) & TRACK_MASK), "opp_waiting": (code >> 31) & 7}


_KEYS = ("me", "me_waiting", "opp", "opp_waiting")


def from_json(obj, pieces: int) -> int:
    check_json_object(obj, _KEYS, "an Ur position", f"with keys {', '.join(_KEYS)}")
    masks = []
    for side in ("me", "opp"):
        squares = obj[side]
        if not whole_numbers(squares):
            raise PositionError(f'"{side}" must be a list of square numbers 1..14')
        bad = [s for s in squares if not 1 <= s <= TRACK]
        if bad:
            raise PositionError(f'square {bad[0]} in "{side}" is off the track (squares 1..14)')
        if len(set(squares)) != len(squares):
            raise PositionError(f'two pieces of "{side}" on one square')
        waiting = obj[f"{side}_waiting"]
        if not isinstance(waiting, int) or isinstance(waiting, bool) or waiting < 0:
            raise PositionError(f'"{side}_waiting" must be a whole number >= 0')
        if len(squares) + waiting > pieces:
            raise PositionError(f'"{side}" has {len(squares) + waiting} pieces in play, '
                                f'more than pieces={pieces}')
        masks.append(sum(1 << (s - 1) for s in squares))
    clash = masks[0] & masks[1] & SHARED_MASK
    if clash:
        raise PositionError(f"both sides on shared square {_squares(clash)[0]}")
    return int(pack(masks[0], masks[1], obj["me_waiting"], obj["opp_waiting"]))


UR_THROW_P = np.array([0.0, 4 / 16, 6 / 16, 4 / 16, 1 / 16])       # P(exactly d), d > 0
UR_ROSETTE_BONUS = 4.0    # pips a piece on the central rosette (square 8) is worth


@njit(cache=True)
def _ur_pips(track, waiting):
    total = 15 * waiting
    for s in range(1, 15):
        if (track >> (s - 1)) & 1:
            total += 15 - s
    return total


@njit(cache=True)
def _ur_exposure(target, attackers, attackers_waiting, probs):
    """Expected pips `target`'s side loses to one throw of the attacking side: a piece
    on a shared square other than 8 is sent home by an attacker 1..4 squares behind."""
    loss = 0.0
    for d in range(5, 13):
        if d == 8 or not (target >> (d - 1)) & 1:
            continue
        miss = 1.0
        for k in range(1, 5):
            s = d - k
            if s == 0:
                hit = attackers_waiting > 0
            else:
                hit = (attackers >> (s - 1)) & 1
            if hit:
                miss *= 1.0 - probs[k]
        loss += (1.0 - miss) * d
    return loss


@njit(cache=True)
def heuristic(code):
    """The hand-made evaluation (games/heuristic.py): race, exposure, the central rosette
    (made for Finkel's dice and rosettes, and played as it is under every rule set)."""
    me = code & 0x3FFF
    opp = (code >> 14) & 0x3FFF
    me_waiting = (code >> 28) & 7
    opp_waiting = (code >> 31) & 7
    score = _ur_pips(opp, opp_waiting) - _ur_pips(me, me_waiting) + TEMPO
    score += _ur_exposure(opp, me, me_waiting, UR_THROW_P)        # I throw next
    score -= 0.5 * _ur_exposure(me, opp, opp_waiting, UR_THROW_P)  # they throw after
    if (me >> 7) & 1:
        score += UR_ROSETTE_BONUS
    if (opp >> 7) & 1:
        score -= UR_ROSETTE_BONUS
    return logistic(score)




def draw(code: int, pieces: int, first_to_throw: bool, rules: UrRules = FINKEL) -> str:
    """The board in plain text, light (who throws first) at the bottom."""
    position = to_json(code)
    me_key, opp_key = ("me", "opp") if first_to_throw else ("opp", "me")
    light, dark = set(position[me_key]), set(position[opp_key])
    light_waiting = position[f"{me_key}_waiting"]
    dark_waiting = position[f"{opp_key}_waiting"]
    private = [4, 3, 2, 1, None, None, 14, 13]

    def cell(square, mine, theirs=frozenset(), mark="L", other="D"):
        if square is None:
            return "   "
        if square in mine:
            return f"[{mark}]"
        if square in theirs:
            return f"[{other}]"
        return "[*]" if square in ROSETTES else "[ ]"

    top = "".join(cell(s, dark, mark="D") for s in private)
    middle = "".join(cell(c + 4, light, dark) for c in range(1, 9))
    bottom = "".join(cell(s, light, mark="L") for s in private)
    light_off = pieces - light_waiting - len(light)
    dark_off = pieces - dark_waiting - len(dark)
    return (f"  dark  {top}   waiting {dark_waiting}, borne off {dark_off}\n"
            f"        {middle}   (* rosette{': throw again' * rules.again_on_rosette}"
            f"{'; the middle one is safe' * rules.safe_rosettes})\n"
            f"  light {bottom}   waiting {light_waiting}, borne off {light_off}\n"
            "        squares: 4 3 2 1 . . 14 13 on each side's own row, 5..12 in the middle")


PRIVATE_COLUMNS = {4: 0, 3: 1, 2: 2, 1: 3, 14: 6, 13: 7}


def cell(seat: int, square: int) -> str:
    """The board cell of square 0..15 of seat's track (0: light, who throws first)."""
    if square == 0:
        return f"wait{seat}"
    if square == OFF:
        return f"off{seat}"
    return f"m{square}" if 5 <= square <= 12 else f"{'ld'[seat]}{square}"


def _layout(rules: UrRules, throws) -> dict:
    """The board's cells for drawing: dark's row on top, the shared row, light's row."""
    safe = "rosette safe" if rules.safe_rosettes else "rosette"
    cells = [{"id": f"m{s}", "row": 1, "col": s - 5, "label": str(s),
              "mark": safe if s == SAFE_SQUARE else ""} for s in range(5, 13)]
    for seat, row in ((1, 0), (0, 2)):
        cells += [{"id": cell(seat, s), "row": row, "col": col, "label": str(s),
                   "mark": "rosette" if s in ROSETTES else ""}
                  for s, col in PRIVATE_COLUMNS.items()]
    return {"rows": 3, "cols": 8, "cells": cells, "pools": ["wait", "off"],
            "dice": {"name": "four-sided dice", "count": rules.dice,
                     "marked": {str(t): int(t) for t in throws}}}


def view(code: int, pieces: int, first_to_throw: bool) -> dict:
    """Which seat's piece is on each cell, and each seat's waiting and borne-off counts."""
    position = to_json(code)
    keys = ("me", "opp") if first_to_throw else ("opp", "me")
    cells, waiting, off = {}, [], []
    for seat, key in enumerate(keys):
        for square in position[key]:
            cells[cell(seat, square)] = seat
        waiting.append(position[f"{key}_waiting"])
        off.append(pieces - position[f"{key}_waiting"] - len(position[key]))
    return {"cells": cells, "waiting": waiting, "off": off}


def events(code: int, move: dict) -> list[str]:
    """What a move does, in words (the throw again and the win are said by the caller)."""
    said = []
    if move["from"] == 0:
        said.append("enters a piece")
    if move["to"] == OFF:
        said.append("bears a piece off")
    elif 5 <= move["to"] <= 12 and move["to"] in to_json(code)["opp"]:
        said.append(f"captures the piece on {move['to']}: it goes back to waiting")
    if move["again"] and move["to"] in ROSETTES:
        said.append("lands on a rosette")
    return said


def features(codes, pieces: int):
    """Network input of a batch of codes (torch int64): occupancy of the 14 track
    squares of each side, one-hot waiting and borne-off counts (0..pieces) of each
    side, and each side's pips to go (15 per waiting piece, 15 - s on square s)
    divided by 15 * pieces: 28 + 4 * (pieces + 1) + 2 inputs (62 for 7 pieces)."""
    me = bit_planes(codes, 0, TRACK)
    opp = bit_planes(codes, TRACK, TRACK)
    me_waiting = field(codes, 28, 3)
    opp_waiting = field(codes, 31, 3)
    me_off = pieces - me_waiting - me.sum(1).long()
    opp_off = pieces - opp_waiting - opp.sum(1).long()
    to_go = [float(OFF - s) for s in range(1, TRACK + 1)]
    scale = 1.0 / (OFF * pieces)
    me_pips = (weighted_sum(me, to_go) + OFF * me_waiting.unsqueeze(1).float()) * scale
    opp_pips = (weighted_sum(opp, to_go) + OFF * opp_waiting.unsqueeze(1).float()) * scale
    return concat([me, opp, one_hot(me_waiting, pieces + 1), one_hot(opp_waiting, pieces + 1),
                   one_hot(me_off, pieces + 1), one_hot(opp_off, pieces + 1), me_pips, opp_pips])


def n_features(pieces: int) -> int:
    return 2 * TRACK + 4 * (pieces + 1) + 2


def code_layout(rules: UrRules) -> str:
    """The packed code described for model manifests (tabula.code_layout), naming the
    rule set: for Finkel's, to the letter the text the shipped models carry."""
    return (f"The Royal Game of Ur, rule set `{rules.name}` (docs/rules/ur.md).\n\n"
            + __doc__[__doc__.index("Packed code"):].strip())


def make(pieces: int | None = None, rules: UrRules = FINKEL) -> Game:
    pieces = rules.pieces if pieces is None else pieces
    if not 1 <= pieces <= MAX_PIECES:
        raise PositionError(f"ur takes pieces 1..{MAX_PIECES}, not {pieces}")
    throws, probs = rules.throws()
    layers = tuple((a, b) for a in range(pieces + 1) for b in range(pieces + 1))
    return Game(name=NAME, rules=rules.name, pieces=pieces, throws=throws, probs=probs,
                max_moves=MAX_MOVES, layers=layers, layer_size=layer_size,
                start=int(pack(0, 0, pieces, pieces)), moves=rule_moves(rules), mirror=mirror,
                layer_of=layer_of, rank=rank, unrank=unrank, progress=progress, to_json=to_json,
                from_json=from_json, heuristic=heuristic,
                encoding=Encoding(partial(features, pieces=pieces), n_features(pieces)),
                presentation=Presentation(
                    pieces=pieces, sides=SIDES, square_names=SQUARE_NAMES,
                    layout=_layout(rules, throws), draw=partial(draw, rules=rules), view=view,
                    cell=cell, events=events, code_layout=code_layout(rules),
                    rules_file=RULES_DOCS / "ur.md"))
