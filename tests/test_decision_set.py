"""Held-out decision sets: drawn from positions no training record holds, their worths
the table's, their kinds what the moves do, and a player's score on them the mean of
its choices' losses."""
import json

import numpy as np
import pytest

from tabula.cli import main
from tabula.datagen.datafile import DataFile
from tabula.datagen.decision_set import DecisionSet
from tabula.eval.decision_score import score
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
    kinds = game.presentation.position_kinds
    assert kinds(game.position_from_json({"me": [10, 11, 12], "opp": [1, 3, 5]})) == ["blockade"]
    assert kinds(game.position_from_json({"me": [10, 12, 14], "opp": [1, 2, 3]})) == ["blockade"]
    assert kinds(game.position_from_json({"me": [10, 11, 14], "opp": [1, 2, 5]})) == []


def test_score_is_the_mean_loss_of_the_choices(ur3_set):
    s = DecisionSet(ur3_set)
    live = np.arange(s.next_codes.shape[1]) < s.counts[:, None]
    best = np.where(live, s.worths, -1.0).argmax(1)
    worst = np.where(live, s.worths, 2.0).argmin(1)
    perfect = score(s, Player("best", s.game, lambda *a: best))
    assert perfect["error_rate"] == 0 and perfect["loss_per_decision_points"] == 0
    bad = score(s, Player("worst", s.game, lambda *a: worst))
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


def test_training_takes_its_decisions_from_a_set_of_the_training_split(tables, ur3_data,
                                                                       ur3_set, tmp_path,
                                                                       capsys):
    """Where the table is not at hand, a decision set of the training split feeds the
    decision losses: each batch takes the next rows in turn, searched ones with their
    leaves made from the rules alone."""
    from tabula.training.decisions import searching_leaves, stored_batch_decisions
    train_set = tmp_path / "train_set.h5"
    assert main(["eval", "decision-set", "ur", "--pieces", "3", "--table",
                 str(tables[("ur", 3)].path), "--data", str(ur3_data), "--out",
                 str(train_set), "--split", "train", "--decisions", "500", "--quiet"]) == 0
    s = DecisionSet(train_set)
    assert s.attrs["split"] == "train"
    assert np.isin(s.codes, DataFile(ur3_data).read("train", "codes")).all()
    stored = (s.counts, s.next_codes, s.infos, s.worths)
    made = stored_batch_decisions(s.game, stored, n_batches=3, count=200, first=100,
                                  searched=True)
    rows = np.arange(500, 700) % 500                      # batch 2: rows 500..699, cycled
    batch = [t.numpy() for t in made.batch(2)]
    for got, want in zip(batch[:4], stored):
        assert np.array_equal(got, want[rows])
    leaves = searching_leaves(s.game, s.counts[rows], s.next_codes[rows],
                              s.infos[rows].astype(np.int64))
    for got, want in zip(batch[4:], leaves):
        assert np.array_equal(got, want)
    base = ["train", "--model.hidden", "[16]",
            "--data.path", str(ur3_data), "--model.decision_weight", "1",
            "--data.decisions", "128", "--model.search_weight", "1", "--data.searched", "32",
            "--trainer.max_epochs", "1", "--trainer.log_every_n_steps", "1",
            "--trainer.default_root_dir", str(tmp_path / "r")]
    assert main(base + ["--data.decision_set", str(train_set)]) == 0
    header = next((tmp_path / "r").glob("version_0/metrics.csv")).read_text().splitlines()[0]
    assert "train_decision_loss" in header and "train_searched_decision_loss" in header
    capsys.readouterr()
    assert main(base + ["--data.decision_set", str(ur3_set)]) == 2
    assert "not made from the training split" in capsys.readouterr().err
    assert main(base + ["--data.decision_set", str(train_set), "--data.visit_shares",
                        "true"]) == 2
    assert "holds no visit shares" in capsys.readouterr().err
    assert main(base + ["--data.table", str(tables[("ur", 3)].path), "--data.visit_shares",
                        "true"]) == 2
    assert "data.visit_shares is the target of data.decisions" in capsys.readouterr().err


def forge(source, out, change):
    """A copy of the decision set `source` changed by change(arrays, attrs), its checksum
    recomputed, as a forger would."""
    import shutil
    import h5py
    from tabula.datagen.decision_set import decisions_sha256
    shutil.copy(source, out)
    with h5py.File(out, "r+") as f:
        arrays = {name: f[name][()] for name in f}
        attrs = dict(f.attrs)
        change(arrays, attrs)
        for name in list(f):
            del f[name]
        for name, array in arrays.items():
            f.create_dataset(name, data=array)
        f.attrs.update(attrs)
        game = get_game(str(attrs["game"]), int(attrs["pieces"]), str(attrs["rules"]))
        f.attrs["decisions_sha256"] = decisions_sha256(game, json.loads(attrs["kinds"]),
                                                       arrays)
    return out


def flip_worths(arrays, attrs):
    arrays["worths"] = np.where(arrays["worths"] > 0, 1.0 - arrays["worths"], 0.0)


def set_item(name, index, value):
    def change(arrays, attrs):
        arrays[name][index] = value
    return change


@pytest.mark.parametrize("change,said", [
    (set_item("codes", 0, 123456789123), "no position of ur"),
    (set_item("next_codes", (0, 0), -5), "not the legal moves of any throw"),
    (set_item("infos", (0, 1), 1 << 40), "not the legal moves of any throw"),
    (set_item("kinds", 0, 1 << 40), "a kind it does not name"),
    (lambda a, t: t.__setitem__("kinds", '{"near-tie": 0}'), "kinds"),
    (lambda a, t: t.__setitem__("pieces", 3.7), "pieces"),
    (lambda a, t: a.pop("worths"), "lacks worths"),
    (lambda a, t: a.update({n: v[:0] for n, v in a.items()}), "holds no decision"),
])
def test_a_forged_decision_set_is_refused(ur3_set, tmp_path, capsys, change, said):
    """Garbage codes and moves, kind bits beyond the kinds, a kinds mapping of another
    shape, pieces 3.7, a missing array, no decision: each refused in one line, its
    checksum recomputed or not (issue 66, item 4: they were scored and trained on)."""
    from tabula.datagen.datafile import DataError
    path = forge(ur3_set, tmp_path / "forged.h5", change)
    with pytest.raises(DataError, match=said):
        DecisionSet(path)
    assert main(["eval", "decisions", str(path), "--player", "heuristic"]) == 2
    assert said in capsys.readouterr().err
    assert main(["verify", str(path)]) == 1


def test_verify_checks_a_decision_set_and_its_worths_against_the_table(tables, ur3_set,
                                                                      tmp_path, capsys):
    """Reversed worths with the checksum recomputed are the set's own business until
    the table is at hand: tabula verify --table compares every worth with the table's."""
    assert main(["verify", str(ur3_set), "--table", str(tables[("ur", 3)].path),
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["kind"] == "decisions" and report["ok"]
    forged = forge(ur3_set, tmp_path / "flipped.h5", flip_worths)
    assert main(["verify", str(forged), "--table", str(tables[("ur", 3)].path)]) == 1
    out = capsys.readouterr().out
    assert "[FAIL]" in out and ("worths against the table" in out or "worth a win" in out)
