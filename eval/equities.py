"""Money equities of positions, and what a player does with them in a game played with
the doubling cube (games/cube.py): each move for the equity of the cube state at hand,
a double when 2 ND(unavailable) >= ND (and ND <= 1), a take when 2 ND(unavailable) of
the doubler is below 1 (docs/rules/bearoff.md; gnubg's rules, solver/two_sided.py).

Values come in value_names order (solver/values.py): a race table's or its network's
cubeless chances and no-double cubeful equities centred, owned and unavailable; or a
winning chance alone (a layered table, a network of one, the heuristic), whose equity
in every cube state is 2 p - 1, as if the cube were dead: an estimate, not the value
of the cube's access.
"""
import numpy as np

from tabula.games.cube import FLIP, UNAVAILABLE
from tabula.games.game import OVER
from tabula.infra.batch import all_throws
from tabula.solver.contact import VALUES, cubeless_equity
from tabula.solver.two_sided import cube_equity, doubles, takes

CHANCES = VALUES[:5]   # a contact table's cubeless chances (solver/contact.py)

TIE = 1e-6       # equities this close are the same decision


class Equities:
    """Cubeful equities of positions from an (n, k) array of values in `names` order
    (or a winning chance alone, names ("win",): see the module's docstring)."""

    def __init__(self, values, names):
        self.v = np.asarray(values, dtype=np.float64).reshape(len(values), len(names))
        self.col = {name: k for k, name in enumerate(names)}

    def no_double(self, state):
        if state not in self.col:   # a winning chance alone: the cube dead
            return 2 * self.chance() - 1
        return self.v[:, self.col[state]]

    def chance(self):
        """The cubeless winning chance."""
        return self.v[:, self.col["win"]]

    def cubeless(self):
        """The cubeless equity: gammons and backgammons counted where the values give
        their chances (a contact table's or network's), else 2 p - 1."""
        if "lose_backgammon" not in self.col:
            return 2 * self.chance() - 1
        return cubeless_equity(*(self.v[:, self.col[name]] for name in CHANCES))

    def with_cube(self, state):
        """The equity with the cube action taken well, for the player on roll."""
        nd = self.no_double(state)
        if state == UNAVAILABLE:
            return nd
        return cube_equity(nd, self.no_double(UNAVAILABLE))

    def doubles(self, state) -> bool:
        """Whether the player on roll (the first position) doubles, the cube in `state`."""
        return doubles(self.no_double(state)[0], self.no_double(UNAVAILABLE)[0])

    def takes(self) -> bool:
        """Whether the side facing a double in the first position (seen by the doubler)
        takes."""
        return takes(self.no_double(UNAVAILABLE)[0])


def won_points(game, cube, next_codes, overs) -> np.ndarray:
    """What each move that ends the game wins a unit of stake at `cube` (a CubeState of
    game.cube): its points_won at the cube's value; 0 for the others, which
    move_equities values by the equities."""
    out = np.zeros(len(overs))
    for j in np.flatnonzero(overs):
        out[j] = game.cube.points_a_unit(cube, game.points_won(next_codes[j]))
    return out


def move_equities(equities_of, next_codes, overs, state, win_points):
    """The mover's equity after each move, the cube in `state` for the mover;
    equities_of: codes -> Equities."""
    out = np.asarray(win_points, dtype=np.float64).copy()
    live = ~np.asarray(overs, dtype=bool)
    if live.any():
        out[live] = -equities_of(np.asarray(next_codes)[live]).with_cube(FLIP[state])
    return out


def cubeless_move_equities(game, codes, counts, next_codes, infos, cubeless_of):
    """The mover's cubeless equity after each move of decisions in decision form: what
    a move that wins wins, any other minus the opponent's cubeless equity there
    (cubeless_of: codes -> the cubeless equity of the side on roll); -inf past each
    decision's moves."""
    live = np.arange(next_codes.shape[1]) < np.asarray(counts)[:, None]
    over = (infos & OVER) != 0
    worth = np.full(next_codes.shape, -np.inf)
    need = live & ~over
    if need.any():
        worth[need] = -np.asarray(cubeless_of(next_codes[need]), dtype=np.float64)
    for i, j in zip(*np.nonzero(live & over)):
        worth[i, j] = game.points_won(next_codes[i, j])
    return worth


def cubeless_chooser(game, cubeless_of):
    """A player's choose (eval/players.py) that plays each decision's move of best
    cubeless equity (cubeless_move_equities; the first of equals)."""
    def choose(codes, counts, next_codes, infos, rand, seconds=None):
        return np.argmax(cubeless_move_equities(game, codes, counts, next_codes, infos,
                                                cubeless_of), axis=1)
    return choose


SEARCH_CELLS = 2_000_000   # moves (positions x throws x max_moves) held at once, at most


def searched_cubeless(game, cubeless_of):
    """codes -> the cubeless equity of the side on roll by one throw of expectimax: each
    throw's best move by cubeless_of (a blocked throw passes), averaged over the throws;
    in chunks that hold at most SEARCH_CELLS moves."""
    def values(codes) -> np.ndarray:
        codes = np.asarray(codes, dtype=game.code_dtype)
        n_throws = len(game.throws)
        chunk = max(1, SEARCH_CELLS // (n_throws * game.max_moves))
        out = np.empty(len(codes))
        for s in range(0, len(codes), chunk):
            part = codes[s:s + chunk]
            counts, next_codes, infos = all_throws(game.moves, game.mirror, game.throws,
                                                   game.max_moves, part)
            worth = cubeless_move_equities(
                game, np.repeat(part, n_throws), counts.ravel(),
                next_codes.reshape(len(part) * n_throws, -1),
                infos.reshape(len(part) * n_throws, -1), cubeless_of)
            out[s:s + chunk] = worth.max(axis=1).reshape(len(part), n_throws) @ game.probs
        return out
    return values


def double_loss(nd, unavailable, doubled: bool) -> float:
    """Equity (a unit of cube) the player on roll gives away by doubling or not: the
    better of not doubling (nd) and doubling (2 ND(unavailable), 1 at most, the
    opponent answering well) less the chosen."""
    return cube_equity(nd, unavailable) - (min(2 * unavailable, 1.0) if doubled else nd)


def take_loss(unavailable, taken: bool) -> float:
    """Equity (a unit of cube) the player facing a double gives away by taking or
    passing; `unavailable`: the doubler's ND(unavailable), so taking is worth
    -2 ND(unavailable) to the taker and passing -1."""
    taker = -2 * unavailable
    return max(taker, -1.0) - (taker if taken else -1.0)
