"""Exact measures of a player: regret against the perfect player, duplicate matches."""
from dataclasses import dataclass

import numpy as np

from tabula.infra.progress import Progress

from tabula.infra.cluster import LocalCluster

from .blocks import play_blocks
from .players import PlayerError, make_player

ERROR_THRESHOLD = 2e-6   # a decision losing more than this is an error


@dataclass
class Regret:
    summary: dict
    per_game_points: np.ndarray   # winning chance given away in each game, in points
    loss_points: np.ndarray       # given away at each decision with >= 2 moves


def interval95(samples: np.ndarray) -> tuple[float, float, float]:
    """Mean and a normal 95% interval from the spread of independent samples."""
    mean = float(samples.mean())
    half = 1.96 * float(samples.std(ddof=1)) / np.sqrt(len(samples)) if len(samples) > 1 \
        else float("nan")
    return mean, mean - half, mean + half


def same_variant(table, *players):
    """The game the players play, which must be the table's where there is one."""
    game = table.game if table is not None else players[0].game
    for player in players:
        other = player.game.differs_from(game.name, game.pieces, game.rules)
        if other:
            raise PlayerError(f"{player.spec} plays {player.game.describe()}, {other}")
    return game


def regret(table, player, games: int, seed: int, quiet=True, cluster=None) -> Regret:
    """`player` against the perfect player (the table's) over `games` games, first
    throw alternating; on `cluster` (infra/cluster.py; default this process)."""
    game = same_variant(table, player)
    perfect = make_player("perfect", game, table)
    progress = Progress(f"regret {player.spec}", None, "turns", quiet)
    played = play_blocks(cluster or LocalCluster(), game, [player, perfect],
                         np.arange(games) % 2, np.arange(games), seed, table=table,
                         judged=(0,), progress=progress.update)
    progress.done()
    per_game = 100 * played.game_losses(0)
    loss = 100 * played.loss
    decisions = int(played.decisions[:, 0].sum())
    mean, low, high = interval95(per_game)
    summary = {
        "player": player.spec, "games": games, "seed": seed, "decisions": decisions,
        "decisions_per_game": decisions / games,
        "error_rate": float((played.loss > ERROR_THRESHOLD).sum() / max(decisions, 1)),
        "loss_per_decision_points": float(loss.sum() / max(decisions, 1)),
        "loss_per_game_points": mean, "loss_per_game_ci95": [low, high],
        "worst_loss_points": float(loss.max()) if len(loss) else 0.0,
        "win_rate_vs_perfect": float((played.winners == 0).mean()),
        "seconds": played.seconds,
        "player_decisions_per_second": decisions / played.seconds,
        "moves_per_second": float(played.moves_made.sum() / played.seconds),
        "model_sha256": player.model_sha256}
    return Regret(summary, per_game, loss)


def match(a, b, pairs: int, seed: int, table=None, quiet=True, cluster=None) -> dict:
    """Duplicate pairs: in pair k, game 2k has A throw first and game 2k+1 has B throw
    first, both with pair k's throws. A's score is its share of the games won (a draw by
    the game's draw rule counting half), with a 95% interval from the spread of the pair
    scores. In a game with gammons, also
    A's points a game without the cube (a gammon 2, a backgammon 3; B's wins count
    against), with their interval. With a table of a game without them, also A's
    luck-adjusted score (see `luck_adjusted`), with its own interval. On `cluster`
    (infra/cluster.py; default this process)."""
    game = same_variant(table, a, b)
    judging = table is not None and not game.capabilities.has_gammons
    progress = Progress(f"match {a.spec} vs {b.spec}", None, "turns", quiet)
    first = np.tile([0, 1], pairs)
    played = play_blocks(cluster or LocalCluster(), game, [a, b], first,
                         np.repeat(np.arange(pairs), 2), seed, table=table,
                         judged=(0, 1) if judging else (), progress=progress.update)
    progress.done()
    pair_scores = played.scores(0).reshape(pairs, 2).mean(axis=1)
    score, low, high = interval95(pair_scores)
    points, points_ci = None, [None, None]
    if game.capabilities.has_gammons:
        signed = np.where(played.winners == 0, played.points, -played.points)
        points, *points_ci = interval95(signed.reshape(pairs, 2).mean(axis=1))
    adjusted, adjusted_ci = None, [None, None]
    if judging:
        pair_adjusted = luck_adjusted(table, played, first).reshape(pairs, 2).mean(axis=1)
        adjusted, *adjusted_ci = interval95(pair_adjusted)
    return {"a": a.spec, "b": b.spec, "pairs": pairs, "seed": seed, "score_a": score,
            "score_a_ci95": [low, high], "luck_adjusted_score_a": adjusted,
            "luck_adjusted_score_a_ci95": adjusted_ci,
            "points_a_per_game": points, "points_a_per_game_ci95": points_ci,
            "gammons": int((played.points == 2).sum()) if points is not None else None,
            "backgammons": int((played.points == 3).sum()) if points is not None else None,
            "games_won_a": int((played.winners == 0).sum()),
            "games_drawn": int((played.winners < 0).sum()),
            "games": 2 * pairs, "seconds": played.seconds,
            "model_sha256": {"a": a.model_sha256, "b": b.model_sha256}}


def luck_adjusted(table, played, first) -> np.ndarray:
    """Each game's result for slot 0 with the luck of the throws taken out.

    Along a game, slot 0's exact winning chance (the table's) starts at the start
    position's value and ends at 1 or 0. It moves at each throw (luck) and at each
    decision (by minus the decision's loss for the mover, plus it for the other
    side). The luck has mean zero at every throw, so the start value less slot 0's
    losses plus slot 1's has the same expectation as the result, and only the
    spread that the decisions add: far less than the throws add. Needs `played`
    judged for both slots.
    """
    start = table.value(table.game.start)
    result = np.where(np.asarray(first) == 0, start, 1.0 - start)
    return result - played.game_losses(0) + played.game_losses(1)
