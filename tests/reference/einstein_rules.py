"""EinStein würfelt nicht!, plain Python, straight from shared/rules/einstein.md, and
a brute-force solve by recursion over these rules alone (no codes, ranks or layers).

A state is (me, opp): tuples of (cube number, row, col), sorted, seen by the side
about to throw, which heads for (n-1, n-1); the other side heads for (0, 0).
"""
from functools import cache


def movable(me: tuple, throw: int) -> list:
    """The cubes a throw lets move: the thrown one, else the nearest numbers above
    and below that are left."""
    numbers = [number for number, _, _ in me]
    if throw in numbers:
        return [throw]
    higher = [x for x in numbers if x > throw]
    lower = [x for x in numbers if x < throw]
    return ([min(higher)] if higher else []) + ([max(lower)] if lower else [])


def turned(cubes: tuple, n: int) -> tuple:
    """The cubes seen from the other side: the board turned by half a turn."""
    return tuple(sorted((number, n - 1 - r, n - 1 - c) for number, r, c in cubes))


def moves(state: tuple, throw: int, n: int) -> list:
    """(won, the next state seen by the other side) for each legal move."""
    me, opp = state
    result = []
    for number in movable(me, throw):
        _, r, c = next(cube for cube in me if cube[0] == number)
        for dr, dc in ((0, 1), (1, 0), (1, 1)):
            to = (r + dr, c + dc)
            if max(to) >= n:
                continue
            new_me = tuple(sorted([cube for cube in me if cube[0] != number
                                   and cube[1:] != to] + [(number, *to)]))
            new_opp = tuple(cube for cube in opp if cube[1:] != to)
            won = to == (n - 1, n - 1) or not new_opp
            result.append((won, (turned(new_opp, n), turned(new_me, n))))
    return result


def solver(n: int, cubes: int):
    """value(state): the winning chance of the side about to throw under best play."""
    @cache
    def value(state):
        total = 0.0
        for throw in range(1, cubes + 1):
            total += max(1.0 if won else 1.0 - value(after)
                         for won, after in moves(state, throw, n)) / cubes
        return total
    return value


def as_json(state: tuple) -> dict:
    """The state in tabula's position JSON."""
    return {key: {str(number): [r, c] for number, r, c in side}
            for key, side in zip(("me", "opp"), state)}
