"""How many points a player gives away in a game played for money with the doubling
cube (games/cube.py), measured exactly against a table with cubeful equities (a race
table, solver/race_table.py): checker play and cube decisions apart.

A player plays with its money view of positions (Player.equities, eval/equities.py):
the table itself ("perfect"), a network's outputs ("net"), or the heuristic's winning
chance with the cube dead.

Games start where the game's money games start (games/state.begin: a bear-off deals
each side's checkers at random), cube centred at 1, and the player plays both sides.
Every decision is scored by the table, in points at the cube value of the moment: a
move by the best move's exact equity less the chosen one's, a double or not by
max(ND, min(2 ND(unavailable), 1)) less the chosen, a take or pass by the best of
-2 ND(unavailable) and -1 less the chosen.
"""
from dataclasses import dataclass

import numpy as np

from tabula.games.cube import UNAVAILABLE
from tabula.games.game import OVER as OVER_FLAG
from tabula.games.state import (ACCEPT, DOUBLE, MOVE, OVER, PASS, PLAY, ROLL, Action,
                                begin, may_double, step)
from tabula.infra.errors import TabulaError
from tabula.infra.rng import cumulative
from tabula.infra.progress import Progress

from .equities import TIE, Equities, double_loss, move_equities, take_loss, won_points
from .players import Player


def starts_text(game) -> str:
    """Where the games of cube_regret start (games/state.begin), in words."""
    if game.deal is None:
        return "from the start position"
    return f"from random starts with {game.pieces} checkers a side"


@dataclass
class CubeRegret:
    summary: dict             # the figures (tabula eval regret --json prints them)
    loss_points: np.ndarray   # every decision's loss, in points at its cube value
    codes: np.ndarray         # the position of each decision, seen by the side on roll
    checker: np.ndarray       # whether each decision is a checker play (else the cube's)
    cube_values: np.ndarray   # the cube's value at each decision


def cube_regret(table, player: Player, games: int, seed: int,
                quiet: bool = False) -> CubeRegret:
    """Play `games` games (the player, a money player of eval/players.py, on both sides)
    and score every decision."""
    game, rules = table.game, table.game.cube
    if len(table.value_names) == 1:
        raise TabulaError(f"{table.path} holds winning chances alone, no cubeful equities: "
                          "cube decisions cannot be scored exactly (measure checker play "
                          "with --cubeless)")

    def exact_of(codes):
        return Equities(table.values(codes), table.value_names)
    rng = np.random.default_rng(seed)
    cum = cumulative(game.probs)
    loss = {"checker": 0.0, "cube": 0.0}
    count = {"checker": 0, "cube": 0}
    errors = {"checker": 0, "cube": 0}
    losses, codes, kinds, values = [], [], [], []
    points_won = 0.0      # by the side that rolls first, for a sanity figure
    progress = Progress("cube regret", games, "games", quiet)

    def score(kind, lost, value, code):
        lost *= value
        loss[kind] += lost
        count[kind] += 1
        errors[kind] += lost > TIE
        losses.append(lost)
        codes.append(code)
        kinds.append(kind == "checker")
        values.append(value)

    for g in range(games):
        now = begin(game, rng)
        while now.phase != OVER:
            if may_double(game, now):
                state = rules.access(now.cube, now.seat)
                exact = exact_of(np.array([now.code]))
                nd, unavailable = exact.no_double(state)[0], exact.no_double(UNAVAILABLE)[0]
                doubled = player.doubles(now.code, state)
                score("cube", double_loss(nd, unavailable, doubled), now.cube.value, now.code)
                if doubled:
                    taken = player.takes(now.code)
                    score("cube", take_loss(unavailable, taken), now.cube.value, now.code)
                    now = step(game, step(game, now, Action(DOUBLE)),
                               Action(ACCEPT if taken else PASS))
                    if not taken:
                        break
            cube = now.cube   # after the cube's action: the state the move is played in
            state = rules.access(cube, now.seat)
            throw = game.throws[int(np.searchsorted(cum, rng.random(), side="right"))]
            now = step(game, now, Action(ROLL, throw))
            if now.phase != MOVE:
                continue
            n, overs = len(now.infos), (now.infos & OVER_FLAG) != 0
            win_points = won_points(game, cube, now.next_codes, overs)
            choice = player.money_move(now.code, now.next_codes, overs, state,
                                       win_points) if n > 1 else 0
            if n > 1:
                exact = move_equities(exact_of, now.next_codes, overs, state, win_points)
                score("checker", exact.max() - exact[choice], cube.value, now.code)
            now = step(game, now, Action(PLAY, choice))
        points_won += now.points if now.winner == 0 else -now.points
        progress.update(g + 1)
    progress.done(f"{games:,} games")
    total = loss["checker"] + loss["cube"]
    losses = np.array(losses)
    return CubeRegret({"player": player.spec, "model_sha256": player.model_sha256,
                       "games": games, "seed": seed,
            "loss_per_game_points": float(total / games),
            "checker_loss_per_game_points": float(loss["checker"] / games),
            "cube_loss_per_game_points": float(loss["cube"] / games),
            "checker_decisions": count["checker"], "cube_decisions": count["cube"],
            "checker_error_rate": float(errors["checker"] / max(count["checker"], 1)),
            "cube_error_rate": float(errors["cube"] / max(count["cube"], 1)),
            "worst_loss_points": float(losses.max(initial=0.0)),
            "first_roller_points_per_game": float(points_won / games)}, losses,
        np.array(codes, dtype=np.int64), np.array(kinds, dtype=bool), np.array(values))
