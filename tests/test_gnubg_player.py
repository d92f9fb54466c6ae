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

gnubg = pytest.importorskip("gnubg")


@pytest.fixture(scope="module")
def standard():
    return get_game("backgammon", rules="standard")


def test_the_chosen_move_is_worth_gnubgs_best(standard):
    """At 0 plies, the best cubeless equity among every move's result, evaluated by
    gnubg, is the score of the move gnubg's own findbestmoves ranks first."""
    from tabula.eval.gnubg_player import gnubg_evaluator
    equities = gnubg_evaluator(standard, 0)
    context = gnubg.evalcontext(0, 0, 1, 0, 0.0)
    compared = 0
    for code in random_play_positions(standard, 150, seed=4)[::3]:
        for throw in (61, 33, 52):
            moves = standard.legal_moves(standard.plain_code(code), throw)
            if len(moves) < 2:
                continue
            ours = max(float(standard.win_size(code)) if m["over"]
                       else -equities([m["position"]])[0] for m in moves)
            theirs = gnubg.findbestmoves(standard.gnubg_board(code), gnubg.cubeinfo(),
                                         context, divmod(throw, 10))[0]["score"]
            assert ours == pytest.approx(theirs, abs=1e-5)
            compared += 1
    assert compared >= 100


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
