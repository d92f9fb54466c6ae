"""GNU Backgammon as a player (eval/gnubg_player.py): its choice is gnubg's own best
move, it plays the standard openings, it beats the hand-made heuristic, and it refuses
the games its evaluator does not play."""
import numpy as np
import pytest

from tabula.games import get_game
from tabula.eval.gnubg_player import GnubgError
from tabula.eval.measures import match
from tabula.eval.players import PlayerError, make_player
from tabula.eval.search import decision_form
from tabula.runtime.sampling import random_play_positions
from tests.reference import backgammon_rules as reference

gnubg = pytest.importorskip("gnubg")


@pytest.fixture(scope="module")
def standard():
    return get_game("backgammon", rules="standard")


def test_the_chosen_move_is_worth_gnubgs_best(standard):
    """gnubg:0's move, evaluated by gnubg, is worth the score of the move gnubg's own
    findbestmoves ranks first, bear-offs (where the module cuts its moves short)
    included; the player is told the positions, not the dice."""
    from tabula.eval.gnubg_player import gnubg_evaluator
    player = make_player("gnubg:0", standard)
    equities = gnubg_evaluator(standard, 0)
    context = gnubg.evalcontext(0, 0, 1, 0, 0.0)
    compared = cut_short = 0
    for code, throw, moves, chosen in decisions(standard, player, 150):
        ours = (float(standard.points_won(chosen["position"])) if chosen["over"]
                else -equities([chosen["position"]])[0])
        best = gnubg.findbestmoves(standard.gnubg_board(code), gnubg.cubeinfo(), context,
                                   divmod(throw, 10))[0]
        assert ours == pytest.approx(best["score"], abs=1e-5)
        compared += 1
        cut_short += len(best["move"]) % 2
    assert compared >= 100 and cut_short >= 5


def test_at_two_plies_the_move_is_gnubgs_own(standard):
    """gnubg:2 plays the move gnubg's findbestmove names at 2 plies, applied step by
    step by the tests' plain rules (a move cut short at a checker borne off aside)."""
    player = make_player("gnubg:2", standard)
    context = gnubg.evalcontext(0, 2, 1, 0, 0.0)
    compared = 0
    for code, throw, moves, chosen in decisions(standard, player, 12):
        other, mover = standard.gnubg_board(code)
        best = gnubg.findbestmove((other, mover), gnubg.cubeinfo(), context,
                                  divmod(throw, 10))
        if len(best) % 2:
            continue
        state = ([0] + mover, [0] + other)
        for source, target in zip(best[::2], best[1::2]):
            state = reference.step(*state, source, target)
        assert standard.gnubg_board(chosen["position"]) == (list(state[0][1:]), list(state[1][1:]))
        compared += 1
    assert compared >= 6


def decisions(game, player, positions):
    """(position, throw, its moves, the player's move) over positions met in random
    play, for the throws 61, 33, 52 and 66 where there is a choice."""
    for code in random_play_positions(game, positions, seed=4)[::3]:
        for throw in (61, 33, 52, 66):
            moves = game.legal_moves(game.plain_code(code), throw)
            if len(moves) > 1:
                chosen = player.choose(game.codes([code]), *decision_form(game, moves),
                                       np.array([0.5]))
                yield code, throw, moves, moves[int(chosen[0])]


@pytest.mark.parametrize("throw, play", [(61, "13/7 8/7"), (31, "8/5 6/5"), (65, "24/13"),
                                         (11, "8/7(2) 6/5(2)")])
def test_gnubg_plays_the_openings_players_know(standard, throw, play):
    player = make_player("gnubg:0", standard)
    moves = standard.legal_moves(standard.start, throw)
    chosen = player.choose(standard.codes([standard.start]),
                           *decision_form(standard, moves), np.array([0.5]))
    assert standard.presentation.notation(standard.start, moves[int(chosen[0])]["position"],
                                          throw) == play


def test_gnubg_beats_the_heuristic_in_points(standard):
    result = match(make_player("gnubg:0", standard), make_player("heuristic", standard),
                   30, seed=2)
    assert result["score_a"] > 0.6 and result["points_a_per_game_ci95"][0] > 0


def test_gnubg_refuses_what_it_does_not_play():
    with pytest.raises(PlayerError, match="plies 0..2"):
        make_player("gnubg:5", get_game("backgammon", rules="standard"))
    with pytest.raises(GnubgError, match="standard backgammon"):
        make_player("gnubg:0", get_game("backgammon", 3))
