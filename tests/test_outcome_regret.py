"""The results a player throws away in checkers endgames (eval/outcomes.py), by its
outcome table: perfect play throws none away, random play some, and the counts add up."""
import json

import pytest

from tabula.games import get_game
from tabula.eval.outcomes import thrown_results
from tabula.eval.players import make_player
from tabula.solver.outcome_table import OutcomeTable, solve_outcomes


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("outcomes") / "c3.h5"
    solve_outcomes(get_game("checkers", 3), path, quiet=True)
    return OutcomeTable(path)


def test_perfect_play_throws_nothing_away_and_random_play_does(table):
    perfect = thrown_results(table, make_player("perfect", table.game, table), 3000, seed=1)
    assert perfect["decisions"] > 1000 and perfect["thrown_away"] == 0
    assert perfect["slower_wins"] == 0 and perfect["faster_losses"] == 0
    chance = thrown_results(table, make_player("random", table.game), 3000, seed=1)
    assert chance["decisions"] == perfect["decisions"]
    assert chance["thrown_away"] == (chance["win_to_draw"] + chance["win_to_loss"]
                                     + chance["draw_to_loss"]) > 0
    assert 0 < chance["thrown_away_rate"] < 1


def test_eval_regret_on_the_command_line(table, capsys):
    from tabula.cli import main
    assert main(["eval", "regret", "checkers", "--pieces", "3", "--table", str(table.path),
                 "--player", "expectimax:1", "--positions", "2000", "--json",
                 "--quiet"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["positions"] == 2000 and said["decisions"] <= 2000


def test_a_match_judged_by_the_outcome_table(table):
    """Matches judge both sides' decisions by the table (decision_losses in score): the
    perfect player gives nothing away, and each side's score is that of its games."""
    from tabula.eval.engine import play
    game = table.game
    players = [make_player("perfect", game, table), make_player("random", game)]
    played = play(game, players, [0, 1, 0, 1], [0, 0, 1, 1], seed=3, table=table,
                  judged=(0, 1))
    assert played.game_losses(0).max() < 1e-9 and played.game_losses(1).sum() >= 0
    assert (played.scores(0) + played.scores(1) == 1).all()
