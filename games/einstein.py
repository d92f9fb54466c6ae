"""EinStein würfelt nicht! (Ingo Althöfer, 2004): a square board where the die picks
the cube that moves, and a cube stepping onto any cube, of either side, removes it
for good (docs/rules/einstein.md). The rule sets are the board sizes, 5x5 (the
standard board) down to 2x2 (`--board N` is `--rules NxN`); the pieces are the cubes
a side, numbered 1..K (`--cubes K`, 6 in the standard game), and the die has K faces.

Packed code (int64), seen by the side about to throw, in that side's frame: its
cubes step right, down or diagonally down-right towards its goal, the bottom-right
corner; the other side's step the opposite way towards the top-left corner, square 0.
Squares are numbered row by row from the top-left, square = row * N + col on a board
of N x N; the mirror turns the board by half a turn (square s to N*N-1-s).
  bits 5i..5i+4        the mover's cube i+1 (i = 0..5): 0 if removed, else square + 1
  bits 30+5i..30+5i+4  the opponent's cube i+1, the same way
Layer (a, b): cubes left to mover and opponent. The rank inside a layer, most
significant first: which cube numbers each side has left (colex ranks, the mover's
first); the squares, in two blocks, the mover off square 0 and then on it (square 0
is the opponent's goal, where its cubes never stand), each the colex rank of the
mover's squares times the number of the opponent's square sets, plus the colex rank
of the opponent's squares among those left to it; which of the mover's cubes stands
on which of its squares (a permutation rank); the same for the opponent.
"""
from dataclasses import dataclass
from functools import partial
from itertools import permutations
from math import comb, factorial
from types import SimpleNamespace

import numpy as np
from numba import njit

from tabula.games.combinatorics import (BINOM, colex_rank, colex_unrank, deposit_bits,
                                        extract_bits, lowest_bit_index)
from tabula.games.features import concat, field, one_hot
from tabula.games.game import (LAYER_STRIDE, OVER, RULES_DOCS, Capabilities, Encoding, Flag,
                               Game, PositionError, Presentation, Setup, capture_successors,
                               check_json_object)
from tabula.infra.numbers import whole_number
from tabula.games.heuristic import TEMPO, logistic

NAME = "einstein"
MAX_PIECES = 6
DEFAULT_PIECES = 6   # the standard game's; a rule set names its own
SIDES = ("red", "blue")
SLOT_BITS = 5
SLOT = (1 << SLOT_BITS) - 1
SIDE_BITS = MAX_PIECES * SLOT_BITS          # 30: one side's cubes
SIDE_MASK = (1 << SIDE_BITS) - 1
MAX_MOVES = 6                               # two cubes to choose from, three steps each
FACT = np.array([factorial(i) for i in range(MAX_PIECES + 1)], dtype=np.int64)
# Red's start squares as (row, col), in the order the rules fill them with k cubes
START_SQUARES = ((0, 0), (0, 1), (1, 0), (0, 2), (1, 1), (2, 0))
STEPS = ((0, 1), (1, 0), (1, 1))            # right, down, diagonally down-right
CUBE_VALUE = 6.0   # heuristic: a cube more is worth this many pips ...
STEP_VALUE = 10.0  # ... a step nearer the goal (of the nearest cube) this many


@dataclass(frozen=True)
class EinsteinRules:
    """A rule set: the board's size, and the cubes a side by default (--cubes)."""
    name: str
    board: int
    pieces: int

    def max_cubes(self) -> int:
        """The most cubes a side may have here: the two start areas must stay apart."""
        return {2: 1, 3: 3}.get(self.board, MAX_PIECES)


RULE_SETS = {r.name: r for r in (EinsteinRules("5x5", 5, 6), EinsteinRules("4x4", 4, 6),
                                 EinsteinRules("3x3", 3, 3), EinsteinRules("2x2", 2, 1))}
RULES = "5x5"   # the standard board


def board_rules(text: str) -> str:
    """--board N: the rule set of an N x N board ('NxN')."""
    size = whole_number(text, 0, 999)   # the rule sets name the sizes there are
    if size is None:
        raise PositionError(f"the board's size is a whole number, not {text[:20]!r}")
    return f"{size}x{size}"


FLAGS = (Flag("cubes", "pieces", "cubes a side (einstein)"),
         Flag("board", "rules", "the same as --rules NxN, for a board of N x N squares "
                                "(einstein: --board 3 is --rules 3x3)", "N", board_rules))


@njit(cache=True)
def cubes_left(side):
    """How many of a side's cubes (its 30 bits) are on the board."""
    count = 0
    for i in range(MAX_PIECES):
        if (side >> (SLOT_BITS * i)) & SLOT:
            count += 1
    return count


@njit(cache=True)
def _without_cube_on(side, square):
    """A side's cubes with the one on `square` (if any) removed."""
    for i in range(MAX_PIECES):
        if ((side >> (SLOT_BITS * i)) & SLOT) == square + 1:
            side &= ~(SLOT << (SLOT_BITS * i))
    return side


@njit(cache=True)
def cubes_for_throw(side, throw):
    """The cubes (0-based numbers) a throw lets move: the thrown cube if it is on the
    board, else the next higher and the next lower left (-1 where there is none)."""
    t = throw - 1
    if (side >> (SLOT_BITS * t)) & SLOT:
        return t, -1
    higher = -1
    for i in range(MAX_PIECES - 1, t, -1):
        if (side >> (SLOT_BITS * i)) & SLOT:
            higher = i
    lower = -1
    for i in range(t):
        if (side >> (SLOT_BITS * i)) & SLOT:
            lower = i
    return (higher, lower) if higher >= 0 else (lower, -1)


@njit(cache=True)
def _bits_below(mask, bit):
    """How many bits of `mask` lie below `bit`."""
    mask &= (1 << bit) - 1
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


@njit(cache=True)
def _arrangement(side):
    """A side's cubes as (numbers left: a bit mask, squares taken: a bit mask, which
    cube stands on which of those squares: a permutation rank, cubes left). The
    permutation lists each cube's place among the squares, lowest number first; its
    rank is its Lehmer code (each place counted among the places still free)."""
    numbers = 0
    squares = 0
    for i in range(MAX_PIECES):
        v = (side >> (SLOT_BITS * i)) & SLOT
        if v:
            numbers |= 1 << i
            squares |= 1 << (v - 1)
    count = cubes_left(side)
    used = 0
    perm = 0
    k = 0
    for i in range(MAX_PIECES):
        v = (side >> (SLOT_BITS * i)) & SLOT
        if v:
            place = _bits_below(squares, v - 1)
            perm = perm * (count - k) + place - _bits_below(used, place)
            used |= 1 << place
            k += 1
    return numbers, squares, perm, count


@njit(cache=True)
def _placed(numbers, squares, perm, count):
    """Inverse of _arrangement: the side's 30 bits."""
    side = 0
    used = 0
    k = 0
    for i in range(MAX_PIECES):
        if (numbers >> i) & 1:
            free_rank = (perm // FACT[count - 1 - k]) % (count - k)
            place = 0    # the free_rank-th place not yet used
            while (used >> place) & 1 or free_rank > 0:
                if not (used >> place) & 1:
                    free_rank -= 1
                place += 1
            used |= 1 << place
            rest = squares   # the place-th lowest square
            for _ in range(place):
                rest &= rest - 1
            side |= (lowest_bit_index(rest & -rest) + 1) << (SLOT_BITS * i)
            k += 1
    return side


def _named(function, name: str):
    """Compile a function made for one board (or board and cube count) under its own
    name, kept in this module, where infra/numba_cache.py finds it when a cached
    kernel that took it as an argument is loaded."""
    function.__name__ = function.__qualname__ = name
    compiled = njit(cache=True)(function)
    globals()[name] = compiled
    return compiled


def _compile_board(n: int) -> SimpleNamespace:
    """The compiled rules of the n x n board, its size as constants."""
    N = n * n
    GOAL = N - 1
    FAR = 2 * (n - 1)   # steps from one corner to the other

    def mirror(code):
        turned = 0
        for i in range(2 * MAX_PIECES):
            v = (code >> (SLOT_BITS * i)) & SLOT
            if v:
                turned |= (N + 1 - v) << (SLOT_BITS * ((i + MAX_PIECES) % (2 * MAX_PIECES)))
        return turned

    name = f"{n}x{n}"
    mirror = _named(mirror, f"mirror_{name}")   # compiled now: moves calls it

    def moves(code, throw, out_codes, out_info):
        me = code & SIDE_MASK
        opp = code >> SIDE_BITS
        first, second = cubes_for_throw(me, throw)
        n_moves = 0
        for cube in (first, second):
            if cube < 0:
                continue
            s = ((me >> (SLOT_BITS * cube)) & SLOT) - 1
            r = s // n
            c = s % n
            for dr, dc in STEPS:
                if r + dr >= n or c + dc >= n:
                    continue
                d = (r + dr) * n + c + dc
                new_me = _without_cube_on(me & ~(SLOT << (SLOT_BITS * cube)), d)
                new_opp = _without_cube_on(opp, d)
                if d != GOAL:   # a cube reaching its goal leaves the board: the game is won
                    new_me |= (d + 1) << (SLOT_BITS * cube)
                out_codes[n_moves] = mirror(new_me | (new_opp << SIDE_BITS))
                out_info[n_moves] = s | (d << 5) | (OVER if d == GOAL or new_opp == 0 else 0)
                n_moves += 1
        return n_moves

    def layer_of(code):
        return cubes_left(code & SIDE_MASK) * LAYER_STRIDE + cubes_left(code >> SIDE_BITS)

    def progress(code):
        """Steps made by both sides' cubes: every move inside a layer adds one or two."""
        total = 0
        for i in range(2 * MAX_PIECES):
            v = (code >> (SLOT_BITS * i)) & SLOT
            if v:
                steps = (v - 1) // n + (v - 1) % n
                total += steps if i < MAX_PIECES else FAR - steps
        return total

    def heuristic(code):
        """Cubes left, and the steps each side's nearest cube has to go."""
        near_me = FAR
        near_opp = FAR
        for i in range(2 * MAX_PIECES):
            v = (code >> (SLOT_BITS * i)) & SLOT
            if v:
                r = (v - 1) // n
                c = (v - 1) % n
                if i < MAX_PIECES:
                    near_me = min(near_me, max(n - 1 - r, n - 1 - c))
                else:
                    near_opp = min(near_opp, max(r, c))
        score = CUBE_VALUE * (cubes_left(code & SIDE_MASK) - cubes_left(code >> SIDE_BITS))
        return logistic(score + STEP_VALUE * (near_opp - near_me) + TEMPO)

    return SimpleNamespace(
        mirror=mirror, moves=_named(moves, f"moves_{name}"),
        layer_of=_named(layer_of, f"layer_of_{name}"),
        progress=_named(progress, f"progress_{name}"),
        heuristic=_named(heuristic, f"heuristic_{name}"))


def _square_sets(N: int, a: int, b: int) -> tuple[int, int]:
    """How many ways the squares of a mover's and b opponent's cubes lie on N squares,
    the mover off square 0 and on it (the two blocks of the rank)."""
    return (comb(N - 2, a) * comb(N - 1 - a, b),
            comb(N - 2, a - 1) * comb(N - a, b) if a > 0 else 0)


def _compile_variant(n: int, k: int) -> SimpleNamespace:
    """rank and unrank of the n x n board with k cubes a side, with the layer sizes."""
    N = n * n
    BEHIND_GOAL = ((1 << N) - 1) & ~(1 << (N - 1)) & ~1   # squares 1..N-2
    OPEN_TO_OPPONENT = ((1 << N) - 1) & ~1                # squares 1..N-1
    OFF_ZERO = np.zeros((k + 1, k + 1), dtype=np.int64)   # block sizes, in square sets
    SQUARE_SETS = np.zeros((k + 1, k + 1), dtype=np.int64)
    for a in range(k + 1):
        for b in range(k + 1):
            off, on = _square_sets(N, a, b)
            OFF_ZERO[a, b] = off
            SQUARE_SETS[a, b] = off + on

    def rank(code):
        me_numbers, me_squares, me_perm, a = _arrangement(code & SIDE_MASK)
        opp_numbers, opp_squares, opp_perm, b = _arrangement(code >> SIDE_BITS)
        on_zero = me_squares & 1
        mover = a - on_zero
        square_set = (OFF_ZERO[a, b] if on_zero else 0) + (
            colex_rank((me_squares & BEHIND_GOAL) >> 1) * BINOM[N - 1 - mover, b]
            + colex_rank(extract_bits(opp_squares, OPEN_TO_OPPONENT & ~me_squares)))
        numbers = colex_rank(me_numbers) * BINOM[k, b] + colex_rank(opp_numbers)
        return ((numbers * SQUARE_SETS[a, b] + square_set) * FACT[a] + me_perm) * FACT[b] \
            + opp_perm

    def unrank(layer, r):
        a = layer // LAYER_STRIDE
        b = layer % LAYER_STRIDE
        opp_perm = r % FACT[b]
        r //= FACT[b]
        me_perm = r % FACT[a]
        r //= FACT[a]
        square_set = r % SQUARE_SETS[a, b]
        numbers = r // SQUARE_SETS[a, b]
        on_zero = 0
        if square_set >= OFF_ZERO[a, b]:
            square_set -= OFF_ZERO[a, b]
            on_zero = 1
        mover = a - on_zero
        n_opp = BINOM[N - 1 - mover, b]
        me_squares = (colex_unrank(square_set // n_opp, mover, N - 2) << 1) | on_zero
        opp_squares = deposit_bits(colex_unrank(square_set % n_opp, b, N - 1 - mover),
                                   OPEN_TO_OPPONENT & ~me_squares)
        me = _placed(colex_unrank(numbers // BINOM[k, b], a, k), me_squares, me_perm, a)
        opp = _placed(colex_unrank(numbers % BINOM[k, b], b, k), opp_squares, opp_perm, b)
        return me | (opp << SIDE_BITS)

    sizes = np.array([[comb(k, a) * comb(k, b) * int(SQUARE_SETS[a, b]) * factorial(a)
                       * factorial(b) for b in range(k + 1)] for a in range(k + 1)],
                     dtype=object)
    name = f"{n}x{n}_{k}"
    return SimpleNamespace(rank=_named(rank, f"rank_{name}"),
                           unrank=_named(unrank, f"unrank_{name}"), layer_sizes=sizes)


# every board and cube count made now (compiled on first use): a cached kernel may
# name any of them
BOARD_CODE = {r.board: _compile_board(r.board) for r in RULE_SETS.values()}
VARIANT_CODE = {(r.board, k): _compile_variant(r.board, k) for r in RULE_SETS.values()
                for k in range(1, r.max_cubes() + 1)}


def _square_name(square: int, n: int) -> str:
    return f"({square // n},{square % n})"


def to_json(code: int, n: int) -> dict:
    """{"me": {"1": [row, col], ...}, "opp": {...}}: each side's cubes left, by number,
    in the mover's frame (the mover heads for the bottom-right corner)."""
    code = int(code)
    return {key: {str(i + 1): [(v - 1) // n, (v - 1) % n]
                  for i in range(MAX_PIECES) if (v := (side >> (SLOT_BITS * i)) & SLOT)}
            for key, side in (("me", code & SIDE_MASK), ("opp", code >> SIDE_BITS))}


_KEYS = ("me", "opp")


def from_json(obj, pieces: int, n: int) -> int:
    check_json_object(obj, _KEYS, "an EinStein position",
                      '{"me": {"1": [row, col], ...}, "opp": {...}}')
    goal = {"me": n * n - 1, "opp": 0}
    code = 0
    taken = set()
    for key, shift in (("me", 0), ("opp", SIDE_BITS)):
        cubes = obj[key]
        if not isinstance(cubes, dict) or not 1 <= len(cubes) <= pieces:
            raise PositionError(f'"{key}" must map 1..{pieces} cube numbers to squares: '
                                '{"1": [row, col], ...}')
        for number, square in cubes.items():
            if number not in {str(i) for i in range(1, pieces + 1)}:
                raise PositionError(f'"{key}" has no cube {str(number)[:10]!r}: cubes are '
                                    f"1..{pieces}")
            if not (isinstance(square, list) and len(square) == 2
                    and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < n
                            for x in square)):
                raise PositionError(f'"{key}" cube {number}: a square is [row, col], '
                                    f"each 0..{n - 1}")
            s = square[0] * n + square[1]
            if s in taken:
                raise PositionError(f"two cubes on square {_square_name(s, n)}")
            if s == goal[key]:
                raise PositionError(f'"{key}" cube {number} stands on its goal '
                                    f"{_square_name(s, n)}: the game is over")
            taken.add(s)
            code |= (s + 1) << (shift + SLOT_BITS * (int(number) - 1))
    return code


def start_squares(n: int, pieces: int) -> list[int]:
    """The squares of the side that throws first (red) at the start, cube 1 first."""
    return [r * n + c for r, c in START_SQUARES[:pieces]]


def set_up(red: tuple, blue: tuple, n: int) -> int:
    """The start position (red to throw) where red puts cube red[j] on its j-th start
    square and blue cube blue[j] on the point reflection of red's j-th."""
    squares = start_squares(n, len(red))
    code = 0
    for j, s in enumerate(squares):
        code |= (s + 1) << (SLOT_BITS * (red[j] - 1))
        code |= (n * n - s) << (SIDE_BITS + SLOT_BITS * (blue[j] - 1))
    return code


def cell(seat: int, square: int, n: int) -> str:
    """The board cell of a square seen by `seat` (0: red, who throws first)."""
    return f"s{square if seat == 0 else n * n - 1 - square}"


def _layout(n: int) -> dict:
    goals = {0: "goal of blue", n * n - 1: "goal of red"}
    return {"rows": n, "cols": n, "pools": ["off"], "colours": ["#c62828", "#1565c0"],
            "dice": {"name": "die", "count": 1, "faces": 6},
            "cells": [{"id": cell(0, s, n), "row": s // n, "col": s % n,
                       "label": _square_name(s, n), "mark": "goal" if s in goals else "",
                       "title": goals.get(s, "")} for s in range(n * n)]}


def view(code: int, pieces: int, first_to_throw: bool, n: int) -> dict:
    """Which seat (0: red) has a cube on each cell, the cube's number on it, and how
    many cubes each seat has lost."""
    seats = (0, 1) if first_to_throw else (1, 0)
    position = to_json(code, n)
    cells, labels = {}, {}
    for seat, key in zip(seats, _KEYS):   # both sides' squares in the mover's frame
        for number, (r, c) in position[key].items():
            cells[cell(seats[0], r * n + c, n)] = seat
            labels[cell(seats[0], r * n + c, n)] = number
    left = {seat: len(position[key]) for seat, key in zip(seats, _KEYS)}
    return {"cells": cells, "labels": labels, "waiting": [0, 0],
            "off": [pieces - left[0], pieces - left[1]]}


def draw(code: int, pieces: int, first_to_throw: bool, n: int) -> str:
    """The board as red sees it (R3: red's cube 3, B3: blue's), red heading down and
    right to the bottom-right corner, blue up and left to the top-left corner."""
    shown = view(code, pieces, first_to_throw, n)
    def mark(s):
        c = cell(0, s, n)
        return f"{'RB'[shown['cells'][c]]}{shown['labels'][c]}" if c in shown["cells"] else " ."
    rows = ["  " + " ".join(mark(r * n + c) for c in range(n)) for r in range(n)]
    return "\n".join(rows + [f"  cubes lost: red {shown['off'][0]}, blue {shown['off'][1]}"])


def events(code: int, move: dict, n: int) -> list[str]:
    """What a move does, in words: the cube it moves, and what it removes or reaches."""
    position = to_json(code, n)
    on = {key: {r * n + c: number for number, (r, c) in position[key].items()}
          for key in _KEYS}
    said = [f"cube {on['me'][move['from']]} moves"]
    if move["to"] in on["me"]:
        said.append(f"removes its own cube {on['me'][move['to']]}")
    if move["to"] in on["opp"]:
        last = " (the last)" if len(on["opp"]) == 1 else ""
        said.append(f"removes the other side's cube {on['opp'][move['to']]}{last}")
    if move["to"] == n * n - 1:
        said.append("reaches its goal corner")
    return said


def features(codes, pieces: int, n: int):
    """Where each cube of each side is: for the mover's cubes 1..pieces, then the
    opponent's, a one-hot of N*N+1 (removed, then squares 0..N*N-1, N*N = n*n,
    the mover's frame); then each side's occupied squares."""
    N = n * n
    sides = []
    for first_bit in (0, SIDE_BITS):
        cubes = [one_hot(field(codes, first_bit + SLOT_BITS * i, SLOT_BITS), N + 1)
                 for i in range(pieces)]
        occupied = cubes[0][:, 1:]
        for cube in cubes[1:]:
            occupied = occupied + cube[:, 1:]
        sides.append((cubes, occupied))
    return concat([*sides[0][0], *sides[1][0], sides[0][1], sides[1][1]])


def code_layout(n: int, pieces: int) -> str:
    """The packed code's bits (this module's description), for this variant."""
    return f"{n}x{n} board, {pieces} cubes a side. " + __doc__[__doc__.index("Packed code"):]


def make(pieces: int | None = None, rules: EinsteinRules = RULE_SETS[RULES]) -> Game:
    """The variant of `rules` (its board) with `pieces` cubes a side (the rule set's
    default if None)."""
    pieces = rules.pieces if pieces is None else pieces
    if not 1 <= pieces <= rules.max_cubes():
        raise PositionError(f"einstein on the {rules.name} board takes 1..{rules.max_cubes()}"
                            f" cubes a side, not {pieces}")
    n = rules.board
    board = BOARD_CODE[n]
    variant = VARIANT_CODE[(n, pieces)]
    arrangements = tuple(permutations(range(1, pieces + 1)))
    return Game(name=NAME, rules=rules.name, pieces=pieces,
                throws=np.arange(1, pieces + 1, dtype=np.int64),
                probs=np.full(pieces, 1.0 / pieces), max_moves=MAX_MOVES,
                layers=tuple((a, b) for a in range(1, pieces + 1) for b in range(1, pieces + 1)),
                layer_size=lambda a, b: int(variant.layer_sizes[a, b]),
                start=set_up(arrangements[0], arrangements[0], n),
                moves=board.moves, mirror=board.mirror, layer_of=board.layer_of,
                rank=variant.rank, unrank=variant.unrank, progress=board.progress,
                to_json=partial(to_json, n=n), from_json=partial(from_json, n=n),
                heuristic=board.heuristic, successor_layers=capture_successors,
                capabilities=Capabilities(acyclic=True, removes_for_good=True),
                setup=Setup(arrangements=arrangements, start=partial(set_up, n=n),
                            written="the numbers of your cubes, once each, on the start "
                                    "squares in order, the corner first"),
                encoding=Encoding(partial(features, pieces=pieces, n=n),
                                  2 * pieces * (n * n + 1) + 2 * n * n),
                presentation=Presentation(
                    sides=SIDES,
                    square_names={s: _square_name(s, n) for s in range(n * n)},
                    layout=_layout(n), draw=partial(draw, pieces=pieces, n=n),
                    view=partial(view, pieces=pieces, n=n), cell=partial(cell, n=n),
                    events=partial(events, n=n), code_layout=code_layout(n, pieces),
                    rules_file=RULES_DOCS / "einstein.md", win_words="wins",
                    named_by_board=True))
