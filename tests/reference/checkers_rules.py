"""Checkers, plain Python, straight from shared/rules/checkers.md, and a brute-force
solve of small endgames over these rules alone (no bitboards, no index, no symmetry).

A position is (pieces, side): pieces a frozenset of (square, colour, king) with squares
1..32 of the rules' numbering, colour "black" (moves to higher rows) or "white"; side
the colour to move. A move is (landings, next position): landings from the origin.
"""
from itertools import combinations, product

BLACK, WHITE = "black", "white"


def coordinates(square: int) -> tuple[int, int]:
    row = (square - 1) // 4
    return row, 2 * ((square - 1) % 4) + (1 if row % 2 == 0 else 0)


SQUARE_AT = {coordinates(square): square for square in range(1, 33)}


def square_at(row: int, col: int) -> int | None:
    return SQUARE_AT.get((row, col))


def other(colour: str) -> str:
    return WHITE if colour == BLACK else BLACK


def directions(colour: str, king: bool) -> list[tuple[int, int]]:
    forward = 1 if colour == BLACK else -1
    rows = (forward, -forward) if king else (forward,)
    return [(dr, dc) for dr in rows for dc in (-1, 1)]


def far_row(colour: str) -> int:
    return 7 if colour == BLACK else 0


def jumps(board: dict, square: int, colour: str, king: bool, path: tuple) -> list:
    """Every whole capture chain of the piece now on `square` (board without it): a list
    of (landings, board after)."""
    chains = []
    row, col = coordinates(square)
    for dr, dc in directions(colour, king):
        over = square_at(row + dr, col + dc)
        land = square_at(row + 2 * dr, col + 2 * dc)
        if over is None or land is None or land in board:
            continue
        if over not in board or board[over][0] == colour:
            continue
        after = {s: p for s, p in board.items() if s != over}
        crowned = not king and coordinates(land)[0] == far_row(colour)
        if crowned:
            chains.append((path + (land,), {**after, land: (colour, True)}))
            continue
        further = jumps(after, land, colour, king, path + (land,))
        chains.extend(further or [(path + (land,), {**after, land: (colour, king)})])
    return chains


def moves(position) -> list:
    """The legal moves: the capture chains if any, else the steps."""
    pieces, side = position
    board = {square: (colour, king) for square, colour, king in pieces}
    found = []
    for square, (colour, king) in board.items():
        if colour != side:
            continue
        rest = {s: p for s, p in board.items() if s != square}
        for landings, after in jumps(rest, square, colour, king, ()):
            found.append(((square,) + landings, after))
    if not found:
        for square, (colour, king) in board.items():
            if colour != side:
                continue
            row, col = coordinates(square)
            for dr, dc in directions(colour, king):
                to = square_at(row + dr, col + dc)
                if to is None or to in board:
                    continue
                after = {s: p for s, p in board.items() if s != square}
                after[to] = (colour, king or coordinates(to)[0] == far_row(colour))
                found.append(((square, to), after))
    return [(path, (frozenset((s, c, k) for s, (c, k) in after.items()), other(side)))
            for path, after in found]


def positions(pieces: int) -> list:
    """Every position with 2..pieces pieces, both colours on the board, either side to
    move (men never on their far row)."""
    kinds = [(c, k) for c in (BLACK, WHITE) for k in (False, True)]
    found = []
    for n in range(2, pieces + 1):
        for squares in combinations(range(1, 33), n):
            for chosen in product(kinds, repeat=n):
                if any(not k and coordinates(s)[0] == far_row(c)
                       for s, (c, k) in zip(squares, chosen)):
                    continue
                if {c for c, _ in chosen} != {BLACK, WHITE}:
                    continue
                board = frozenset((s, c, k) for s, (c, k) in zip(squares, chosen))
                found.extend([(board, BLACK), (board, WHITE)])
    return found


def solve(pieces: int) -> dict:
    """position -> plies to the end with best play (odd: the side to move wins, even: it
    loses), or None for a draw; depth by depth: lost in d when every move leads to a
    position won in fewer plies, won in d when a move leads to one lost in d - 1 (a move
    that takes the last piece leaves the other side lost at once)."""
    every = positions(pieces)
    number = {position: i for i, position in enumerate(every)}
    LOST_AT_ONCE = -1
    graph = [[number[nxt] if _both_sides(nxt) else LOST_AT_ONCE for _, nxt in moves(p)]
             for p in every]
    depth = [None] * len(every)
    d = 0
    quiet = 0
    open_positions = range(len(every))
    while quiet < 2:
        found = []
        for i in open_positions:
            if d % 2 == 0:    # lost: every move leads to a win for the other side
                decided = all(s != LOST_AT_ONCE and depth[s] is not None and depth[s] % 2 == 1
                              for s in graph[i])
            else:             # won: a move to a loss
                decided = any((depth[s] == d - 1) if s != LOST_AT_ONCE else d == 1
                              for s in graph[i])
            if decided:
                found.append(i)
        for i in found:
            depth[i] = d
        open_positions = [i for i in open_positions if depth[i] is None]
        quiet = 0 if found else quiet + 1
        d += 1
    return dict(zip(every, depth))


def _both_sides(position) -> bool:
    pieces, _ = position
    return len({colour for _, colour, _ in pieces}) == 2
