"""Error rates judged by a referee (eval/referee.py), with hypergammon's exact table as
the referee: the table's own cubeless choices give nothing away, a random player
gives away what the table says it does, and the decisions are those met in play."""
import numpy as np
import pytest

from tabula.eval import referee
from tabula.eval.equities import cubeless_chooser
from tabula.eval.players import Player, make_player
from tabula.games.game import OVER
from tabula.solver import contact


@pytest.fixture(scope="module")
def judged(hyper2):
    game = hyper2.game

    def cubeless_of(c):
        return contact.cubeless_equity(*hyper2.values(c)[:, :5].T.astype(np.float64))
    decisions = referee.met_in_play(make_player("heuristic", game), 30, 3, 2)
    return game, cubeless_of, decisions, referee.move_equities(game, decisions, cubeless_of)


def test_the_decisions_are_those_met_in_play_with_a_choice(judged):
    game, _, decisions, equities = judged
    assert len(decisions.codes) > 100 and (decisions.counts >= 2).all()
    live = np.arange(game.max_moves) < decisions.counts[:, None]
    assert np.isfinite(equities[live]).all() and np.isneginf(equities[~live]).all()
    over = live & ((decisions.infos & OVER) != 0)
    rows = np.nonzero(over)[0]
    assert all(equities[i][over[i]].min() >= 1 for i in rows)


def test_the_referees_own_choices_give_nothing_away_and_random_ones_do(judged):
    game, cubeless_of, decisions, equities = judged
    best = referee.error_rate(decisions, equities,
                              Player("table", game, cubeless_chooser(game, cubeless_of)))
    assert best["memg_a_decision"] == 0 and best["share_with_loss"] == 0
    rand = referee.error_rate(decisions, equities, make_player("random", game), seed=5)
    chosen = make_player("random", game).choose(
        decisions.codes, decisions.counts, decisions.next_codes, decisions.infos,
        np.random.default_rng(5).random(len(decisions.codes)))
    by_hand = 1000 * np.mean([equities[i].max() - equities[i, j]
                              for i, j in enumerate(chosen)])
    assert rand["memg_a_decision"] == pytest.approx(by_hand) and by_hand > 50
    low, high = rand["memg_ci95"]
    assert low < by_hand < high
