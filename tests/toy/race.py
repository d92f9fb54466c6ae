"""Toy race: a small pure race game, written against the game contract (games/game.py)
to show what a new game implements; docs/ADDING_A_GAME.md walks through it.

Rules (tests/toy/race.md): each side has 1..3 pieces on its own track of squares
1..6, starting on squares 1..pieces. Two coins are thrown: the throw is the number
of heads, 0, 1 or 2 with chances 1/4, 1/2, 1/4. The mover moves one piece forward by the throw,
not onto another of its own pieces; a move past square 6 bears the piece off.
Landing on square 3 gives another throw. A throw with no legal move (always 0)
passes the turn. Whoever bears off all its pieces first wins. The sides never meet.

Packed code (int64), seen by the player about to throw:
  bits 0..5   mover's pieces on squares 1..6 (bit s-1 = square s)
  bits 6..11  opponent's pieces
Layer (a, b): pieces on the board of mover and opponent. Rank: the colex rank of
the mover's squares times C(6, b), plus the colex rank of the opponent's squares.
"""
from functools import partial
from pathlib import Path

import numpy as np
from numba import njit

from tabula.games.combinatorics import BINOM, colex_rank, colex_unrank, popcount
from tabula.games.features import bit_planes, concat, weighted_sum
from tabula.games.game import (AGAIN, LAYER_STRIDE, OVER, Capabilities, Encoding, Flag,
                               Game, PositionError, Presentation)
from tabula.games.heuristic import TEMPO, logistic
from tabula.games.combinatorics import squares_sum

NAME = "toyrace"
FLAGS = (Flag("runners", "pieces", "runners a side (toyrace)"),)   # what it calls its pieces
RULES = "toy"
MAX_PIECES = 3
DEFAULT_PIECES = 2
SQUARES = 6
OFF = 7
AGAIN_SQUARE = 3
THROWS = np.array([0, 1, 2], dtype=np.int64)
PROBS = np.array([1, 2, 1], dtype=np.float64) / 4.0
BOARD = (1 << SQUARES) - 1
SIDES = ("red", "blue")


@njit(cache=True)
def mirror(code):
    return (code >> SQUARES) | ((code & BOARD) << SQUARES)


@njit(cache=True)
def moves(code, throw, out_codes, out_info):
    me = code & BOARD
    opp = code >> SQUARES
    n = 0
    if throw == 0:
        return 0
    for a in range(1, SQUARES + 1):
        if not (me >> (a - 1)) & 1:
            continue
        d = min(a + throw, OFF)
        new_me = me & ~(1 << (a - 1))
        if d < OFF:
            if (me >> (d - 1)) & 1:
                continue
            new_me |= 1 << (d - 1)
        again = d == AGAIN_SQUARE
        over = new_me == 0
        new = new_me | (opp << SQUARES)
        if over or not again:
            new = mirror(new)
        out_codes[n] = new
        out_info[n] = a | (d << 5) | (OVER if over else (AGAIN if again else 0))
        n += 1
    return n


@njit(cache=True)
def layer_of(code):
    return popcount(code & BOARD) * LAYER_STRIDE + popcount(code >> SQUARES)


@njit(cache=True)
def rank(code):
    b = popcount(code >> SQUARES)
    return colex_rank(code & BOARD) * BINOM[SQUARES, b] + colex_rank(code >> SQUARES)


@njit(cache=True)
def unrank(layer, r):
    a = layer // LAYER_STRIDE
    b = layer % LAYER_STRIDE
    n_opp = BINOM[SQUARES, b]
    return colex_unrank(r // n_opp, a, SQUARES) | (colex_unrank(r % n_opp, b, SQUARES)
                                                   << SQUARES)


@njit(cache=True)
def progress(code):
    return squares_sum(code & BOARD) + squares_sum(code >> SQUARES)


@njit(cache=True)
def _pips(board):
    total = 0
    for s in range(1, SQUARES + 1):
        if (board >> (s - 1)) & 1:
            total += OFF - s
    return total


@njit(cache=True)
def heuristic(code):
    """The race alone: pips to go of the opponent less the mover's, plus the tempo."""
    return logistic(_pips(code >> SQUARES) - _pips(code & BOARD) + TEMPO)


def layer_size(a: int, b: int) -> int:
    return int(BINOM[SQUARES, a] * BINOM[SQUARES, b])


def _squares(mask: int) -> list[int]:
    return [s + 1 for s in range(SQUARES) if (mask >> s) & 1]


def to_json(code: int) -> dict:
    code = int(code)
    return {"me": _squares(code & BOARD), "opp": _squares(code >> SQUARES)}


def from_json(obj, pieces: int) -> int:
    if not isinstance(obj, dict) or set(obj) != {"me", "opp"}:
        raise PositionError('a toy race position is {"me": [...], "opp": [...]}')
    masks = []
    for side in ("me", "opp"):
        squares = obj[side]
        if not isinstance(squares, list) or not all(
                isinstance(s, int) and not isinstance(s, bool) and 1 <= s <= SQUARES
                for s in squares):
            raise PositionError(f'"{side}" must be a list of squares 1..{SQUARES}')
        if len(set(squares)) != len(squares) or not 1 <= len(squares) <= pieces:
            raise PositionError(f'"{side}" must hold 1..{pieces} pieces on distinct squares')
        masks.append(sum(1 << (s - 1) for s in squares))
    return masks[0] | (masks[1] << SQUARES)


def draw(code: int, pieces: int, first_to_throw: bool) -> str:
    """Two tracks, the side that threw first on top."""
    position = to_json(code)
    first, second = ("me", "opp") if first_to_throw else ("opp", "me")
    rows = []
    for side, key in zip(SIDES, (first, second)):
        cells = "".join("[o]" if s in position[key] else "[ ]" for s in range(1, SQUARES + 1))
        rows.append(f"  {side:5s} {cells}  borne off {pieces - len(position[key])}")
    return "\n".join(rows)


def cell(seat: int, square: int) -> str:
    return f"off{seat}" if square == OFF else f"{'rb'[seat]}{square}"


LAYOUT = {"rows": 2, "cols": SQUARES, "pools": ["off"],
          "dice": {"name": "coins", "count": 2, "marked": {"0": 0, "1": 1, "2": 2}},
          "cells": [{"id": cell(seat, s), "row": seat, "col": s - 1, "label": str(s),
                     "mark": "again" if s == AGAIN_SQUARE else ""}
                    for seat in (0, 1) for s in range(1, SQUARES + 1)]}


def view(code: int, pieces: int, first_to_throw: bool) -> dict:
    position = to_json(code)
    keys = ("me", "opp") if first_to_throw else ("opp", "me")
    return {"cells": {cell(seat, s): seat for seat, key in enumerate(keys)
                      for s in position[key]},
            "waiting": [0, 0], "off": [pieces - len(position[key]) for key in keys]}


def events(code: int, move: dict) -> list[str]:
    return ["bears a piece off"] if move["to"] == OFF else []


def features(codes, pieces: int):
    """Occupancy of each side's 6 squares and each side's pips to go / (7 * pieces):
    14 inputs."""
    me = bit_planes(codes, 0, SQUARES)
    opp = bit_planes(codes, SQUARES, SQUARES)
    to_go = [float(OFF - s) / (OFF * pieces) for s in range(1, SQUARES + 1)]
    return concat([me, opp, weighted_sum(me, to_go), weighted_sum(opp, to_go)])


def make(pieces: int = DEFAULT_PIECES) -> Game:
    if not 1 <= pieces <= MAX_PIECES:
        raise PositionError(f"{NAME} takes pieces 1..{MAX_PIECES}, not {pieces}")
    layers = tuple((a, b) for a in range(1, pieces + 1) for b in range(1, pieces + 1))
    start = from_json({"me": list(range(1, pieces + 1)), "opp": list(range(1, pieces + 1))},
                      pieces)
    return Game(name=NAME, rules=RULES, pieces=pieces, throws=THROWS, probs=PROBS,
                max_moves=MAX_PIECES, layers=layers, layer_size=layer_size, start=start,
                moves=moves, mirror=mirror, layer_of=layer_of, rank=rank, unrank=unrank,
                progress=progress, to_json=to_json, from_json=from_json, heuristic=heuristic,
                capabilities=Capabilities(acyclic=True),
                encoding=Encoding(partial(features, pieces=pieces), 2 * SQUARES + 2),
                presentation=Presentation(
                    sides=SIDES, square_names={OFF: "off"}, layout=LAYOUT,
                    draw=partial(draw, pieces=pieces), view=partial(view, pieces=pieces),
                    cell=cell, events=events, code_layout=__doc__.strip(),
                    rules_file=Path(__file__).with_name("race.md")))
