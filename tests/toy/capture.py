"""Toy capture game: a small board where the throw picks the piece and a piece landing
on any other removes it for good, written against the game contract (games/game.py)
to prove what races do not: layers that lose the opponent's pieces, a mover's choice
left by the throw, and a one-pass (acyclic) solve.

Rules (tests/toy/capture.md): a 3 x 3 board, squares 0..8 row by row. Each side has
1..3 pieces; the side that throws first starts on the first of squares 0, 1, 3 and
steps right, down or diagonally down-right towards square 8; the other starts on the
first of squares 8, 7, 5 and steps the opposite way towards square 0. A die with as
many faces as pieces a side: a throw of t moves the mover's t-th piece in square
order, counted from its own start corner; with fewer than t pieces left, the mover
chooses any of them. A piece stepping onto any piece, its own side's or the other's,
removes it from the game. A side wins when a piece reaches its goal corner or when
the other side has no piece left. The turn always passes. (A piece reaching its goal
leaves the board, so that the position after a win is one of the game's.) Under the
rule set "money" it is played for money with the doubling cube (games/cube.py): a game
with contact and a cube that is not a race. Under the rule set "setup" each side with
fewer than three pieces first picks which of its start squares they stand on (a set-up,
as EinStein's sides arrange their cubes: games/state.py).

Packed code (int64), seen by the player about to throw, in that player's frame (it
moves towards square 8; the mirror turns the board by half a turn):
  bits 0..8   mover's pieces (bit s = square s)
  bits 9..17  opponent's pieces
Layer (a, b): pieces left to mover and opponent. Inside a layer, two blocks: the mover
off square 0, then on it; in each, the colex rank of the mover's squares 1..7 times
C(squares left to the opponent, b), plus the colex rank of the opponent's squares
among squares 1..8 not taken by the mover.
"""
from dataclasses import dataclass
from functools import partial
from itertools import combinations
from pathlib import Path

import numpy as np
from numba import njit

from tabula.games.combinatorics import (BINOM, colex_rank, colex_unrank, deposit_bits,
                                        extract_bits, popcount)
from tabula.games.cube import Cube
from tabula.games.features import bit_planes, concat
from tabula.games.game import (LAYER_STRIDE, OVER, Capabilities, Encoding, Game, PositionError,
                               Presentation, Setup, capture_successors, check_json_object,
                               whole_numbers)
from tabula.games.heuristic import TEMPO, logistic

NAME = "toycapture"
RULES = "toy"


@dataclass(frozen=True)
class CaptureRules:
    """A rule set: the cube the game is played with, and whether each side first picks
    its start squares."""
    cube: Cube | None = None
    set_up: bool = False


RULE_SETS = {"toy": CaptureRules(), "money": CaptureRules(cube=Cube()),
             "setup": CaptureRules(set_up=True)}
MAX_PIECES = 3
DEFAULT_PIECES = 2
SIDE = 3
SQUARES = SIDE * SIDE
GOAL = SQUARES - 1
BOARD = (1 << SQUARES) - 1
BEHIND_GOAL = BOARD & ~(1 << GOAL) & ~1     # squares 1..7
OPEN_TO_OPPONENT = BOARD & ~1               # squares 1..8: the opponent's goal is 0
STARTS = (0, 1, 3)
SIDES = ("red", "blue")
MAX_MOVES = MAX_PIECES * 3


@njit(cache=True)
def mirror(code):
    """The other side's view: sides swapped, every square s turned to 8 - s."""
    me = code & BOARD
    opp = code >> SQUARES
    turned_me = 0
    turned_opp = 0
    for s in range(SQUARES):
        turned_me |= ((me >> s) & 1) << (GOAL - s)
        turned_opp |= ((opp >> s) & 1) << (GOAL - s)
    return turned_opp | (turned_me << SQUARES)


@njit(cache=True)
def _piece_squares(mask, out):
    n = 0
    for s in range(SQUARES):
        if (mask >> s) & 1:
            out[n] = s
            n += 1
    return n


@njit(cache=True)
def moves(code, throw, out_codes, out_info):
    me = code & BOARD
    opp = code >> SQUARES
    squares = np.empty(MAX_PIECES, dtype=np.int64)
    count = _piece_squares(me, squares)
    first, last = (throw - 1, throw) if throw <= count else (0, count)
    n = 0
    for i in range(first, last):
        s = squares[i]
        r, c = s // SIDE, s % SIDE
        for dr, dc in ((0, 1), (1, 0), (1, 1)):
            if r + dr >= SIDE or c + dc >= SIDE:
                continue
            d = (r + dr) * SIDE + c + dc
            new_me = (me & ~(1 << s)) | (1 << d)
            new_opp = opp & ~(1 << d)
            if d == GOAL:   # the piece leaves the board: the game is won
                new_me &= ~(1 << d)
            new = mirror(new_me | (new_opp << SQUARES))
            seen = False
            for k in range(n):
                seen |= out_codes[k] == new
            if seen:   # onto either of two own pieces: the same position
                continue
            out_codes[n] = new
            out_info[n] = s | (d << 5) | (OVER if d == GOAL or new_opp == 0 else 0)
            n += 1
    return n


@njit(cache=True)
def layer_of(code):
    return popcount(code & BOARD) * LAYER_STRIDE + popcount(code >> SQUARES)


@njit(cache=True)
def _block(a, b, on_zero):
    """Positions of layer (a, b) with the mover off square 0 (on_zero 0) or on it."""
    mover = a - on_zero
    return BINOM[SQUARES - 2, mover] * BINOM[SQUARES - 1 - mover, b]


@njit(cache=True)
def rank(code):
    me = code & BOARD
    opp = code >> SQUARES
    on_zero = me & 1
    mover = popcount(me) - on_zero
    b = popcount(opp)
    n_opp = BINOM[SQUARES - 1 - mover, b]
    avail = OPEN_TO_OPPONENT & ~me
    first = _block(mover + on_zero, b, 0) if on_zero else 0
    return (first + colex_rank((me & BEHIND_GOAL) >> 1) * n_opp
            + colex_rank(extract_bits(opp, avail)))


@njit(cache=True)
def unrank(layer, r):
    a = layer // LAYER_STRIDE
    b = layer % LAYER_STRIDE
    on_zero = 0
    if r >= _block(a, b, 0):
        r -= _block(a, b, 0)
        on_zero = 1
    mover = a - on_zero
    n_opp = BINOM[SQUARES - 1 - mover, b]
    me = (colex_unrank(r // n_opp, mover, SQUARES - 2) << 1) | on_zero
    avail = OPEN_TO_OPPONENT & ~me
    opp = deposit_bits(colex_unrank(r % n_opp, b, SQUARES - 1 - mover), avail)
    return me | (opp << SQUARES)


@njit(cache=True)
def _steps(mask):
    """Steps the pieces of `mask` have made from square 0 (row + column each)."""
    total = 0
    for s in range(SQUARES):
        if (mask >> s) & 1:
            total += s // SIDE + s % SIDE
    return total


@njit(cache=True)
def progress(code):
    """Steps made by both sides' pieces: every move inside a layer adds one or two."""
    opp = code >> SQUARES
    return _steps(code & BOARD) + 2 * (SIDE - 1) * popcount(opp) - _steps(opp)


@njit(cache=True)
def heuristic(code):
    """Pieces and steps: a piece is worth four steps."""
    me = code & BOARD
    opp = code >> SQUARES
    score = 4.0 * (popcount(me) - popcount(opp)) + TEMPO
    score += _steps(me) - (2 * (SIDE - 1) * popcount(opp) - _steps(opp))
    return logistic(score)


def layer_size(a: int, b: int) -> int:
    return int(_block(a, b, 0) + (_block(a, b, 1) if a > 0 else 0))


def _squares(mask: int) -> list[int]:
    return [s for s in range(SQUARES) if (mask >> s) & 1]


def to_json(code: int) -> dict:
    code = int(code)
    return {"me": _squares(code & BOARD), "opp": _squares(code >> SQUARES)}


_KEYS = ("me", "opp")


def from_json(obj, pieces: int) -> int:
    check_json_object(obj, _KEYS, "a toy capture position", '{"me": [...], "opp": [...]}')
    masks = []
    for side, goal in (("me", GOAL), ("opp", 0)):
        squares = obj[side]
        if not whole_numbers(squares) or not all(0 <= s < SQUARES for s in squares):
            raise PositionError(f'"{side}" must be a list of squares 0..{SQUARES - 1}')
        if len(set(squares)) != len(squares) or not 1 <= len(squares) <= pieces:
            raise PositionError(f'"{side}" must hold 1..{pieces} pieces on distinct squares')
        if goal in squares:
            raise PositionError(f'"{side}" has a piece on its goal, square {goal}: the '
                                "game is over")
        masks.append(sum(1 << s for s in squares))
    if masks[0] & masks[1]:
        raise PositionError("two pieces on one square")
    return masks[0] | (masks[1] << SQUARES)


def cell(seat: int, square: int) -> str:
    """The board cell of a square seen by `seat` (0: red, who throws first)."""
    return f"s{square if seat == 0 else GOAL - square}"


LAYOUT = {"rows": SIDE, "cols": SIDE, "pools": ["off"],
          "dice": {"name": "die", "count": 1, "marked": {}},
          "cells": [{"id": cell(0, s), "row": s // SIDE, "col": s % SIDE, "label": str(s),
                     "mark": "goal" if s in (0, GOAL) else ""} for s in range(SQUARES)]}


def view(code: int, pieces: int, first_to_throw: bool) -> dict:
    seats = (0, 1) if first_to_throw else (1, 0)
    position = to_json(code)   # both sides' squares in the mover's frame
    cells = {cell(seats[0], s): seat for seat, key in zip(seats, _KEYS)
             for s in position[key]}
    left = {seat: len(position[key]) for seat, key in zip(seats, _KEYS)}
    return {"cells": cells, "waiting": [0, 0], "off": [pieces - left[0], pieces - left[1]]}


def draw(code: int, pieces: int, first_to_throw: bool) -> str:
    """The board as red sees it (R red, B blue), row by row."""
    marks = {c: "RB"[seat] for c, seat in view(code, pieces, first_to_throw)["cells"].items()}
    return "\n".join("".join(f"[{marks.get(cell(0, r * SIDE + c), ' ')}]"
                             for c in range(SIDE)) for r in range(SIDE))


def events(code: int, move: dict) -> list[str]:
    position = to_json(code)
    if move["to"] == GOAL:
        return ["reaches its goal"]
    if move["to"] in position["me"]:
        return ["removes one of its own pieces"]
    if move["to"] in position["opp"]:
        return ["removes a piece of the other side"]
    return []


def features(codes, pieces: int):
    """Occupancy of the 9 squares by each side, and each side's pieces / pieces: 20
    inputs."""
    me = bit_planes(codes, 0, SQUARES)
    opp = bit_planes(codes, SQUARES, SQUARES)
    return concat([me, opp, me.sum(1, keepdim=True) / pieces,
                   opp.sum(1, keepdim=True) / pieces])


def set_up(first: tuple, second: tuple, pieces: int) -> int:
    """The start where red's pieces stand on `first` of its start squares and blue's on
    `second` of its own (each counted from its own corner), red to throw."""
    return from_json({"me": list(first), "opp": [GOAL - s for s in second]}, pieces)


def make(pieces: int | None = None, rules: CaptureRules = CaptureRules()) -> Game:
    pieces = DEFAULT_PIECES if pieces is None else pieces
    if not 1 <= pieces <= MAX_PIECES:
        raise PositionError(f"{NAME} takes pieces 1..{MAX_PIECES}, not {pieces}")
    layers = tuple((a, b) for a in range(1, pieces + 1) for b in range(1, pieces + 1))
    start = set_up(STARTS[:pieces], STARTS[:pieces], pieces)
    setup = Setup(tuple(combinations(STARTS, pieces)), partial(set_up, pieces=pieces),
                  written="the start squares your pieces stand on, from 0, 1 and 3, in "
                          "order") if rules.set_up else None
    return Game(name=NAME, rules=next(name for name, r in RULE_SETS.items() if r == rules),
                pieces=pieces, cube=rules.cube, setup=setup,
                throws=np.arange(1, pieces + 1, dtype=np.int64),
                probs=np.full(pieces, 1.0 / pieces), max_moves=MAX_MOVES, layers=layers,
                layer_size=layer_size, start=start, moves=moves, mirror=mirror, layer_of=layer_of,
                rank=rank, unrank=unrank, progress=progress, to_json=to_json, from_json=from_json,
                heuristic=heuristic, successor_layers=capture_successors,
                capabilities=Capabilities(acyclic=True, removes_for_good=True),
                encoding=Encoding(partial(features, pieces=pieces), 2 * SQUARES + 2),
                presentation=Presentation(
                    sides=SIDES, square_names={}, layout=LAYOUT,
                    draw=partial(draw, pieces=pieces), view=partial(view, pieces=pieces),
                    cell=cell, events=events, code_layout=__doc__.strip(),
                    rules_file=Path(__file__).with_name("capture.md")))
