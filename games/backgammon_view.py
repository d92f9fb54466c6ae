"""What people see of backgammon with contact: the board as text and as cells, moves in
the notation players write ('13/7* 8/7', 'bar/22', '6/off(2)'), and what a move does.

Seat 0 (white, who throws first) names the points: the board's cell of a point is
named by white's number for it, which black calls 25 minus that.
"""
from functools import partial

import numpy as np

from .backgammon import gnubg_id
from .backgammon_rules import BAR, BOARD, OFF, PLACES, THEM, board_key, play_die
from .game import RULES_DOCS, PositionError, Presentation

SIDES = ("white", "black")
SQUARE_NAMES = {OFF: "off", BAR: "bar"}


def step_orders(board: np.ndarray, after: np.ndarray, throw: int) -> list[list[tuple]]:
    """Each die's step of a move, (from, to, hit), once for each order of the dice that
    plays it (the higher first, then the other; doubles have one): found by playing the
    dice one at a time as far as they go, until the checkers stand as in `after` (a
    board seen by the same side; borne-off counts are not compared)."""
    high, low = divmod(throw, 10)
    orders = [[high] * 4] if high == low else [[high, low], [low, high]]
    target = np.concatenate([after[1:PLACES], after[THEM + 1:]]).tobytes()
    scratch = np.empty((PLACES, BOARD), dtype=np.int8)
    scratch_keys = np.empty(PLACES, dtype=np.int64)

    def search(current, dice):
        n = play_die(current, board_key(current), dice[0], scratch, scratch_keys, 0) \
            if dice else 0
        if n == 0:     # the dice are played, or the rest cannot be
            same = np.concatenate([current[1:PLACES], current[THEM + 1:]]).tobytes() == target
            return [] if same else None
        for nxt in [scratch[i].copy() for i in range(n)]:
            frm = next(p for p in range(BAR, 0, -1) if nxt[p] < current[p])
            to = next(p for p in range(0, BAR) if nxt[p] > current[p])
            rest = search(nxt, dice[1:])
            if rest is not None:
                return [(frm, to, bool(nxt[THEM + BAR] > current[THEM + BAR]))] + rest
        return None
    found = [steps for steps in (search(board, order) for order in orders) if steps is not None]
    if not found:
        raise PositionError(f"no play of {high}-{low} leads to that position")
    return found


def checker_steps(board: np.ndarray, after: np.ndarray, throw: int) -> list[tuple]:
    """Each die's step of a move, (from, to, hit), in an order it can be played (the
    higher die first where it can be): step_orders' first."""
    return step_orders(board, after, throw)[0]


def notation(steps: list[tuple]) -> str:
    """Steps as players write a move (as gnubg writes it): a checker's steps joined
    ('24/13', '24/18*/13' where it hits on the way), '*' after a hit, '(2)' for two
    checkers alike, the highest point first."""
    chains = [[(frm, False), (to, hit)] for frm, to, hit in steps]
    joined = True
    while joined:        # a checker's steps, in whatever order the dice were found
        joined = False
        for first in chains:
            second = next((c for c in chains if c is not first and c[0][0] == first[-1][0]),
                          None)
            if second is not None:
                first += second[1:]
                chains.remove(second)
                joined = True
                break
    starred = set()      # a hit is marked once, on the first checker written there
    texts = []
    for chain in sorted(chains, key=lambda c: (c[0][0], -c[-1][0]), reverse=True):
        kept = [chain[0]] + [point for point in chain[1:-1] if point[1]] + [chain[-1]]
        marks = []
        for p, hit in kept:
            star = hit and p not in starred
            starred |= {p} if star else set()
            marks.append(SQUARE_NAMES.get(p, str(p)) + ("*" if star else ""))
        texts.append("/".join(marks))
    texts.sort(key=_sort_key, reverse=True)
    alike = {}           # checkers with the same path, counted once ('6/2*(2)')
    for text in texts:
        alike.setdefault(text.replace("*", ""), []).append(text)
    return " ".join(max(group, key=len) + (f"({len(group)})" if len(group) > 1 else "")
                    for group in alike.values())


def _sort_key(text: str) -> tuple:
    """Highest point first; from one point, the checker that goes furthest first."""
    number = {"bar": BAR, "off": OFF}
    points = [number[p] if p in number else int(p)
              for p in text.split("(")[0].replace("*", "").split("/")]
    return (points[0], *(-p for p in points[1:]))


def _next_board_as_mover(next_code: int, board_of) -> np.ndarray:
    """The board after a move seen by the mover (next_code is the next player's view)."""
    seen = board_of(next_code)
    return np.concatenate([seen[THEM:], seen[:THEM]])


def move_orders(code: int, next_code: int, throw: int, board_of) -> list[list[tuple]]:
    """The move from `code` to `next_code` die by die, as (from, to), in each order of
    the dice that plays it: what a person taps, checker by checker, on the page."""
    return [[(frm, to) for frm, to, _ in steps]
            for steps in step_orders(board_of(code), _next_board_as_mover(next_code, board_of),
                                     throw)]


def move_steps(code: int, next_code: int, throw: int, board_of) -> list[tuple]:
    """The move from `code` to `next_code`, die by die, as (from, to) for the page."""
    return move_orders(code, next_code, throw, board_of)[0]


def move_notation(code: int, next_code: int, throw: int, board_of, seat: int = 0) -> str:
    """The move in notation (each side numbers its own points: the same for either seat)."""
    return notation(checker_steps(board_of(code), _next_board_as_mover(next_code, board_of),
                                  throw))


def dice_text(throw: int) -> str:
    return f"{throw // 10}-{throw % 10}"


def cell(seat: int, square: int) -> str:
    """The cell of a seat's place (0 off, 1..24 its points, 25 its bar)."""
    if square == OFF:
        return f"off{seat}"
    if square == BAR:
        return f"bar{seat}"
    return f"p{square if seat == 0 else BAR - square}"


def _layout() -> dict:
    """White's points 13..24 on top from the left, 12..1 below, the bar between the
    two halves and each side's tray at the right end (black's on top)."""
    def col(point):
        half = (point - 13) if point > 12 else (12 - point)
        return half + (1 if half >= 6 else 0)
    def half(row):
        return "top" if row == 0 else "bottom"
    cells = [{"id": cell(0, p), "row": 0 if p > 12 else 1, "col": col(p), "label": str(p),
              "mark": f"point {half(0 if p > 12 else 1)} {'dark' if p % 2 else 'light'}"}
             for p in range(1, 25)]
    cells += [{"id": cell(seat, BAR), "row": seat ^ 1, "col": 6, "label": "bar",
               "mark": f"bar {half(seat ^ 1)}"} for seat in (0, 1)]
    cells += [{"id": cell(seat, OFF), "row": seat ^ 1, "col": 13, "label": "off",
               "mark": f"tray {half(seat ^ 1)}", "pool": ["off", seat]} for seat in (0, 1)]
    return {"rows": 2, "cols": 14, "cells": cells, "pools": [], "board": "backgammon",
            "dice": {"name": "dice", "count": 2, "faces": 6}, "moves": "listed"}


def _seats(code: int, first_to_throw: bool, board_of) -> list[np.ndarray]:
    board = board_of(code)
    sides = [board[:PLACES], board[THEM:]]
    return sides if first_to_throw else sides[::-1]


def view(code: int, pieces: int, first_to_throw: bool, board_of) -> dict:
    """Which seat has checkers on each cell and how many (`stacks`), the bar included,
    each seat's borne-off count and pips to go."""
    cells, stacks = {}, {}
    seats = _seats(code, first_to_throw, board_of)
    for seat, counts in enumerate(seats):
        for place in range(1, PLACES):
            if counts[place]:
                cells[cell(seat, place)] = seat
                stacks[cell(seat, place)] = int(counts[place])
    return {"cells": cells, "stacks": stacks, "waiting": [0, 0],
            "off": [pieces - int(counts[1:].sum()) for counts in seats],
            "pips": [int(sum(p * int(c) for p, c in enumerate(counts))) for counts in seats]}


def draw(code: int, pieces: int, first_to_throw: bool, board_of) -> str:
    """White's points 13..24 above and 12..1 below (O white, X black, a number for
    two or more), the bar and what each side has borne off."""
    seats = _seats(code, first_to_throw, board_of)

    def point(p):
        for seat, mark in ((0, "O"), (1, "X")):
            c = int(seats[seat][p if seat == 0 else BAR - p])
            if c:
                return f" {mark}{c if c > 1 else ' '}" if c < 10 else f"{mark}{c}"
        return "  ."
    top = "".join(point(p) for p in range(13, 19)) + " |" + "".join(point(p) for p in range(19, 25))
    bottom = "".join(point(p) for p in range(12, 6, -1)) + " |" + \
        "".join(point(p) for p in range(6, 0, -1))
    numbers_top = "".join(f"{p:>3}" for p in range(13, 19)) + "  " + \
        "".join(f"{p:>3}" for p in range(19, 25))
    numbers_bottom = "".join(f"{p:>3}" for p in range(12, 6, -1)) + "  " + \
        "".join(f"{p:>3}" for p in range(6, 0, -1))
    lines = [numbers_top, top, bottom, numbers_bottom]
    for seat, name in enumerate(SIDES):
        counts = seats[seat]
        lines.append(f"  {name}: bar {int(counts[BAR])}, off "
                     f"{pieces - int(counts[1:].sum())}, "
                     f"{int(sum(p * int(c) for p, c in enumerate(counts)))} pips")
    return "\n".join(lines) + (f"\n  (points numbered as white counts them; gnubg position "
                              f"ID {gnubg_id(board_of(code))})")


def events(code: int, move: dict, board_of) -> list[str]:
    """What a move does, in words: enters, hits, bears off."""
    board = board_of(code)
    after = _next_board_as_mover(move["position"], board_of)
    said = []
    if after[BAR] < board[BAR]:
        said.append("enters from the bar")
    hits = int(after[THEM + BAR] - board[THEM + BAR])
    if hits:
        said.append(f"hits {hits} checker{'s' if hits > 1 else ''}")
    off = int(after[OFF] - board[OFF])
    if off:
        said.append(f"bears off {off} checker{'s' if off > 1 else ''}")
    return said


def presentation(pieces: int, code_layout: str, board_of) -> Presentation:
    """What people see of the rule set whose codes `board_of` reads."""
    def bound(function, **more):
        return partial(function, board_of=board_of, **more)
    return Presentation(sides=SIDES, square_names=SQUARE_NAMES, layout=_layout(),
                        draw=bound(draw, pieces=pieces), view=bound(view, pieces=pieces),
                        cell=cell, events=bound(events), code_layout=code_layout,
                        rules_file=RULES_DOCS / "backgammon.md",
                        notation=bound(move_notation), steps=bound(move_steps),
                        orders=bound(move_orders), throw_text=dice_text,
                        win_words="bears off the last checker and wins")
