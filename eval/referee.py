"""Error rates as GNU Backgammon's users read them (issue 62): over a fixed set of
decisions met in play, the cubeless equity each player's choices give away by a
referee's evaluation of every move (gnubg at 2 plies: eval/gnubg_player.py), in
thousandths of a point a decision (mEMG: for money play without the cube, a point of
equity is a point of EMG). Only decisions with two moves or more count, as gnubg counts
unforced moves. Cube actions apart (cube_error_rate), by the referee's cubeful
equities (eval/gnubg_money.py).

The decisions are those a player was asked in a match of its own (eval/measures.py:
match, duplicate throws), every `every`-th kept: positions people meet, none of them
drawn from any network's training.
"""
from dataclasses import dataclass

import numpy as np

from tabula.eval.equities import cubeless_move_equities, double_loss, take_loss
from tabula.games.cube import CENTERED
from tabula.solver.two_sided import doubles
from tabula.eval.measures import interval95, match
from tabula.eval.players import Player

MILLI = 1000


@dataclass
class Decisions:
    """Decisions in decision form (eval/search.py)."""
    codes: np.ndarray
    counts: np.ndarray
    next_codes: np.ndarray
    infos: np.ndarray


def met_in_play(player: Player, pairs: int, seed: int, every: int) -> Decisions:
    """Every `every`-th decision of two moves or more that `player` met in a match of
    `pairs` duplicate pairs against itself."""
    asked = []

    def choose(codes, counts, next_codes, infos, rand, seconds=None):
        asked.append((codes.copy(), counts.copy(), next_codes.copy(), infos.copy()))
        return player.choose(codes, counts, next_codes, infos, rand, seconds)
    recorder = Player(player.spec, player.game, choose)
    match(recorder, recorder, pairs, seed)
    return Decisions(*(np.concatenate([part[k] for part in asked])[::every]
                       for k in range(4)))


def move_equities(game, decisions: Decisions, referee) -> np.ndarray:
    """The mover's cubeless equity after each move by `referee` (codes -> the cubeless
    equity of the side on roll); -inf past each decision's moves."""
    d = decisions
    return cubeless_move_equities(game, d.codes, d.counts, d.next_codes, d.infos, referee)


def error_rate(decisions: Decisions, equities: np.ndarray, player: Player,
               seed: int = 0) -> dict:
    """What `player`'s choices give away by the referee's equities (move_equities): mEMG
    a decision with its 95% interval, and the share of decisions that lose any."""
    d = decisions
    rand = np.random.default_rng(seed).random(len(d.codes))
    chosen = player.choose(d.codes, d.counts, d.next_codes, d.infos, rand)
    loss = MILLI * (equities.max(axis=1) - equities[np.arange(len(chosen)), chosen])
    mean, low, high = interval95(loss)
    return {"player": player.spec, "decisions": len(loss), "memg_a_decision": mean,
            "memg_ci95": [low, high], "share_with_loss": float((loss > 1e-6).mean()),
            "model_sha256": player.model_sha256}


def cube_equities(codes, referee) -> np.ndarray:
    """(n, 2): the referee's no-double equity of the side on roll at each position of
    `codes`, the cube centred, and its no-double equity with the cube unavailable (a
    GnubgMoney's no_doubles)."""
    return np.array([referee.no_doubles(code, CENTERED) for code in codes])


def cube_error_rate(codes, equities: np.ndarray, player: Player) -> dict:
    """What `player`'s cube actions give away by the referee's cubeful equities
    (cube_equities), the cube centred, at each position of `codes` (sides on roll before
    their throw): doubling or not at every one; taking or passing where the referee
    doubles (where a double comes from a player who doubles well). A decision's loss is
    the better action's equity less the chosen's (eval/equities.py: double_loss,
    take_loss), in mEMG; each kind with its 95% interval and its share of decisions that
    lose any."""
    double, take = [], []
    for code, (no_double, unavailable) in zip(codes, equities):
        double.append(double_loss(no_double, unavailable, player.doubles(code, CENTERED)))
        if doubles(no_double, unavailable):
            take.append(take_loss(unavailable, player.takes(code)))
    out = {"player": player.spec, "model_sha256": player.model_sha256}
    for kind, losses in (("double", double), ("take", take)):
        loss = MILLI * np.array(losses)
        mean, low, high = interval95(loss) if len(loss) else (float("nan"),) * 3
        out[kind] = {"decisions": len(loss), "memg_a_decision": mean, "memg_ci95": [low, high],
                     "share_with_loss": float((loss > 1e-6).mean()) if len(loss) else 0.0}
    return out
