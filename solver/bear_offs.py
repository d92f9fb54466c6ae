"""Bear-offs of a game with contact valued by the bear-off tables: where both sides
have every checker home (games.game.BearOffs: standard backgammon), their races no
longer meet. With at most TWO_SIDED checkers a side the winning chance is the exact
two-sided table's (two_sided.py; no gammon is left); otherwise the cubeless chances
follow from each side's chance of needing r throws to bear off, and, with none off
yet, to bear off its first (one_sided.py), each side playing to need the fewest throws
on average: near the best winning chances, not always at them. Both are what GNU
Backgammon's bear-off databases hold (tests/test_bear_offs.py). The tables are built
in memory the first time a process needs them (seconds).

with_bear_offs puts these chances in the place of a network's (its cube's columns
stay), for play and for self-play.
"""
from functools import cache

import numpy as np

from .one_sided import bear_off_chances, throws_to_bear_off, throws_to_first_off
from .side_moves import side_moves
from .two_sided import solve_two_sided

CHANCES = 5     # the first five values of a contact network or table (contact.py)
TWO_SIDED = 6   # checkers a side of the exact two-sided table (gnubg's own is of 6)


class BearOffValues:
    """The tables of a race game's sides (games.game.BearOffs.race): one-sided of
    `pieces` checkers, two-sided of up to TWO_SIDED."""

    def __init__(self, race_game, pieces: int):
        full = race_game(pieces)
        moves = side_moves(full)
        self.side_index = full.race.side_index
        self.off = throws_to_bear_off(full, moves=moves)
        self.first = throws_to_first_off(full, moves=moves)
        self.wins = solve_two_sided(race_game(TWO_SIDED), quiet=True)["win"]

    def chances(self, sides) -> np.ndarray:
        """The five cubeless chances of the player on roll, sides (n, 2) its race side
        and the other's."""
        index = np.vectorize(self.side_index, otypes=[np.int64])(np.asarray(sides))
        mine, theirs = index[:, 0], index[:, 1]
        out = bear_off_chances(self.off, self.first, mine, theirs)
        small = (mine < len(self.wins)) & (theirs < len(self.wins))  # fewer checkers first
        out[small] = 0.0
        out[small, 0] = self.wins[mine[small], theirs[small]]
        return out


@cache
def bear_off_values(bear_offs, pieces: int) -> BearOffValues:
    return BearOffValues(bear_offs.race, pieces)


def with_bear_offs(game, values_of):
    """values_of (codes -> a contact network's or table's values), its chances taken
    from the bear-off tables where both sides bear off; values_of itself for a game
    that declares no bear-offs."""
    if game.bear_offs is None:
        return values_of

    def values(codes) -> np.ndarray:
        out = np.array(values_of(codes), dtype=np.float64)
        home, sides = game.bear_offs.home_sides(np.asarray(codes))
        if home.any():
            out[home, :CHANCES] = bear_off_values(game.bear_offs, game.pieces).chances(
                sides[home])
        return out
    return values
