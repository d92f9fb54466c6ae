"""Held-out decision sets: drawn from positions no training record holds, their worths
the table's, their kinds what the moves do, and a player's score on them the mean of
its choices' losses."""
import json

import numpy as np
import pytest

from tabula.cli import main
from tabula.datagen.datafile import DataFile
from tabula.eval.decision_set import DecisionSet, score
from tabula.eval.players import Player
from tabula.eval.search import decision_worths
from tabula.games import get_game


@pytest.fixture(scope="module")
def ur3_set(tables, ur3_data, tmp_path_factory):
    path = tmp_path_factory.mktemp("set") / "set.h5"
    assert main(["eval", "decision-set", "ur", "--pieces", "3", "--table",
                 str(tables[("ur", 3)].path), "--data", str(ur3_data), "--out", str(path),
                 "--decisions", "2000", "--seed", "3", "--quiet"]) == 0
    return path


def test_decisions_come_from_unseen_positions_with_the_tables_worths(tables, ur3_data,
                                                                     ur3_set):
    table, s = tables[("ur", 3)], DecisionSet(ur3_set)
    data = DataFile(ur3_data)
    assert len(s.codes) == 2000 and (s.counts >= 2).all()
    assert np.isin(s.codes, data.read("test", "codes")).all()
    assert not np.isin(s.codes, data.read("train", "codes")).any()
    exact = decision_worths(table.game, s.counts, s.next_codes, s.infos.astype(np.int64), 0,
                            table.values)
    live = np.arange(table.game.max_moves) < s.counts[:, None]
    assert np.abs(exact[live] - s.worths[live]).max() < 1e-6
    assert s.attrs["table_sha256"] == table.attrs["sha256"]


def test_kinds_say_what_the_moves_do(tables, ur3_set):
    s = DecisionSet(ur3_set)
    game = s.game
    assert {"bear-off", "capture", "enter", "near-tie", "rosette"} <= set(s.kinds)
    bit = {name: 1 << i for i, name in enumerate(s.kinds)}
    for i in range(200):
        moves = [m for t in game.throws for m in game.legal_moves(int(s.codes[i]), int(t))
                 if m["info"] in s.infos[i, :s.counts[i]]]
        bears_off = any(m["to"] == 15 for m in moves)
        assert bool(s.kind_bits[i] & bit["bear-off"]) == bears_off
        best = np.sort(s.worths[i, :s.counts[i]])[::-1]
        assert bool(s.kind_bits[i] & bit["near-tie"]) == (best[0] - best[1] <= 0.001)


def test_a_blockade_is_a_kind_of_senet_position():
    game = get_game("senet", 3)
    kinds = game.position_kinds
    assert kinds(game.position_from_json({"me": [10, 11, 12], "opp": [1, 3, 5]})) == ["blockade"]
    assert kinds(game.position_from_json({"me": [10, 12, 14], "opp": [1, 2, 3]})) == ["blockade"]
    assert kinds(game.position_from_json({"me": [10, 11, 14], "opp": [1, 2, 5]})) == []


def test_score_is_the_mean_loss_of_the_choices(ur3_set):
    s = DecisionSet(ur3_set)
    live = np.arange(s.next_codes.shape[1]) < s.counts[:, None]
    best = np.where(live, s.worths, -1.0).argmax(1)
    worst = np.where(live, s.worths, 2.0).argmin(1)
    perfect = score(s, Player("best", lambda *a: best))
    assert perfect["error_rate"] == 0 and perfect["loss_per_decision_points"] == 0
    bad = score(s, Player("worst", lambda *a: worst))
    gaps = 100 * (s.worths[np.arange(len(best)), best] - s.worths[np.arange(len(best)), worst])
    assert bad["loss_per_decision_points"] == pytest.approx(gaps.mean(), rel=1e-6)
    assert bad["error_rate"] == pytest.approx((gaps > 2e-4).mean())
    capture = bad["by_kind"]["capture"]
    mask = (s.kind_bits >> s.kinds.index("capture") & 1) == 1
    assert capture["decisions"] == mask.sum()
    assert capture["loss_per_decision_points"] == pytest.approx(gaps[mask].mean(), rel=1e-6)


def test_eval_decisions_prints_a_table_and_json(ur3_set, capsys):
    assert main(["eval", "decisions", str(ur3_set), "--player", "heuristic"]) == 0
    out = capsys.readouterr().out
    assert "error rate" in out and "near-tie" in out and out.count("\n") >= 7
    assert main(["eval", "decisions", str(ur3_set), "--player", "random", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["decisions"] == 2000 and 0.3 < result["error_rate"] < 0.9
    assert main(["eval", "decisions", str(ur3_set), "--player", "perfect"]) == 2
    assert "needs a table" in capsys.readouterr().err


def test_a_decision_set_is_not_overwritten_without_force(tables, ur3_data, ur3_set, capsys):
    base = ["eval", "decision-set", "ur", "--pieces", "3", "--table",
            str(tables[("ur", 3)].path), "--data", str(ur3_data), "--out", str(ur3_set)]
    assert main(base) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["eval", "decisions", str(ur3_data), "--player", "random"]) == 2
    assert "not a tabula decision set" in capsys.readouterr().err
