"""GNU Backgammon for money play (eval/gnubg_money.py, through Debian's gnubg program)
and the money match (eval/money_match.py): gnubg's cubeful move is the one tabula
plays, bear-offs included; its cube actions follow its own equities; the match's
points are counted as the cube rules say, and the same either way round."""
from pathlib import Path

import numpy as np
import pytest

from tabula.eval.gnubg_money import GNUBG, GnubgMoney, GnubgProgram
from tabula.eval.gnubg_player import GnubgError
from tabula.eval.money_match import money_match
from tabula.eval.players import Player, PlayerError, money_player
from tabula.games import get_game
from tabula.games.cube import CENTERED, OWNED, UNAVAILABLE
from tabula.runtime.sampling import random_play_positions
from tests.reference import backgammon_rules as reference

pytestmark = pytest.mark.skipif(not Path(GNUBG).exists(),
                                reason="Debian's gnubg (make test installs it)")


@pytest.fixture(scope="module")
def standard():
    return get_game("backgammon", rules="standard")


@pytest.fixture(scope="module")
def gnubg0(standard):
    return GnubgMoney(standard, 0)


def test_the_money_move_is_gnubgs_own_bear_offs_included(standard, gnubg0):
    """gnubg's findbestmove in the cube state, applied step by step by the tests' plain
    rules, gives the result tabula plays (the program names every step, checkers
    borne off too)."""
    compared = borne_off = 0
    positions = random_play_positions(standard, 600, seed=7)
    for code in positions[::4]:
        code = standard.plain_code(code)
        for throw in (61, 33, 52):
            next_codes, _ = standard.move_arrays(code, throw)
            if len(next_codes) < 2:
                continue
            board = [list(side) for side in standard.gnubg_board(code)]
            play = gnubg0.program.ask({"op": "move", "board": board, "owner": -1,
                                       "plies": 0, "dice": list(divmod(throw, 10))})
            other, mover = board
            state = (tuple([0] + mover), tuple([0] + other))
            for source, target in zip(play[::2], play[1::2]):
                if source:
                    state = reference.step(*state, source, target)
                    borne_off += target == 0
            chosen = next_codes[gnubg0.move(code, next_codes, CENTERED)]
            assert standard.gnubg_board(chosen) == (list(state[0][1:]), list(state[1][1:]))
            compared += 1
    assert compared >= 100 and borne_off >= 5


def test_the_cube_follows_gnubgs_equities(standard, gnubg0):
    """At the start nobody doubles and a double is taken; a side far ahead in a race
    doubles out (the double passed); owning the cube is worth more than its being
    centred, and that more than the opponent's owning it."""
    start = standard.start
    assert not gnubg0.doubles(start, CENTERED) and gnubg0.takes(start)
    ahead = standard.position_from_json({"me": [3, 3, 4, 4, 5, 5, 6],
                                         "opp": [6, 6, 5, 5, 4, 4, 3, 3]})
    assert gnubg0.doubles(ahead, CENTERED) and not gnubg0.takes(ahead)
    for code in random_play_positions(standard, 40, seed=3)[::8]:
        owned, centred, unavailable = (gnubg0.cube(standard.plain_code(code), state)[1]
                                       for state in (OWNED, CENTERED, UNAVAILABLE))
        assert owned >= centred - 1e-9 and centred >= unavailable - 1e-9


class Always:
    """Money play by fixed answers: double whenever it may, take or not, move first."""

    def __init__(self, doubles: bool, takes: bool):
        self.answers = doubles, takes

    def doubles(self, code, state):
        return self.answers[0]

    def takes(self, code):
        return self.answers[1]

    def move(self, code, next_codes, state):
        return 0


def fixed(game, spec, doubles, takes):
    return Player(spec, game, choose=None, money=Always(doubles, takes))


def test_a_passed_double_scores_the_cube_and_the_pairs_sum(standard):
    """A doubles whenever it may and B passes: A wins 1 point every game, in both seats
    (B throws first in a pair's second game: A doubles at its first turn)."""
    result = money_match(fixed(standard, "a", True, False), fixed(standard, "b", False, False),
                         3, seed=1)
    assert result["points_a_per_game"] == 1.0 and result["doubles_passed"] == 6
    assert result["mean_cube_value"] == 1.0


def test_swapping_the_players_turns_the_points_round(standard):
    """With the same seed, B's points as A are A's with the sign turned: the pairs'
    games are the same games, seats swapped, the cube doubled and taken."""
    a = fixed(standard, "a", True, True)
    b = money_player("heuristic", standard)
    there = money_match(a, b, 2, seed=5)
    back = money_match(b, a, 2, seed=5)
    assert there["points_a_per_game"] == -back["points_a_per_game"]
    assert there["mean_cube_value"] > 1


def test_a_player_without_money_play_is_refused(standard):
    with pytest.raises(PlayerError, match="cannot play with the doubling cube"):
        money_player("random", standard)


def test_cube_error_rates_by_gnubg(standard, gnubg0):
    """Judged by its own equities, gnubg gives nothing away; a player who always
    doubles and always passes gives away where that is wrong: most no-double positions,
    and every double gnubg would take."""
    from tabula.eval.players import make_player
    from tabula.eval.referee import cube_equities, cube_error_rate
    positions = [standard.plain_code(c) for c in random_play_positions(standard, 60, seed=2)]
    positions.append(standard.position_from_json({"me": [3, 3, 4, 4, 5, 5, 6],
                                                  "opp": [6, 6, 5, 5, 4, 4, 3, 3]}))
    equities = cube_equities(positions, gnubg0)
    itself = make_player("gnubg:0", standard)
    itself.money = gnubg0
    rates = cube_error_rate(positions, equities, itself)
    assert rates["double"]["decisions"] == len(positions) and rates["take"]["decisions"] >= 1
    assert rates["double"]["memg_a_decision"] == 0 and rates["take"]["memg_a_decision"] == 0
    reckless = cube_error_rate(positions, equities, fixed(standard, "reckless", True, False))
    assert reckless["double"]["memg_a_decision"] > 0 and reckless["double"]["share_with_loss"] > 0.5
    doubled = [code for code in positions if gnubg0.doubles(code, CENTERED)]
    taken = np.mean([gnubg0.takes(code) for code in doubled])   # passing loses there
    assert reckless["take"]["share_with_loss"] == pytest.approx(taken)


def test_janowskis_cube_is_gnubgs_own_at_zero_plies(standard, gnubg0):
    """eval/equities.py's janowski, from gnubg's own cubeless chances, gives gnubg's
    cubeful no-double equities at 0 plies, in every cube state, wherever gnubg itself
    uses that model with a cube efficiency of 0.68 (positions with contact, crashed or
    not; gnubg's bear-offs take other efficiencies)."""
    import gnubg
    from tabula.eval.equities import janowski
    compared = 0
    for code in random_play_positions(standard, 300, seed=11)[::5]:
        code = standard.plain_code(code)
        if gnubg.classify(standard.gnubg_board(code)) not in (9, 10):   # crashed, contact
            continue
        ours = janowski(np.array([gnubg0.chances(code)]))[0]
        theirs = [gnubg0.cube(code, state)[1] for state in (CENTERED, OWNED, UNAVAILABLE)]
        assert ours == pytest.approx(theirs, abs=1e-5)
        compared += 1
    assert compared >= 40


@pytest.mark.parametrize("answer, message", [
    ("[NaN, 0.5]", "not a list of finite numbers"),
    ("[1e999]", "not a list of finite numbers"),
    ("some text", "not a list of finite numbers"),
    ('{"error": "ValueError: bad board"}', "could not answer cube: ValueError"),
])
def test_an_answer_that_is_not_finite_numbers_is_refused(tmp_path, answer, message):
    program = tmp_path / "gnubg"
    program.write_text(f"#!/bin/sh\necho banner\necho @ready\n"
                       f"while read line; do echo '{answer}'; done\n")
    program.chmod(0o755)
    with pytest.raises(GnubgError, match=message):
        GnubgProgram(str(program)).ask({"op": "cube"})
