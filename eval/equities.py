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

from tabula.games.cube import CENTERED, FLIP, OWNED, UNAVAILABLE
from tabula.games.game import OVER
from tabula.infra.batch import all_throws
from tabula.solver.contact import VALUES, cubeless_equity, turned_chances, won_chances
from tabula.solver.two_sided import cube_equity, doubles, takes

CHANCES = VALUES[:5]   # a contact table's cubeless chances (solver/contact.py)

TIE = 1e-6       # equities this close are the same decision


CUBE_EFFICIENCY = 0.68   # the share of a live cube's value a position keeps (Janowski's
                         # x; the value GNU Backgammon takes for positions with contact)


def janowski(chances, efficiency: float = CUBE_EFFICIENCY) -> np.ndarray:
    """(n, 3): the no-double equities, cube centred, owned and unavailable, of the side
    on roll from its five cubeless chances by Janowski's model of the cube (R. Janowski,
    "Take-Points in Money Games", 1993): a mix, by the cube's efficiency, of the cubeless
    equity (a dead cube) and a live cube's equity, which is linear in the winning chance
    p between the points where the game's value turns: from -L at p = 0 (L, W: the
    points an average loss and win are worth) to W at p = 1, through -1 at its take
    point TP = (L - 1/2) / (W + L + 1/2), where the opponent cashes if it may double
    (centred, unavailable), and +1 at its cash point CP = (L + 1) / (W + L + 1/2), where
    it cashes if it may (centred, owned)."""
    win, wg, wbg, lg, lbg = (np.asarray(c, dtype=np.float64) for c in np.asarray(chances).T)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(win > 0, 1 + (wg + wbg) / win, 1.0)
        loss = np.where(win < 1, 1 + (lg + lbg) / (1 - win), 1.0)
    take_point = (loss - 0.5) / (w + loss + 0.5)
    cash_point = (loss + 1) / (w + loss + 0.5)

    def line(x0, y0, x1, y1):   # the live equity at win between (x0, y0) and (x1, y1)
        return y0 + (y1 - y0) * (win - x0) / (x1 - x0)
    from_loss_to_cash = np.where(win < cash_point, line(0, -loss, cash_point, 1),
                                 line(cash_point, 1, 1, w))
    live = {OWNED: from_loss_to_cash,
            UNAVAILABLE: np.where(win < take_point, line(0, -loss, take_point, -1),
                                  line(take_point, -1, 1, w)),
            CENTERED: np.where(win < take_point, line(0, -loss, take_point, -1),
                               np.where(win < cash_point, line(take_point, -1, cash_point, 1),
                                        from_loss_to_cash))}
    dead = cubeless_equity(win, wg, wbg, lg, lbg)
    return np.stack([efficiency * live[state] + (1 - efficiency) * dead
                     for state in (CENTERED, OWNED, UNAVAILABLE)], axis=1)


class Equities:
    """Cubeful equities of positions from an (n, k) array of values in `names` order
    (or a winning chance alone, names ("win",): see the module's docstring)."""

    def __init__(self, values, names):
        self.v = np.asarray(values, dtype=np.float64).reshape(len(values), len(names))
        self.col = {name: k for k, name in enumerate(names)}

    @classmethod
    def of_chances(cls, chances) -> "Equities":
        """From five cubeless chances, the cube's equities by Janowski's model."""
        chances = np.asarray(chances, dtype=np.float64)
        return cls(np.hstack([chances, janowski(chances)]),
                   CHANCES + (CENTERED, OWNED, UNAVAILABLE))

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


def searched_chances(game, chances_of):
    """codes -> (n, 5) the cubeless chances of the side on roll by one throw of
    expectimax: each throw's best move by cubeless equity (a blocked throw passes), the
    chances after it (the mover's), averaged over the throws; in chunks that hold at most
    SEARCH_CELLS moves. chances_of: codes -> (n, 5) the chances of the side on roll."""
    def values(codes) -> np.ndarray:
        codes = np.asarray(codes, dtype=game.code_dtype)
        n_throws = len(game.throws)
        chunk = max(1, SEARCH_CELLS // (n_throws * game.max_moves))
        out = np.empty((len(codes), len(CHANCES)))
        for s in range(0, len(codes), chunk):
            part = codes[s:s + chunk]
            counts, next_codes, infos = all_throws(game.moves, game.mirror, game.throws,
                                                   game.max_moves, part)
            rows = len(part) * n_throws
            after = chances_after(game, counts.ravel(), next_codes.reshape(rows, -1),
                                  infos.reshape(rows, -1), chances_of)
            worth = np.where(np.isnan(after[..., 0]), -np.inf, cubeless_equity(
                *np.moveaxis(after, -1, 0)))
            best = after[np.arange(rows), worth.argmax(axis=1)]
            out[s:s + chunk] = np.einsum("ntk,t->nk", best.reshape(len(part), n_throws, -1),
                                         game.probs)
        return out
    return values


def chances_after(game, counts, next_codes, infos, chances_of) -> np.ndarray:
    """(decisions, moves, 5): the mover's cubeless chances after each move of decisions
    in decision form (a winning move's by its size, any other the opponent's there
    turned round); NaN past each decision's moves."""
    live = np.arange(next_codes.shape[1]) < np.asarray(counts)[:, None]
    over = (infos & OVER) != 0
    out = np.full(next_codes.shape + (len(CHANCES),), np.nan)
    need = live & ~over
    if need.any():
        theirs = np.asarray(chances_of(next_codes[need]), dtype=np.float64)
        out[need] = np.stack(turned_chances(theirs.T), axis=1)
    for i, j in zip(*np.nonzero(live & over)):
        out[i, j] = won_chances(game.points_won(next_codes[i, j]))
    return out


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
