"""Duplicate money play with the doubling cube between two players (games/cube.py), one
decision at a time through games/state.

Pair k is two games on pair k's throws (the t-th throw of each game is the t-th of the
pair's stream): A sits on the side that throws first in the first game, B in the
second. Each player doubles, takes and moves by its money play (eval/players.py:
Player.doubles, takes, move_with_cube). A's points a game (what it won less what it lost,
at the cube's value) come with a 95% interval from the spread of the pairs' means, as
the cubeless match's (eval/measures.py).
"""
import time

import numpy as np

from tabula.games.state import (ACCEPT, DOUBLE, MOVE, OVER, PASS, PLAY, ROLL, Action,
                                begin, may_double, step)
from tabula.infra.errors import TabulaError
from tabula.infra.progress import Progress
from tabula.infra.rng import cumulative, draw_throw, stream_key

from .measures import same_variant, interval95

MAX_THROWS = 10_000   # a game's throws, at most (a standard game has some 55)


def money_game(game, seated, key, rng) -> tuple[int, int, int, bool]:
    """One game between seated[0] (on roll first) and seated[1], the t-th throw drawn from
    stream `key` at counter t (a dealt start, Game.deal, and the players' random numbers
    from `rng`): the winner's seat, the points won, the cube's last value and whether a
    double was passed."""
    rules, cum = game.cube, cumulative(game.probs)
    now, throws = begin(game, rng), 0
    while now.phase != OVER:
        player = seated[now.seat]
        if may_double(game, now) and player.doubles(now.code,
                                                    rules.access(now.cube, now.seat)):
            now = step(game, now, Action(DOUBLE))
            taken = seated[1 - now.seat].takes(now.code)
            now = step(game, now, Action(ACCEPT if taken else PASS))
            continue
        if throws >= MAX_THROWS:
            raise TabulaError(f"a money game ran past {MAX_THROWS:,} throws")
        now = step(game, now, Action(ROLL, draw_throw(game.throws, cum, key, throws)))
        throws += 1
        if now.phase != MOVE:
            continue
        choice = 0 if len(now.infos) == 1 else player.move_with_cube(
            now.code, now.next_codes, now.infos, now.cube, now.seat, rng.random)
        now = step(game, now, Action(PLAY, choice))
    return now.winner, now.points, now.cube.value, now.cube.offered


def money_match(a, b, pairs: int, seed: int, quiet: bool = True) -> dict:
    """`pairs` duplicate pairs of money games between players a and b (money players of
    eval/players.py); the summary (tabula eval match --cube --json prints it)."""
    game = same_variant(None, a, b)
    if game.cube is None:
        raise TabulaError(f"{game.describe()} is not played with the doubling cube")
    started = time.time()
    progress = Progress(f"money match {a.spec} vs {b.spec}", 2 * pairs, "games", quiet)
    points_a = np.zeros((pairs, 2))
    cubes = np.zeros((pairs, 2), dtype=np.int64)
    passed = np.zeros((pairs, 2), dtype=bool)
    for k in range(pairs):
        key = np.uint64(stream_key(seed, k))
        for g, seated in enumerate(((a, b), (b, a))):
            rng = np.random.default_rng([seed, k])   # a dealt start alike in both games
            winner, points, cubes[k, g], passed[k, g] = money_game(game, seated, key, rng)
            a_won = (winner == 0) == (g == 0)
            points_a[k, g] = points if a_won else -points
            progress.update(2 * k + g + 1)
    progress.done(f"{2 * pairs:,} games")
    mean, low, high = interval95(points_a.mean(axis=1))
    return {"a": a.spec, "b": b.spec, "pairs": pairs, "seed": seed, "games": 2 * pairs,
            "points_a_per_game": mean, "points_a_per_game_ci95": [low, high],
            "games_won_a": int((points_a > 0).sum()),
            "doubles_passed": int(passed.sum()),
            "mean_cube_value": float(cubes.mean()),
            "largest_cube_value": int(cubes.max()),
            "seconds": time.time() - started,
            "model_sha256": {"a": a.model_sha256, "b": b.model_sha256}}
