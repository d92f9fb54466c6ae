"""A game as a state machine (games/state.py): set-ups, cube actions, throws and moves
are actions of the game, taken through one step function. Checked on the toy capture
game's set-up and money rule sets, Ur's throw of 0 and a bear-off's gammon."""
import io

import numpy as np
import pytest

from tabula.cli import main
from tabula.eval.equities import cubeless_move_equities
from tabula.games import get_game
from tabula.games.cube import CubeState
from tabula.games.game import PositionError
from tabula.games.state import (ACCEPT, ARRANGE, DOUBLE, MOVE, OVER, PASS, PLAY, ROLL,
                                SETUP, TAKE, THROW, Action, State, begin, chance_outcomes,
                                legal_actions, step)
from tabula.infra.errors import TabulaError
from tabula.session import start_session
from tests.toy import capture

RNG = np.random.default_rng(0)


def test_each_side_sets_up_before_the_first_throw():
    game = get_game("toycapture", 2, "setup")
    state = begin(game, RNG)
    assert (state.phase, state.deciding) == (SETUP, 0)
    assert legal_actions(game, state) == [Action(ARRANGE, a) for a in ((0, 1), (0, 3), (1, 3))]
    with pytest.raises(PositionError, match="no legal action in the setup phase"):
        step(game, state, Action(ROLL, 1))
    with pytest.raises(PositionError):
        step(game, state, Action(ARRANGE, (0, 2)))     # square 2 is not a start square
    state = step(game, state, Action(ARRANGE, (0, 3)))
    assert (state.phase, state.deciding) == (SETUP, 1)
    state = step(game, state, Action(ARRANGE, (1, 3)))
    assert (state.phase, state.seat) == (THROW, 0)
    assert game.to_json(state.code) == {"me": [0, 3], "opp": [5, 7]}
    # the default start is the set-up of the first start squares, as the toy rules' is
    assert game.start == capture.set_up((0, 1), (0, 1), 2) == get_game("toycapture", 2).start


def test_a_person_sets_up_in_the_session_and_a_wrong_set_up_is_refused():
    game = get_game("toycapture", 2, "setup")
    session = start_session(game, hotseat=True, seed=1, setup="13")
    assert game.to_json(session.code)["me"] == [1, 3]
    with pytest.raises(TabulaError, match="the start squares your pieces stand on.*'02'"):
        start_session(game, hotseat=True, seed=1, setup="02")
    with pytest.raises(TabulaError, match="do not arrange"):
        start_session(get_game("toycapture", 2), hotseat=True, setup="01")


def test_the_cube_actions_follow_the_game_s_cube_rules():
    game = get_game("toycapture", 2, "money")
    state = begin(game, RNG)
    assert state.cube == CubeState() and Action(DOUBLE) in legal_actions(game, state)
    offered = step(game, state, Action(DOUBLE))
    assert (offered.phase, offered.deciding) == (TAKE, 1)
    assert legal_actions(game, offered) == [Action(ACCEPT), Action(PASS)]
    taken = step(game, offered, Action(ACCEPT))
    assert (taken.phase, taken.cube) == (THROW, CubeState(2, 1))
    assert legal_actions(game, taken) == [Action(ROLL)]     # the cube is the other's
    with pytest.raises(PositionError):
        step(game, taken, Action(DOUBLE))
    passed = step(game, offered, Action(PASS))
    assert (passed.phase, passed.winner, passed.points) == (OVER, 0, 1)
    assert legal_actions(game, passed) == []
    # without a cube there is no double
    plain = get_game("toycapture", 2)
    assert legal_actions(plain, begin(plain, RNG)) == [Action(ROLL)]


def test_a_throw_without_a_move_passes_the_turn():
    game = get_game("ur", 3)
    assert chance_outcomes(game)[0] == (0, 1 / 16)
    state = step(game, begin(game, RNG), Action(ROLL, 0))
    assert (state.phase, state.seat, state.code) == (THROW, 1, game.mirror(game.start))
    with pytest.raises(PositionError, match="throw 5 is impossible"):
        step(game, state, Action(ROLL, 5))


def test_a_move_that_wins_scores_the_game_s_win_size_at_the_cube_s_value():
    game = get_game("bearoff", 15)
    # the mover's last checker on the 1 point, the opponent's 15 all home: a gammon
    code = game.position_from_json({"me": [1, 0, 0, 0, 0, 0],
                                    "opp": [0, 0, 0, 0, 0, 15]})
    state = step(game, State(THROW, code=code, cube=CubeState(2, 0)),
                 Action(ROLL, int(game.throws[0])))
    assert state.phase == MOVE and len(legal_actions(game, state)) == 1
    over = step(game, state, Action(PLAY, 0))
    assert (over.phase, over.winner, over.points) == (OVER, 0, 4)    # 2 for a gammon x 2
    with pytest.raises(PositionError):
        step(game, state, Action(PLAY, 1))


def test_a_hit_on_the_way_to_the_last_checker_off_makes_a_backgammon():
    """6-6 from the 23 point hits on the 17 and bears off: the loser, on the bar, loses
    a backgammon (3 points), where the board before the move says a gammon; the game's
    state and the players' equities (eval/equities.py) count it so."""
    game = get_game("backgammon", 1)
    code = game.position_from_json({"me": [23], "opp": [8]})   # their 8: our 17 point
    assert game.win_size(code) == 2
    state = step(game, State(THROW, code=code, cube=CubeState(2, 0)), Action(ROLL, 66))
    assert len(state.infos) == 1
    over = step(game, state, Action(PLAY, 0))
    assert (over.phase, over.winner, over.points) == (OVER, 0, 6)    # 3 x the cube's 2
    worth = cubeless_move_equities(game, game.codes([code]), [1], state.next_codes[None],
                                   state.infos[None], lambda c: np.zeros(len(c)))
    assert worth[0, 0] == 3


def test_the_terminal_sets_up_as_asked(capsys, monkeypatch):
    """tabula play toycapture --rules setup --setup 03: the first board has your pieces
    on squares 0 and 3; a set-up the game does not have is one line, exit 2."""
    monkeypatch.setattr("sys.stdin", io.StringIO("r\n1\n" * 60))
    assert main(["play", "toycapture", "--rules", "setup", "--pieces", "2", "--setup", "03",
                 "--hotseat", "--seed", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("["))   # the first board
    assert lines[top] == "[R][ ][ ]" and lines[top + 1].startswith("[R]"), lines[top:top + 3]
    assert main(["play", "toycapture", "--rules", "setup", "--setup", "02", "--hotseat"]) == 2
    assert "a set-up is written as the start squares" in capsys.readouterr().err
