"""Backgammon bear-offs, rule set `gnubg` (docs/rules/bearoff.md): each side has at most
`pieces` checkers left on its six home points, no contact, two dice.

Packed code (int64), seen by the player about to throw:
  bits  0..23  mover's checkers: 4 bits a point, point p (p pips from off) in bits 4(p-1)..
  bits 24..47  opponent's checkers, the same way
A side's checkers are a composition of its count a into six points; it is ranked
among the C(a + 5, 5) compositions by the colex rank of its stars-and-bars bit
string (c1 ones, a zero, c2 ones, ..., c6 ones). Layer (a, b) = checkers left of
mover and opponent; rank = side rank of the mover * C(b + 5, 5) + side rank of the
opponent. A throw is two dice written as one number, the higher die first (6-1 is 61).
"""
from functools import partial

import numpy as np
from numba import njit

from .backgammon_rules import PROBS, THROWS
from .cube import Cube
from .combinatorics import BINOM, colex_rank, colex_unrank
from .features import concat, field, one_hot
from .game import (LAYER_STRIDE, OVER, RULES_DOCS, Capabilities, Encoding, Flag, Game,
                   PositionError, Presentation, Race, bear_off_successors, check_json_object,
                   whole_numbers)
from .heuristic import logistic

NAME = "bearoff"
FLAGS = (Flag("checkers", "pieces", "checkers a side (bearoff)"),)
RULES = "gnubg"
MAX_PIECES = 15
DEFAULT_PIECES = 6
POINTS = 6
TOTAL_CHECKERS = 15    # each side started with 15: a loser with all 15 left loses a gammon
OFF = 0
SIDE_BITS = 24
SIDE_MASK = (1 << SIDE_BITS) - 1
MAX_MOVES = 128        # distinct results of one throw (checked over every position by the tests)
SIDES = ("white", "black")
ROLL_TEMPO = 4.0       # pips the player on roll is ahead: about half an average roll
SQUARE_NAMES = {OFF: "off"}


@njit(cache=True)
def count_on(side, p):
    return (side >> (4 * (p - 1))) & 15


@njit(cache=True)
def side_checkers(side):
    total = 0
    for p in range(1, POINTS + 1):
        total += count_on(side, p)
    return total


@njit(cache=True)
def side_pips(side):
    total = 0
    for p in range(1, POINTS + 1):
        total += p * count_on(side, p)
    return total


@njit(cache=True)
def _play_die(side, d, out, n):
    """Append to out[n:] the sides after playing one die d (a checker from p > d to p - d,
    from p = d off, or, when d is above every checker, off from the highest point);
    return the new count. A side with no checker left stays as it is."""
    if side == 0:
        out[n] = 0
        return n + 1
    highest = POINTS
    while count_on(side, highest) == 0:
        highest -= 1
    for p in range(1, highest + 1):
        if count_on(side, p) == 0:
            continue
        if p > d:
            out[n] = side - (1 << (4 * (p - 1))) + (1 << (4 * (p - d - 1)))
            n += 1
        elif p == d or p == highest:
            out[n] = side - (1 << (4 * (p - 1)))
            n += 1
    return n


@njit(cache=True)
def _distinct(values, n):
    """Sort values[:n] in place and keep each value once; return the new count."""
    values[:n].sort()
    kept = 0
    for i in range(n):
        if kept == 0 or values[i] != values[kept - 1]:
            values[kept] = values[i]
            kept += 1
    return kept


@njit(cache=True)
def _play_dice(side, first, second, times, out, n):
    """Append the sides after playing `first` then `second` (each `times` times in turn:
    a double plays its number four times); return the new count."""
    frontier = np.empty(POINTS * MAX_MOVES, dtype=np.int64)
    nxt = np.empty(POINTS * MAX_MOVES, dtype=np.int64)
    frontier[0] = side
    size = 1
    for step in range(2 * times):
        d = first if step % 2 == 0 else second
        m = 0
        for i in range(size):
            m = _play_die(frontier[i], d, nxt, m)
        size = _distinct(nxt, m)
        frontier, nxt = nxt, frontier
    for i in range(size):
        out[n + i] = frontier[i]
    return n + size


@njit(cache=True)
def side_moves(side, throw, out):
    """The distinct sides after playing `throw` (every die can always be played while a
    checker is left, so a move uses both dice, or all four of a double, until the side
    is off; 0 = all borne off); returns their count."""
    hi = throw // 10
    lo = throw % 10
    if hi == lo:
        n = _play_dice(side, hi, hi, 2, out, 0)
    else:
        n = _play_dice(side, hi, lo, 1, out, 0)
        n = _play_dice(side, lo, hi, 1, out, n)
    return _distinct(out, n)


@njit(cache=True)
def mirror(code):
    return (code >> SIDE_BITS) | ((code & SIDE_MASK) << SIDE_BITS)


@njit(cache=True)
def moves(code, throw, out_codes, out_info):
    me = code & SIDE_MASK
    opp = code >> SIDE_BITS
    n = side_moves(me, throw, out_codes)
    for i in range(n):
        after = out_codes[i]
        out_info[i] = _label(me, after)
        if after == 0:
            out_info[i] |= OVER
        out_codes[i] = opp | (after << SIDE_BITS)
    return n


@njit(cache=True)
def _label(before, after):
    """from = the highest point that lost a checker, to = the lowest point that gained
    one (0: off): only a label for people, the move is its resulting position."""
    frm = 0
    to = 0
    for p in range(POINTS, 0, -1):
        if count_on(after, p) < count_on(before, p) and frm == 0:
            frm = p
    for p in range(1, POINTS + 1):
        if count_on(after, p) > count_on(before, p):
            to = p
            break
    if side_checkers(after) < side_checkers(before):
        to = OFF
    return frm | (to << 5)


@njit(cache=True)
def progress(code):
    """Pips already gone of both sides (of at most 2 * 15 * 6)."""
    return 2 * TOTAL_CHECKERS * POINTS - side_pips(code & SIDE_MASK) - side_pips(code >> SIDE_BITS)


@njit(cache=True)
def _side_rank(side):
    mask = 0
    cell = 0
    for p in range(1, POINTS + 1):
        for _ in range(count_on(side, p)):
            mask |= 1 << cell
            cell += 1
        cell += 1
    return colex_rank(mask)


@njit(cache=True)
def _side_unrank(a, r):
    mask = colex_unrank(r, a, a + POINTS - 1)
    side = 0
    p = 1
    for cell in range(a + POINTS - 1):
        if (mask >> cell) & 1:
            side += 1 << (4 * (p - 1))
        else:
            p += 1
    return side


@njit(cache=True)
def side_index(side):
    """Dense index among all sides of 0..15 checkers, fewer checkers first (0: none left)."""
    return BINOM[side_checkers(side) + POINTS - 1, POINTS] + _side_rank(side)


@njit(cache=True)
def side_of_index(index):
    a = 0
    while BINOM[a + POINTS, POINTS] <= index:
        a += 1
    return _side_unrank(a, index - BINOM[a + POINTS - 1, POINTS])


def n_sides(pieces: int) -> int:
    """Sides of 0..pieces checkers: C(pieces + 6, 6)."""
    return int(BINOM[pieces + POINTS, POINTS])


@njit(cache=True)
def layer_of(code):
    return side_checkers(code & SIDE_MASK) * LAYER_STRIDE + side_checkers(code >> SIDE_BITS)


@njit(cache=True)
def rank(code):
    opp = code >> SIDE_BITS
    return (_side_rank(code & SIDE_MASK) * BINOM[side_checkers(opp) + POINTS - 1, POINTS - 1]
            + _side_rank(opp))


@njit(cache=True)
def unrank(layer, r):
    a = layer // LAYER_STRIDE
    b = layer % LAYER_STRIDE
    n_opp = BINOM[b + POINTS - 1, POINTS - 1]
    return _side_unrank(a, r // n_opp) | (_side_unrank(b, r % n_opp) << SIDE_BITS)


def layer_size(a: int, b: int) -> int:
    return int(BINOM[a + POINTS - 1, POINTS - 1] * BINOM[b + POINTS - 1, POINTS - 1])


def side_counts(side: int) -> list[int]:
    return [int(side >> (4 * p)) & 15 for p in range(POINTS)]


def side_from_counts(counts) -> int:
    return int(sides_from_counts(np.asarray([counts]))[0])


def sides_from_counts(counts: np.ndarray) -> np.ndarray:
    """The sides of counts on the last axis (counts[..., p - 1]: checkers on point p)."""
    return np.asarray(counts, dtype=np.int64) @ (np.int64(1) << (4 * np.arange(POINTS)))


def to_json(code: int) -> dict:
    code = int(code)
    return {"me": side_counts(code & SIDE_MASK), "opp": side_counts(code >> SIDE_BITS)}


def from_json(obj, pieces: int) -> int:
    check_json_object(obj, ("me", "opp"), "a bear-off position",
                      '{"me": [c1, ..., c6], "opp": [c1, ..., c6]} (checkers on points 1..6)')
    sides = []
    for key in ("me", "opp"):
        counts = obj[key]
        if not whole_numbers(counts) or len(counts) != POINTS:
            raise PositionError(f'"{key}" must be a list of six whole numbers: the checkers '
                                'on points 1..6')
        if any(c < 0 for c in counts):
            raise PositionError(f'"{key}" has a negative number of checkers')
        if not 1 <= sum(counts) <= pieces:
            raise PositionError(f'"{key}" has {sum(counts)} checkers left; a game in progress '
                                f'has 1..{pieces} (checkers={pieces})')
        sides.append(side_from_counts(counts))
    return sides[0] | (sides[1] << SIDE_BITS)


@njit(cache=True)
def _wastage_pips(side):
    """Pips to go plus the usual allowance for wasted pips (gaps and stacks) in a bear-off."""
    n = side_checkers(side)
    return side_pips(side) + 2.0 * count_on(side, 1) + 1.0 * count_on(side, 2) + 0.5 * n


@njit(cache=True)
def heuristic(code):
    """The hand-made evaluation (games/heuristic.py): the race, with wastage."""
    score = _wastage_pips(code >> SIDE_BITS) - _wastage_pips(code & SIDE_MASK) + ROLL_TEMPO
    return logistic(score)


def draw(code: int, pieces: int, first_to_throw: bool) -> str:
    """Each side's six home points, checkers counted on each."""
    position = to_json(code)
    white, black = ((position["me"], position["opp"]) if first_to_throw
                    else (position["opp"], position["me"]))
    lines = ["  point:  " + "".join(f"{p:>4}" for p in range(POINTS, 0, -1)) + "     off"]
    for name, counts in (("white", white), ("black", black)):
        row = "".join(f"{c or '.':>4}" for c in reversed(counts))
        pips = sum(p * c for p, c in enumerate(counts, start=1))
        lines.append(f"  {name}:  {row}   {pieces - sum(counts):>5}   {pips} pips")
    return "\n".join(lines) + f"\n  (point p is p pips from off; {pieces} checkers at most)"


def checker_steps(before: list[int], after: list[int], throw: int) -> list[tuple]:
    """Each checker's step of a move, (point, point or OFF), in the order played: the
    checkers on points 1..6 before and after it, found by playing the roll's dice one at
    a time, the higher first, then the other order (a move's dice that cannot all be
    used end early)."""
    high, low = divmod(throw, 10)
    orders = [[high] * 4] if high == low else [[high, low], [low, high]]

    def steps(counts, dice):
        if counts == after:
            return []
        if not dice or not any(counts):
            return None
        die, highest = dice[0], max(p for p in range(1, POINTS + 1) if counts[p - 1])
        for p in range(POINTS, 0, -1):
            to = p - die if p > die else 0
            if not counts[p - 1] or (to == 0 and p != die and p != highest):
                continue
            played = list(counts)
            played[p - 1] -= 1
            if to:
                played[to - 1] += 1
            rest = steps(played, dice[1:])
            if rest is not None:
                return [(p, to)] + rest
        return None
    found = next((s for s in (steps(list(before), order) for order in orders) if s is not None),
                 None)
    if found is None:
        raise PositionError(f"no play of {high}-{low} takes {before} to {after}")
    return found


def notation(before: list[int], after: list[int], throw: int) -> str:
    """A move as backgammon writes it ('6/2 5/off', '6/3(2)'), from the checkers on
    points 1..6 before and after it (checker_steps)."""
    texts = [f"{p}/{to or 'off'}" for p, to in sorted(checker_steps(before, after, throw),
                                                      reverse=True)]
    return " ".join(f"{t}({texts.count(t)})" if texts.count(t) > 1 else t
                    for t in dict.fromkeys(texts))


def move_notation(code: int, next_code: int, throw: int, seat: int = 0) -> str:
    """The move from `code` to `next_code` (seen by the next player) in notation (each
    side numbers its own points: the same for either seat)."""
    return notation(to_json(code)["me"], to_json(next_code)["opp"], throw)


def move_steps(code: int, next_code: int, throw: int) -> list[tuple]:
    """The move from `code` to `next_code`, checker by checker, for the page to show."""
    return checker_steps(to_json(code)["me"], to_json(next_code)["opp"], throw)


def dice_text(throw: int) -> str:
    """A roll as people write it: '6-2' (a throw is high * 10 + low)."""
    return f"{throw // 10}-{throw % 10}"


def cell(seat: int, square: int) -> str:
    """The cell of a seat's point 1..6 (0: borne off)."""
    return f"off{seat}" if square == OFF else f"p{seat}-{square}"


def _layout() -> dict:
    """Two rows of six points, the opponent's on top, point 6 on the left, and each
    side's tray for the checkers borne off at the right end of its row (a cell that
    shows the seat's "off" pool)."""
    cells = [{"id": cell(seat, p), "row": 1 - seat, "col": POINTS - p, "label": str(p),
              "mark": ""} for seat in (0, 1) for p in range(1, POINTS + 1)]
    cells += [{"id": cell(seat, OFF), "row": 1 - seat, "col": POINTS, "label": "off",
               "mark": "tray", "pool": ["off", seat]} for seat in (0, 1)]
    return {"rows": 2, "cols": POINTS + 1, "cells": cells, "pools": [],
            "dice": {"name": "dice", "count": 2, "faces": 6},   # dice shown by their faces
            "moves": "listed"}   # a move is a whole roll's play: chosen from the list


def view(code: int, pieces: int, first_to_throw: bool) -> dict:
    """Which seat has checkers on each point (how many: `stacks`), each seat's
    borne-off count of the `pieces` in play, and its pips to go."""
    position = to_json(code)
    keys = ("me", "opp") if first_to_throw else ("opp", "me")
    cells, stacks = {}, {}
    for seat, key in enumerate(keys):
        for p, c in enumerate(position[key], start=1):
            if c:
                cells[cell(seat, p)] = seat
                stacks[cell(seat, p)] = c
    return {"cells": cells, "stacks": stacks, "waiting": [0, 0],
            "off": [pieces - sum(position[key]) for key in keys],
            "pips": [sum(p * c for p, c in enumerate(position[key], start=1)) for key in keys]}


def events(code: int, move: dict) -> list[str]:
    """What a move does, in words."""
    before = side_counts(int(code) & SIDE_MASK)
    after = to_json(move["position"])["opp"]   # the next player's view: the mover is opp
    off = sum(before) - sum(after)
    return [f"bears off {off} checker{'s' if off != 1 else ''}"] if off else []


def features(codes, pieces: int):
    """Network input of a batch of codes (torch int64): for each side (mover first),
    for each point 1..6 whether it holds at least 1, 2 and 3 checkers and its count /
    15, then the side's pips to go / 90 and its checkers left (0..pieces) one-hot:
    2 * (24 + 1 + pieces + 1) inputs."""
    parts = []
    for first_bit in (0, SIDE_BITS):
        pips = left = None
        for p in range(1, POINTS + 1):
            count = field(codes, first_bit + 4 * (p - 1), 4)
            at_least = count.unsqueeze(1) >= codes.new_tensor([1, 2, 3])
            parts += [at_least.float(), count.unsqueeze(1).float() / TOTAL_CHECKERS]
            pips = count * p if pips is None else pips + count * p
            left = count if left is None else left + count
        parts += [pips.unsqueeze(1).float() / (TOTAL_CHECKERS * POINTS),
                  one_hot(left, pieces + 1)]
    return concat(parts)


def n_features(pieces: int) -> int:
    return 2 * (POINTS * 4 + 1 + pieces + 1)


def _start(pieces: int) -> int:
    """Both sides' `pieces` checkers spread evenly from point 6 down (a typical first
    bear-off position; play usually starts from random positions instead)."""
    counts = [0] * POINTS
    for i in range(pieces):
        counts[POINTS - 1 - i % POINTS] += 1
    side = side_from_counts(counts)
    return side | (side << SIDE_BITS)


MAX_OFF = 4   # a double bears off up to four checkers
CAPABILITIES = Capabilities(acyclic=True, has_gammons=True)
RACE = Race(side_bits=SIDE_BITS, side_moves=side_moves, side_index=side_index,
            side_of_index=side_of_index, n_sides=n_sides, side_pips=side_pips,
            side_checkers=side_checkers, gammon_checkers=TOTAL_CHECKERS)


def make(pieces: int = DEFAULT_PIECES) -> Game:
    if not 1 <= pieces <= MAX_PIECES:
        raise PositionError(f"bearoff takes checkers 1..{MAX_PIECES}, not {pieces}")
    layers = tuple((a, b) for a in range(1, pieces + 1) for b in range(1, pieces + 1))
    return Game(name=NAME, rules=RULES, pieces=pieces, throws=THROWS, probs=PROBS,
                max_moves=MAX_MOVES, layers=layers, layer_size=layer_size, start=_start(pieces),
                moves=moves, mirror=mirror, layer_of=layer_of, rank=rank, unrank=unrank,
                progress=progress, to_json=to_json, from_json=from_json, heuristic=heuristic,
                successor_layers=bear_off_successors(MAX_OFF), capabilities=CAPABILITIES,
                race=RACE, cube=Cube(), win_size=RACE.win_points, deal=partial(RACE.deal, pieces),
                encoding=Encoding(partial(features, pieces=pieces), n_features(pieces)),
                presentation=Presentation(
                    sides=SIDES, square_names=SQUARE_NAMES, layout=_layout(),
                    draw=partial(draw, pieces=pieces), view=partial(view, pieces=pieces),
                    cell=cell, events=events, code_layout=__doc__.strip(),
                    rules_file=RULES_DOCS / "bearoff.md", notation=move_notation,
                    steps=move_steps,
                    throw_text=dice_text))
