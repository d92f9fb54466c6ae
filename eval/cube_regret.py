"""How many points a player gives away in a race with the doubling cube (money play),
measured exactly against a race table (solver/race_table.py): checker play and cube
decisions apart.

A player is a source of values (solver.values order: the cubeless chances, then the
no-double cubeful equities centered, owned, unavailable) for positions seen by the
player on roll: the table itself ("perfect"), or a network's outputs ("net"). From
those values it plays as docs/rules/bearoff.md says a perfect player does: each move
for the equity of the cube state at hand, a double when 2 ND(unavailable) >= ND (and
ND <= 1), a take when 2 ND(unavailable) of the doubler is below 1.

Games start from random positions with `pieces` checkers a side (each side's checkers
spread uniformly over the compositions), cube centred at 1, and the player plays both
sides. Every decision is scored by the table, in points at the cube value of the
moment: a move by the best move's exact equity less the chosen one's, a double or not
by max(ND, min(2 ND(unavailable), 1)) less the chosen, a take or pass by the best of
-2 ND(unavailable) and -1 less the chosen.
"""
from dataclasses import dataclass

import numpy as np

from tabula.games.game import OVER
from tabula.infra.rng import cumulative
from tabula.infra.progress import Progress
from tabula.solver.two_sided import cube_equity, doubles, takes
from tabula.solver.values import value_names

CENTERED, OWNED, UNAVAILABLE = "centered", "owned", "unavailable"
FLIP = {CENTERED: CENTERED, OWNED: UNAVAILABLE, UNAVAILABLE: OWNED}  # the other's view
TIE = 1e-6       # equities this close are the same decision


class Equities:
    """Cubeful equities of positions from an (n, k) array of values in value_names
    order."""

    def __init__(self, values, names):
        self.v = np.asarray(values, dtype=np.float64).reshape(len(values), len(names))
        self.col = {name: k for k, name in enumerate(names)}

    def no_double(self, state):
        return self.v[:, self.col[state]]

    def chance(self):
        """The cubeless winning chance."""
        return self.v[:, self.col["win"]]

    def with_cube(self, state):
        """The equity with the cube action taken well, for the player on roll."""
        nd = self.no_double(state)
        if state == UNAVAILABLE:
            return nd
        return np.maximum(nd, np.minimum(2 * self.no_double(UNAVAILABLE), 1.0))


def move_equities(values_of, next_codes, overs, state, win_points):
    """The mover's equity after each move, the cube in `state` for the mover."""
    out = np.asarray(win_points, dtype=np.float64).copy()
    live = ~np.asarray(overs, dtype=bool)
    if live.any():
        out[live] = -values_of(np.asarray(next_codes)[live]).with_cube(FLIP[state])
    return out


@dataclass
class CubePlayer:
    name: str
    values_of: callable          # codes -> Equities
    model_sha256: str | None = None

    def move(self, next_codes, overs, state, win_points) -> int:
        return int(np.argmax(move_equities(self.values_of, next_codes, overs, state,
                                           win_points)))

    def doubles(self, code, state) -> bool:
        e = self.values_of(np.array([code]))
        return doubles(e.no_double(state)[0], e.no_double(UNAVAILABLE)[0])

    def takes(self, code) -> bool:
        """Facing a double in `code` (seen by the doubler)."""
        return takes(self.values_of(np.array([code])).no_double(UNAVAILABLE)[0])


def table_player(table) -> CubePlayer:
    names = value_names(table.game)
    return CubePlayer("perfect", lambda codes: Equities(table.values(codes), names))


def net_player(model) -> CubePlayer:
    names = value_names(model.game)
    return CubePlayer(f"net:{model.path}", lambda codes: Equities(model.predict(codes), names),
                      model.manifest.get("sha256") if model.manifest else None)


def cube_player(spec: str, table) -> CubePlayer:
    """perfect, or net:MODEL.onnx (a model of the table's game and checkers)."""
    from tabula.export.model_file import OnnxValueModel
    from tabula.infra.errors import TabulaError
    if spec == "perfect":
        return table_player(table)
    if spec.startswith("net:"):
        game = table.game
        return net_player(OnnxValueModel(spec[4:], game=game.name, pieces=game.pieces,
                                         rules=game.rules))
    raise TabulaError(f"player {spec!r}: with the cube, players are perfect and "
                      "net:MODEL.onnx")


def random_start(game, rng) -> int:
    """Each side's `pieces` checkers on a composition drawn uniformly."""
    race, n = game.race, game.pieces
    first = race.n_sides(n - 1)
    sides = rng.integers(first, race.n_sides(n), size=2)
    return int(race.side_of_index(sides[0])) | (int(race.side_of_index(sides[1]))
                                                << race.side_bits)


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


@dataclass
class CubeRegret:
    summary: dict             # the figures (tabula eval regret --json prints them)
    loss_points: np.ndarray   # every decision's loss, in points at its cube value


def cube_regret(table, player: CubePlayer, games: int, seed: int,
                quiet: bool = False) -> CubeRegret:
    """Play `games` games (the player on both sides) and score every decision."""
    game = table.game
    perfect = table_player(table)
    rng = np.random.default_rng(seed)
    cum = cumulative(game.probs)
    out_codes = np.zeros(game.max_moves, dtype=np.int64)
    out_info = np.zeros(game.max_moves, dtype=np.int64)
    race = game.race
    loss = {"checker": 0.0, "cube": 0.0}
    count = {"checker": 0, "cube": 0}
    errors = {"checker": 0, "cube": 0}
    losses = []
    points_won = 0.0      # by the side that rolls first, for a sanity figure
    progress = Progress("cube regret", games, "games", quiet)

    def score(kind, lost, value):
        lost *= value
        loss[kind] += lost
        count[kind] += 1
        errors[kind] += lost > TIE
        losses.append(lost)

    for g in range(games):
        code = random_start(game, rng)
        cube, owner, seat = 1.0, None, 0      # owner: the seat owning the cube (None: centred)
        while True:
            state = CENTERED if owner is None else (OWNED if owner == seat else UNAVAILABLE)
            if state != UNAVAILABLE:
                exact = perfect.values_of(np.array([code]))
                nd, unavailable = exact.no_double(state)[0], exact.no_double(UNAVAILABLE)[0]
                doubled = player.doubles(code, state)
                score("cube", double_loss(nd, unavailable, doubled), cube)
                if doubled:
                    taken = player.takes(code)
                    score("cube", take_loss(unavailable, taken), cube)
                    if not taken:
                        points_won += cube if seat == 0 else -cube
                        break
                    cube, owner = 2 * cube, 1 - seat
                    state = UNAVAILABLE
            throw = game.throws[int(np.searchsorted(cum, rng.random(), side="right"))]
            n = game.moves(np.int64(code), np.int64(throw), out_codes, out_info)
            overs = (out_info[:n] & OVER) != 0
            win = float(race.win_points(code))
            win_points = np.full(n, win)
            choice = player.move(out_codes[:n], overs, state, win_points) if n > 1 else 0
            if n > 1:
                exact = move_equities(perfect.values_of, out_codes[:n], overs, state, win_points)
                score("checker", exact.max() - exact[choice], cube)
            if overs[choice]:
                points_won += win * cube if seat == 0 else -win * cube
                break
            code, seat = int(out_codes[choice]), 1 - seat
        progress.update(g + 1)
    progress.done(f"{games:,} games")
    total = loss["checker"] + loss["cube"]
    losses = np.array(losses)
    return CubeRegret({"player": player.name, "model_sha256": player.model_sha256,
                       "games": games, "seed": seed,
            "loss_per_game_points": float(total / games),
            "checker_loss_per_game_points": float(loss["checker"] / games),
            "cube_loss_per_game_points": float(loss["cube"] / games),
            "checker_decisions": count["checker"], "cube_decisions": count["cube"],
            "checker_error_rate": float(errors["checker"] / max(count["checker"], 1)),
            "cube_error_rate": float(errors["cube"] / max(count["cube"], 1)),
            "worst_loss_points": float(losses.max(initial=0.0)),
            "first_roller_points_per_game": float(points_won / games)}, losses)
