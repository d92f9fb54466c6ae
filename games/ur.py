"""The Royal Game of Ur (docs/rules/ur.md), under rule sets given as data (UrRules;
the named sets are in RULE_SETS, Finkel's the default).

A rule set's path (UrPath, in PATHS: Bell's or Masters') is where each side's track
runs on the 20 tiles of the board; everything the code needs of it (the track's
length, which squares are shared, which square of the other track lies on the same
tile, the rosettes) is derived from its tiles. Each path gets its own compiled
functions (PathCode), with those facts as numba constants; each combination of the
rule switches gets its own move generator.

Packed code (int64) of a path of T squares, seen by the player about to throw:
  bits 0..T-1      mover's pieces on track squares 1..T (bit j-1 = square j)
  bits T..2T-1     opponent's pieces on their track squares 1..T
  bits 2T..2T+2    mover's waiting pieces
  bits 2T+3..2T+5  opponent's waiting pieces
Squares 1..4 of each track are private; the S squares after them are shared; the
rest (Bell's 13, 14) are private again.

Layer (a, b): a, b = pieces still in play (waiting + on the board) of mover and
opponent. Inside a layer positions fall into blocks by (k_m, s_m, k_o): mover's
pieces on the board, how many of them on shared squares, opponent's pieces on the
board. A block holds C(T - S, k_m - s_m) C(S, s_m) C(T - s_m, k_o) positions: the
mover's private and shared squares, then the opponent's squares among the T - s_m
whose tiles the mover does not hold.
"""
from dataclasses import dataclass
from functools import cached_property, partial
from itertools import product
from math import comb
from types import SimpleNamespace

import numpy as np
from numba import njit

from .combinatorics import (BINOM, colex_rank, colex_unrank, deposit_bits, extract_bits,
                            popcount, squares_sum)
from .features import bit_planes, concat, field, one_hot, weighted_sum
from .heuristic import TEMPO, logistic
from .game import (AGAIN, LAYER_STRIDE, OVER, RULES_DOCS, Encoding, Game, PositionError,
                   Presentation, check_json_object, square_list)

NAME = "ur"
MAX_PIECES = 7
DEFAULT_PIECES = 7   # Finkel's; a rule set names its own
MAX_MOVES = MAX_PIECES + 1
PRIVATE_START = 4    # squares 1..4 of every path are the side's own
SIDES = ("light", "dark")

# The board: 3 rows of 8 columns, dark's own row on top (row 0), the middle row,
# light's own row (row 2); columns 4 and 5 of the outer rows are not tiles.
ROWS, COLS = 3, 8
GAPS = {(0, 4), (0, 5), (2, 4), (2, 5)}
ROSETTE_TILES = {(0, 0), (2, 0), (1, 3), (0, 6), (2, 6)}
CENTRAL_ROSETTE = 8   # the square of the middle row's rosette, on every path


def _row(row, cols):
    return tuple((row, c) for c in cols)


@dataclass(frozen=True)
class UrPath:
    """The tiles of light's track, square 1 first (row, column as on the board above);
    dark's track is its reflection across the middle row. The paths are royalur's
    path pairs (tests/test_rule_sets.py compares them tile by tile)."""
    name: str
    tiles: tuple
    title: str      # for people: "Bell's path"

    @property
    def track(self) -> int:
        return len(self.tiles)

    def dark_tile(self, square: int) -> tuple:
        row, col = self.tiles[square - 1]
        return ROWS - 1 - row, col

    @cached_property
    def across(self) -> dict:
        """Shared square of light's track -> the square of dark's track on its tile (the
        same map takes dark's squares to light's: the paths are reflections)."""
        dark = {self.dark_tile(s): s for s in range(1, self.track + 1)}
        return {s: dark[t] for s, t in enumerate(self.tiles, 1) if t in dark}

    @property
    def shared(self) -> int:
        return len(self.across)

    @property
    def rosettes(self) -> tuple:
        return tuple(s for s, t in enumerate(self.tiles, 1) if t in ROSETTE_TILES)

    def check(self):
        """The indexing takes squares 1..4 private, then the shared ones in a run."""
        shared = sorted(self.across)
        assert shared == list(range(PRIVATE_START + 1, PRIVATE_START + 1 + len(shared))), \
            self.name
        assert len(set(self.tiles)) == self.track and not GAPS & set(self.tiles), self.name


PATHS = {path.name: path for path in (
    UrPath("bell", _row(2, (3, 2, 1, 0)) + _row(1, range(8)) + _row(2, (7, 6)), "Bell's path"),
    UrPath("masters", _row(2, (3, 2, 1, 0)) + _row(1, range(7)) + _row(0, (6, 7))
           + _row(1, (7,)) + _row(2, (7, 6)), "Masters' path"),
)}


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
    safe_rosettes: bool = True      # no capture on a shared rosette
    again_on_rosette: bool = True   # landing on a rosette gives another throw
    again_on_capture: bool = False  # a capture gives another throw

    def check(self):
        """Refuse settings this module cannot play (one line each)."""
        if self.path not in PATHS:
            raise PositionError(f"ur rules {self.name!r}: no path {self.path!r} "
                                f"(paths: {', '.join(PATHS)})")
        if not 1 <= self.dice <= 4 or not 0 <= self.zero_counts_as <= 4:
            raise PositionError(f"ur rules {self.name!r}: 1..4 dice, a zero counting 0..4")
        if not 1 <= self.pieces <= MAX_PIECES:
            raise PositionError(f"ur rules {self.name!r}: pieces 1..{MAX_PIECES}")

    def throws(self) -> tuple[np.ndarray, np.ndarray]:
        """The possible throws and their chances."""
        chance = {}
        for marked in range(self.dice + 1):
            throw = self.throw_of(marked)
            chance[throw] = chance.get(throw, 0) + comb(self.dice, marked) / 2 ** self.dice
        throws = sorted(chance)
        return (np.array(throws, dtype=np.int64),
                np.array([chance[t] for t in throws], dtype=np.float64))

    def throw_of(self, marked: int) -> int:
        return self.zero_counts_as if marked == 0 and self.zero_counts_as else marked

    def marked_of(self, throw: int) -> int:
        """How many tips are marked in a throw (for drawing the dice)."""
        return next(m for m in range(self.dice + 1) if self.throw_of(m) == throw)


FINKEL = UrRules("finkel")
RULE_SETS = {}
RULES = FINKEL.name   # the default rule set


def register_rules(rules: UrRules):
    """Make a rule set available by its name (--rules NAME)."""
    rules.check()
    RULE_SETS[rules.name] = rules


# the rule sets of RoyalUr.net, as royalur's game settings (tests/test_rule_sets.py)
for _rules in (FINKEL,
               UrRules("masters", path="masters", dice=3, zero_counts_as=4,
                       safe_rosettes=False),
               UrRules("blitz", pieces=5, path="masters", safe_rosettes=False,
                       again_on_capture=True)):
    register_rules(_rules)


@njit(cache=True)
def pack(me, opp, me_waiting, opp_waiting, track):
    return me | (opp << track) | (me_waiting << (2 * track)) | (opp_waiting << (2 * track + 3))


def _bits(squares) -> int:
    return sum(1 << (s - 1) for s in squares)


def _named(function, name: str):
    """Compile a function made for one path or switch combination under its own name,
    kept in this module, where infra/numba_cache.py finds it when a cached kernel
    that took it as an argument is loaded."""
    function.__name__ = function.__qualname__ = name
    compiled = njit(cache=True)(function)
    globals()[name] = compiled
    return compiled


def _block_tables(track: int, shared: int):
    """Offsets of the (k_m, s_m, k_o) blocks inside every layer, and layer sizes."""
    private = track - shared
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
                for s_m in range(min(k_m, shared) + 1):
                    if k_m - s_m > private:
                        continue
                    for k_o in range(b + 1):
                        size = (BINOM[private, k_m - s_m] * BINOM[shared, s_m]
                                * BINOM[track - s_m, k_o])
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


def _across_bytes(path: UrPath) -> np.ndarray:
    """ACROSS[b, byte]: the bits of byte b of a mask of the mover's shared squares, as
    the squares of the other track on the same tiles."""
    table = np.zeros((4, 256), dtype=np.int64)
    for b in range(4):
        for byte in range(256):
            for j in range(8):
                square = 8 * b + j + 1
                if (byte >> j) & 1 and square in path.across:
                    table[b, byte] |= 1 << (path.across[square] - 1)
    return table


UR_THROW_P = np.array([0.0, 4 / 16, 6 / 16, 4 / 16, 1 / 16])       # P(exactly d), d > 0
UR_ROSETTE_BONUS = 4.0    # pips a piece on the central rosette (square 8) is worth


@njit(cache=True)
def _ur_pips(track, waiting, off):
    total = off * waiting
    for s in range(1, off):
        if (track >> (s - 1)) & 1:
            total += off - s
    return total


@njit(cache=True)
def _ur_exposure(target, attackers, attackers_waiting, probs, exposed, across):
    """Expected pips `target`'s side loses to one throw of the attacking side: a piece
    on an exposed square (shared, not a safe rosette) is sent home by an attacker 1..4
    squares behind its tile on the attacker's track."""
    loss = 0.0
    for d in range(1, len(across)):
        if not (exposed >> (d - 1)) & 1 or not (target >> (d - 1)) & 1:
            continue
        miss = 1.0
        for k in range(1, 5):
            s = across[d] - k
            if s == 0:
                hit = attackers_waiting > 0
            else:
                hit = (attackers >> (s - 1)) & 1
            if hit:
                miss *= 1.0 - probs[k]
        loss += (1.0 - miss) * d
    return loss


@njit(cache=True)
def other_track(mask, across_bytes, same):
    """A mask of one track's shared squares as the other track's squares on the same
    tiles (across_bytes: _across_bytes; same: the two numberings agree)."""
    if same:
        return mask
    out = 0
    b = 0
    while mask:
        out |= across_bytes[b, mask & 255]
        mask >>= 8
        b += 1
    return out


def _compile_path(path: UrPath) -> SimpleNamespace:
    """The compiled functions of one path, its facts as constants, and one move
    generator (and heuristic) per combination of the rule switches."""
    path.check()
    name = path.name
    T = path.track
    OFF = T + 1
    S = path.shared
    TRACK_MASK = (1 << T) - 1
    SHARED_MASK = ((1 << S) - 1) << PRIVATE_START
    ROSETTE_MASK = _bits(path.rosettes)
    SAFE_MASK = ROSETTE_MASK & SHARED_MASK
    ACROSS = np.zeros(OFF + 1, dtype=np.int64)   # square -> the other track's, 0: private
    for s, t in path.across.items():
        ACROSS[s] = t
    ACROSS_BYTES = _across_bytes(path)
    ACROSS_IS_SAME = all(s == t for s, t in path.across.items())
    OFFSET, BLOCK_START, BLOCK_KEY, N_BLOCKS, LAYER_SIZES = _block_tables(T, S)

    def mirror(code):
        return pack((code >> T) & TRACK_MASK, code & TRACK_MASK, (code >> (2 * T + 3)) & 7,
                    (code >> (2 * T)) & 7, T)

    def layer_of(code):
        a = ((code >> (2 * T)) & 7) + popcount(code & TRACK_MASK)
        b = ((code >> (2 * T + 3)) & 7) + popcount((code >> T) & TRACK_MASK)
        return a * LAYER_STRIDE + b

    def progress(code):
        """Squares travelled by the pieces on the board of both sides (borne-off pieces
        are constant inside a layer)."""
        return squares_sum(code & TRACK_MASK) + squares_sum((code >> T) & TRACK_MASK)

    def rank(code):
        me = code & TRACK_MASK
        opp = (code >> T) & TRACK_MASK
        k_m = popcount(me)
        k_o = popcount(opp)
        a = ((code >> (2 * T)) & 7) + k_m
        b = ((code >> (2 * T + 3)) & 7) + k_o
        me_shared = (me >> PRIVATE_START) & ((1 << S) - 1)
        s_m = popcount(me_shared)
        me_private = (me & 0xF) | ((me >> (PRIVATE_START + S)) << PRIVATE_START)
        mover = colex_rank(me_private) * BINOM[S, s_m] + colex_rank(me_shared)
        avail = TRACK_MASK & ~other_track(me & SHARED_MASK, ACROSS_BYTES, ACROSS_IS_SAME)
        opp_rank = colex_rank(extract_bits(opp, avail))
        return OFFSET[a, b, k_m, s_m, k_o] + mover * BINOM[T - s_m, k_o] + opp_rank

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
        n_opp = BINOM[T - s_m, k_o]
        mover = r // n_opp
        opp_rank = r % n_opp
        n_shared = BINOM[S, s_m]
        private = colex_unrank(mover // n_shared, k_m - s_m, T - S)
        shared = colex_unrank(mover % n_shared, s_m, S)
        me = ((private & 0xF) | (shared << PRIVATE_START)
              | ((private >> PRIVATE_START) << (PRIVATE_START + S)))
        avail = TRACK_MASK & ~other_track(me & SHARED_MASK, ACROSS_BYTES, ACROSS_IS_SAME)
        opp = deposit_bits(colex_unrank(opp_rank, k_o, T - s_m), avail)
        return pack(me, opp, a - k_m, b - k_o, T)

    def make_moves(safe_rosettes: bool, again_on_rosette: bool, again_on_capture: bool):
        def moves(code, throw, out_codes, out_info):
            me = code & TRACK_MASK
            opp = (code >> T) & TRACK_MASK
            me_waiting = (code >> (2 * T)) & 7
            opp_waiting = (code >> (2 * T + 3)) & 7
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
                    if ACROSS_IS_SAME:   # a constant: Bell's path needs no table
                        there = d if (SHARED_MASK >> (d - 1)) & 1 else 0
                    else:
                        there = ACROSS[d]
                    if there and (opp >> (there - 1)) & 1:
                        if safe_rosettes and (ROSETTE_MASK >> (d - 1)) & 1:
                            continue
                        new_opp &= ~(1 << (there - 1))
                        new_opp_waiting += 1
                        captured = True
                    new_me |= 1 << (d - 1)
                again = 1 if ((again_on_rosette and (ROSETTE_MASK >> (d - 1)) & 1)
                              or (again_on_capture and captured)) else 0
                over = 1 if (d == OFF and new_me == 0 and new_me_waiting == 0) else 0
                if again:
                    new = pack(new_me, new_opp, new_me_waiting, new_opp_waiting, T)
                else:
                    new = pack(new_opp, new_me, new_opp_waiting, new_me_waiting, T)
                out_codes[n] = new
                out_info[n] = a | (d << 5) | (again * AGAIN) | (over * OVER)
                n += 1
            return n
        return moves

    def make_heuristic(safe_rosettes: bool):
        exposed = SHARED_MASK & ~SAFE_MASK if safe_rosettes else SHARED_MASK

        def heuristic(code):
            """The hand-made evaluation (games/heuristic.py): race, exposure, the central
            rosette (made for Finkel's dice, and played with them under every rule set)."""
            me = code & TRACK_MASK
            opp = (code >> T) & TRACK_MASK
            me_waiting = (code >> (2 * T)) & 7
            opp_waiting = (code >> (2 * T + 3)) & 7
            score = _ur_pips(opp, opp_waiting, OFF) - _ur_pips(me, me_waiting, OFF) + TEMPO
            score += _ur_exposure(opp, me, me_waiting, UR_THROW_P, exposed, ACROSS)
            score -= 0.5 * _ur_exposure(me, opp, opp_waiting, UR_THROW_P, exposed, ACROSS)
            if (me >> (CENTRAL_ROSETTE - 1)) & 1:
                score += UR_ROSETTE_BONUS
            if (opp >> (CENTRAL_ROSETTE - 1)) & 1:
                score -= UR_ROSETTE_BONUS
            return logistic(score)
        return heuristic

    return SimpleNamespace(
        path=path, track=T, off=OFF, shared_mask=SHARED_MASK, layer_sizes=LAYER_SIZES,
        mirror=_named(mirror, f"mirror_{name}"), layer_of=_named(layer_of, f"layer_of_{name}"),
        progress=_named(progress, f"progress_{name}"), rank=_named(rank, f"rank_{name}"),
        unrank=_named(unrank, f"unrank_{name}"),
        # every combination made now: a cached kernel may name any of them
        moves={flags: _named(make_moves(*flags), f"moves_{name}_" + "".join(
            "1" if flag else "0" for flag in flags))
            for flags in product((False, True), repeat=3)},
        heuristic={safe: _named(make_heuristic(safe), f"heuristic_{name}_{int(safe)}")
                   for safe in (False, True)})


PATH_CODE = {name: _compile_path(path) for name, path in PATHS.items()}


def _squares(mask: int, track: int) -> list[int]:
    return [j + 1 for j in range(track) if (mask >> j) & 1]


def to_json(code: int, track: int) -> dict:
    code = int(code)
    mask = (1 << track) - 1
    return {"me": _squares(code & mask, track), "me_waiting": (code >> (2 * track)) & 7,
            "opp": _squares((code >> track) & mask, track),
            "opp_waiting": (code >> (2 * track + 3)) & 7}


_KEYS = ("me", "me_waiting", "opp", "opp_waiting")


def from_json(obj, pieces: int, path: UrPath) -> int:
    check_json_object(obj, _KEYS, "an Ur position", f"with keys {', '.join(_KEYS)}")
    T = path.track
    masks = []
    for side in ("me", "opp"):
        squares = square_list(obj, side, T, "track")
        waiting = obj[f"{side}_waiting"]
        if not isinstance(waiting, int) or isinstance(waiting, bool) or waiting < 0:
            raise PositionError(f'"{side}_waiting" must be a whole number >= 0')
        if len(squares) + waiting > pieces:
            raise PositionError(f'"{side}" has {len(squares) + waiting} pieces in play, '
                                f'more than pieces={pieces}')
        masks.append(_bits(squares))
    clash = [s for s in obj["me"] if path.across.get(s) in obj["opp"]]
    if clash:
        raise PositionError(f"both sides on the tile of shared square {clash[0]}")
    return int(pack(masks[0], masks[1], obj["me_waiting"], obj["opp_waiting"], T))


def _tile_squares(path: UrPath) -> dict:
    """(row, col) -> {seat: square}: which square of each seat's track is on a tile."""
    tiles = {}
    for square in range(1, path.track + 1):
        tiles.setdefault(path.tiles[square - 1], {})[0] = square
        tiles.setdefault(path.dark_tile(square), {})[1] = square
    return tiles


def draw(code: int, pieces: int, first_to_throw: bool, rules: UrRules = FINKEL) -> str:
    """The board in plain text, light (who throws first) at the bottom, and light's
    track numbered below it."""
    path = PATHS[rules.path]
    position = to_json(code, path.track)
    keys = ("me", "opp") if first_to_throw else ("opp", "me")
    on = [set(position[key]) for key in keys]
    waiting = [position[f"{key}_waiting"] for key in keys]
    off = [pieces - waiting[seat] - len(on[seat]) for seat in (0, 1)]
    tiles = _tile_squares(path)

    def cell(row, col):
        squares = tiles.get((row, col))
        if squares is None:
            return "   "
        for seat, mark in ((0, "L"), (1, "D")):
            if squares.get(seat) in on[seat]:
                return f"[{mark}]"
        return "[*]" if (row, col) in ROSETTE_TILES else "[ ]"

    rows = ["".join(cell(row, col) for col in range(COLS)) for row in range(ROWS)]
    track = "".join(f"{tiles[(row, col)].get(0, '.')!s:>3}" if (row, col) in tiles else "   "
                    for row in range(ROWS) for col in range(COLS))
    width = 3 * COLS
    numbers = [track[i:i + width] for i in range(0, len(track), width)]
    safe = "; the shared ones are safe" if rules.safe_rosettes else ""
    return (f"  dark  {rows[0]}   waiting {waiting[1]}, borne off {off[1]}\n"
            f"        {rows[1]}   (* rosette{': throw again' * rules.again_on_rosette}{safe})\n"
            f"  light {rows[2]}   waiting {waiting[0]}, borne off {off[0]}\n"
            f"  light's track, {path.title} ({path.track} squares; dark's is its "
            "reflection):\n" + "\n".join(f"       {line}" for line in numbers))


def cell(seat: int, square: int, path: UrPath) -> str:
    """The board cell of square 0..T+1 of seat's track (0: light, who throws first):
    a shared tile is named by light's square on it."""
    if square == 0:
        return f"wait{seat}"
    if square == path.track + 1:
        return f"off{seat}"
    if square in path.across:
        return f"m{square if seat == 0 else path.across[square]}"
    return f"{'ld'[seat]}{square}"


def _layout(rules: UrRules, throws) -> dict:
    """The board's cells for drawing (dark's row on top, the middle row, light's row;
    a tile's label is its square on each track that runs over it), each side's path
    as cells in order, a legend, and the dice."""
    path = PATHS[rules.path]
    cells = []
    for (row, col), squares in sorted(_tile_squares(path).items()):
        seat, square = min(squares.items())
        rosette = (row, col) in ROSETTE_TILES
        safe = rosette and rules.safe_rosettes and len(squares) == 2
        numbers = dict.fromkeys(squares[s] for s in sorted(squares))
        title = " and ".join(f"{SIDES[s]}'s {squares[s]}" for s in sorted(squares))
        cells.append({"id": cell(seat, square, path), "row": row, "col": col,
                      "label": "/".join(map(str, numbers)),
                      "title": title + (", a safe rosette" if safe else
                                        ", a rosette" if rosette else ""),
                      "mark": "rosette safe" if safe else "rosette" if rosette else ""})
    return {"rows": ROWS, "cols": COLS, "cells": cells, "pools": ["wait", "off"],
            "paths": [[cell(seat, s, path) for s in range(1, path.track + 1)]
                      for seat in (0, 1)],
            "legend": _legend(rules, path),
            "dice": {"name": "four-sided dice", "count": rules.dice,
                     "marked": {str(t): rules.marked_of(int(t)) for t in throws}}}


def _legend(rules: UrRules, path: UrPath) -> str:
    """The rule set in one paragraph, for the board's legend."""
    dice = f"{rules.dice} four-sided dice"
    if rules.zero_counts_as:
        dice += f", a throw of 0 counting as {rules.zero_counts_as}"
    again = [what for what, on in (("on a rosette", rules.again_on_rosette),
                                   ("after a capture", rules.again_on_capture)) if on]
    return (f"{rules.name.title()} rules: {path.title} (the dashed lines), {dice}; "
            + (f"throw again {' or '.join(again)}; " if again else "")
            + ("a piece on a shared rosette is safe." if rules.safe_rosettes
               else "no rosette is safe."))


def view(code: int, pieces: int, first_to_throw: bool, path: UrPath) -> dict:
    """Which seat's piece is on each cell, and each seat's waiting and borne-off counts."""
    position = to_json(code, path.track)
    keys = ("me", "opp") if first_to_throw else ("opp", "me")
    cells, waiting, off = {}, [], []
    for seat, key in enumerate(keys):
        for square in position[key]:
            cells[cell(seat, square, path)] = seat
        waiting.append(position[f"{key}_waiting"])
        off.append(pieces - position[f"{key}_waiting"] - len(position[key]))
    return {"cells": cells, "waiting": waiting, "off": off}


def events(code: int, move: dict, path: UrPath) -> list[str]:
    """What a move does, in words (the throw again and the win are said by the caller)."""
    said = []
    if move["from"] == 0:
        said.append("enters a piece")
    there = path.across.get(move["to"])
    if move["to"] == path.track + 1:
        said.append("bears a piece off")
    elif there in to_json(code, path.track)["opp"]:
        said.append(f"captures the piece on {move['to']}: it goes back to waiting")
    if move["again"] and move["to"] in path.rosettes:
        said.append("lands on a rosette")
    return said


def features(codes, pieces: int, track: int):
    """Network input of a batch of codes (torch int64), for a path of `track` squares
    (features_doc says what the inputs are)."""
    off = track + 1
    me = bit_planes(codes, 0, track)
    opp = bit_planes(codes, track, track)
    me_waiting = field(codes, 2 * track, 3)
    opp_waiting = field(codes, 2 * track + 3, 3)
    me_off = pieces - me_waiting - me.sum(1).long()
    opp_off = pieces - opp_waiting - opp.sum(1).long()
    to_go = [float(off - s) for s in range(1, track + 1)]
    scale = 1.0 / (off * pieces)
    me_pips = (weighted_sum(me, to_go) + off * me_waiting.unsqueeze(1).float()) * scale
    opp_pips = (weighted_sum(opp, to_go) + off * opp_waiting.unsqueeze(1).float()) * scale
    return concat([me, opp, one_hot(me_waiting, pieces + 1), one_hot(opp_waiting, pieces + 1),
                   one_hot(me_off, pieces + 1), one_hot(opp_off, pieces + 1), me_pips, opp_pips])


def features_doc(track: int) -> str:
    """What `features` computes; for Bell's path to the letter the text the shipped
    models carry."""
    off = track + 1
    return (f"Network input of a batch of codes (torch int64): occupancy of the {track} track "
            "squares of each side, one-hot waiting and borne-off counts (0..pieces) of each "
            f"side, and each side's pips to go ({off} per waiting piece, {off} - s on square "
            f"s) divided by {off} * pieces: {2 * track} + 4 * (pieces + 1) + 2 inputs "
            f"({n_features(MAX_PIECES, track)} for 7 pieces).")


def n_features(pieces: int, track: int) -> int:
    return 2 * track + 4 * (pieces + 1) + 2


def code_layout(rules: UrRules) -> str:
    """The packed code described for model manifests (tabula.code_layout), naming the
    rule set; for Finkel's to the letter the text the shipped models carry."""
    path = PATHS[rules.path]
    T, S = path.track, path.shared
    shared = f"{PRIVATE_START + 1}..{PRIVATE_START + S}"
    moved = {s: t for s, t in path.across.items() if s != t}
    same = (f"square k of one track is square k of the other,\nbut for "
            f"{', '.join(map(str, moved))}, which are {', '.join(map(str, moved.values()))} "
            "of the other" if moved else "square k of one track is square k of the other")
    return (f"The Royal Game of Ur, rule set `{rules.name}` (docs/rules/ur.md).\n\n"
            "Packed code (int64), seen by the player about to throw:\n"
            f"  bits {f'0..{T - 1}':>6}  mover's pieces on track squares 1..{T} "
            "(bit j-1 = square j)\n"
            f"  bits {T}..{2 * T - 1}  opponent's pieces on their track squares 1..{T}\n"
            f"  bits {2 * T}..{2 * T + 2}  mover's waiting pieces\n"
            f"  bits {2 * T + 3}..{2 * T + 5}  opponent's waiting pieces\n"
            f"Squares {shared} are shared: {same}.\n\n"
            "Layer (a, b): a, b = pieces still in play (waiting + on the board) of mover and\n"
            "opponent. Inside a layer positions fall into blocks by (k_m, s_m, k_o): mover's\n"
            "pieces on the board, how many of them on shared squares, opponent's pieces on\n"
            f"the board. A block holds C({T - S}, k_m - s_m) C({S}, s_m) C({T} - s_m, k_o) "
            "positions:\nthe mover's private and shared squares, then the opponent's "
            f"squares among the\n{T} - s_m not taken by the mover.")


def make(pieces: int | None = None, rules: UrRules = FINKEL) -> Game:
    pieces = rules.pieces if pieces is None else pieces
    if not 1 <= pieces <= MAX_PIECES:
        raise PositionError(f"ur takes pieces 1..{MAX_PIECES}, not {pieces}")
    path = PATHS[rules.path]
    code = PATH_CODE[rules.path]
    throws, probs = rules.throws()
    layers = tuple((a, b) for a in range(pieces + 1) for b in range(pieces + 1))
    return Game(name=NAME, rules=rules.name, pieces=pieces, throws=throws, probs=probs,
                max_moves=MAX_MOVES, layers=layers,
                layer_size=lambda a, b: int(code.layer_sizes[a, b]),
                start=int(pack(0, 0, pieces, pieces, path.track)),
                moves=code.moves[(rules.safe_rosettes, rules.again_on_rosette,
                                  rules.again_on_capture)],
                mirror=code.mirror, layer_of=code.layer_of, rank=code.rank,
                unrank=code.unrank, progress=code.progress,
                to_json=partial(to_json, track=path.track),
                from_json=partial(from_json, path=path),
                heuristic=code.heuristic[rules.safe_rosettes],
                encoding=Encoding(partial(features, pieces=pieces, track=path.track),
                                  n_features(pieces, path.track), features_doc(path.track)),
                presentation=Presentation(
                    sides=SIDES,
                    square_names={0: "enter", path.track + 1: "off"},
                    layout=_layout(rules, throws), draw=partial(draw, pieces=pieces, rules=rules),
                    view=partial(view, pieces=pieces, path=path), cell=partial(cell, path=path),
                    events=partial(events, path=path), code_layout=code_layout(rules),
                    rules_file=RULES_DOCS / "ur.md"))
