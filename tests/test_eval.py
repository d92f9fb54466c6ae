"""Evaluation: exact losses, the perfect player, duplicate matches, refusals."""
import json

import numpy as np
import pytest

from eval.engine import _losses
from eval.measures import match, regret
from eval.players import PlayerError, make_player
from eval.search import decision_worths
from tabula.cli import main


def test_perfect_loses_nothing_and_random_loses(tables):
    table = tables[("ur", 3)]
    perfect = regret(table.game, table, make_player("perfect", table.game, table), 300, 1)
    assert perfect.summary["decisions"] > 1000
    assert perfect.loss_points.max() == 0 and perfect.summary["error_rate"] == 0
    rand = regret(table.game, table, make_player("random", table.game, table), 300, 1)
    assert rand.summary["loss_per_game_points"] > 10 and rand.loss_points.min() >= 0
    assert rand.summary["win_rate_vs_perfect"] < 0.3
    heuristic = regret(table.game, table, make_player("heuristic", table.game), 300, 1)
    assert heuristic.summary["loss_per_game_points"] < rand.summary["loss_per_game_points"]


def test_losses_of_a_hand_built_decision(tables):
    """Ur, 2 pieces: the mover has a piece on 3 and one waiting, the opponent one on 6
    and one waiting. A throw of 1 allows 3 -> 4 (a rosette: throw again, worth
    V(next)) and entering on 1 (the turn passes, worth 1 - V(next)); the loss of a
    move is the best worth minus its own."""
    table = tables[("ur", 2)]
    game = table.game
    code = game.position_from_json({"me": [3], "me_waiting": 1, "opp": [6],
                                    "opp_waiting": 1})
    moves = game.legal_moves(code, 1)
    assert sorted((m["from"], m["to"], m["again"]) for m in moves) == [(0, 1, False),
                                                                        (3, 4, True)]
    by_hand = []
    for m in moves:
        v = table.value(m["position"])
        by_hand.append(1.0 if m["over"] else (v if m["again"] else 1.0 - v))
    counts = np.array([len(moves)] * len(moves))
    next_codes = np.zeros((len(moves), game.max_moves), dtype=np.int64)
    infos = np.zeros_like(next_codes)
    for j, m in enumerate(moves):
        next_codes[:, j], infos[:, j] = m["position"], m["info"]
    chosen = np.arange(len(moves))
    got = _losses(game.layer_of, game.rank, table.flat, table.offsets, counts, next_codes,
                  infos, chosen)
    assert got == pytest.approx(max(by_hand) - np.array(by_hand), abs=1e-12)
    # one throw of search over the exact table gives the same worths (Bellman)
    for depth in (0, 1):
        worths = decision_worths(game, counts[:1], next_codes[:1], infos[:1], depth,
                                 table.values)[0, :len(moves)]
        assert worths == pytest.approx(by_hand, abs=2e-6)
    perfect = make_player("perfect", game, table)
    pick = perfect.choose(np.array([code]), counts[:1], next_codes[:1], infos[:1],
                          np.zeros(1))
    assert by_hand[pick[0]] == max(by_hand)


def test_self_match_scores_half_and_is_reproducible(tables):
    game = tables[("ur", 2)].game
    a, b = make_player("random", game), make_player("random", game)
    first = match(game, a, b, 400, seed=3)
    low, high = first["score_a_ci95"]
    assert low <= 0.5 <= high and high - low < 0.15
    again = match(game, a, b, 400, seed=3)
    assert {**again, "seconds": 0} == {**first, "seconds": 0}
    h = make_player("heuristic", game)
    assert match(game, h, h, 100, seed=1)["score_a"] == 0.5   # mirrored games


def test_expectimax_searches_and_beats_random(tables):
    table = tables[("ur", 2)]
    game = table.game
    result = match(game, make_player("expectimax:2", game), make_player("random", game),
                   150, seed=2)
    assert result["score_a"] > 0.6


def test_other_game_table_model_and_bad_specs_are_refused(tables, tmp_path, capsys):
    ur = str(tables[("ur", 3)].path)
    assert main(["eval", "regret", "senet", "--table", ur, "--player", "random"]) == 2
    assert "is a table of ur, not of senet" in capsys.readouterr().err
    assert main(["eval", "regret", "ur", "--table", ur, "--player", "wizard"]) == 2
    assert "unknown player 'wizard'" in capsys.readouterr().err
    assert main(["eval", "match", "ur", "--a", "perfect", "--b", "random"]) == 2
    assert "needs a table" in capsys.readouterr().err
    with pytest.raises(PlayerError, match="depth of 1, 2 or 3"):
        make_player("expectimax:7", tables[("ur", 3)].game)


def test_report_writes_every_player(tables, tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["eval", "report", "ur", "--table", str(tables[("ur", 2)].path), "--games",
                 "100", "--players", "random", "heuristic", "perfect", "--out", str(out),
                 "--quiet", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [r["player"] for r in result["players"]] == ["random", "heuristic", "perfect"]
    for name in ("REPORT.md", "results.json", "loss_per_game.png", "loss_distribution.png"):
        assert (out / name).stat().st_size > 0
    assert "| heuristic |" in (out / "REPORT.md").read_text()
