"""Labelled position sets: exact labels, legal codes, a split by position, determinism."""
import hashlib

import h5py
import numpy as np
import pytest
import torch

from tabula.datagen.datafile import SPLITS, DataError, DataFile
from tabula.datagen.generate import generate
from tabula.games import get_game
from tabula.games.game import LAYER_STRIDE
from tabula.infra.batch import per_code, unrank_many
from tabula.cli import main


def read_all(path):
    with h5py.File(path, "r") as f:
        return {s: {k: f[s][k][:] for k in ("codes", "values", "source")} for s in SPLITS}


def test_labels_are_the_tables_values_and_codes_are_legal(tables, ur3_data):
    table = tables[("ur", 3)]
    game = table.game
    data = read_all(ur3_data)
    for split in SPLITS:
        codes = data[split]["codes"]
        assert len(codes) > 1000
        assert np.array_equal(data[split]["values"], table.values(codes).astype(np.float32))
        layers = per_code(game.layer_of, codes)
        # no finished game
        assert ((layers // LAYER_STRIDE > 0) & (layers % LAYER_STRIDE > 0)).all()
        assert np.array_equal(unrank_many(game.unrank, layers, per_code(game.rank, codes)),
                              codes)
        for code in codes[:300]:   # the JSON form re-validates every rule of a position
            assert game.position_from_json(game.to_json(int(code))) == code
        assert set(np.unique(data[split]["source"])) == {0, 1}


def test_no_held_out_position_occurs_in_training(ur3_data):
    data = read_all(ur3_data)
    train = data["train"]["codes"]
    for split in ("val", "test"):
        assert len(np.intersect1d(data[split]["codes"], train)) == 0
    counts = DataFile(ur3_data).counts
    assert counts["train_positions"] == len(np.unique(train))


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_same_seed_same_bytes_other_seed_other_positions(tables, tmp_path):
    table = tables[("ur", 2)]
    paths = [tmp_path / name for name in ("a.h5", "b.h5", "c.h5")]
    for path, seed in zip(paths, (1, 1, 2)):
        generate(table, path, games=100, explore=0.5, uniform=2000, seed=seed,
                 val_frac=0.1, test_frac=0.1, quiet=True)
    assert sha(paths[0]) == sha(paths[1])
    a, c = read_all(paths[0]), read_all(paths[2])
    assert not np.array_equal(a["train"]["codes"], c["train"]["codes"])
    assert not (tmp_path / "a.h5.partial").exists()


def test_other_game_or_missing_table_is_refused(tables, tmp_path, capsys):
    ur_table = str(tables[("ur", 3)].path)
    out = str(tmp_path / "x.h5")
    assert main(["datagen", "senet", "--table", ur_table, "--out", out]) == 2
    assert "is a table of ur(rules=finkel,pieces=3), not of senet" in capsys.readouterr().err
    assert main(["datagen", "ur", "--table", str(tmp_path / "none.h5"), "--out", out]) == 2
    assert "no table file" in capsys.readouterr().err
    assert main(["datagen", "ur", "--pieces", "2", "--table", ur_table, "--out", out]) == 2
    assert "pieces=3), not of pieces=2" in capsys.readouterr().err
    with pytest.raises(DataError, match="not of senet"):
        DataFile(_tiny(tables, tmp_path), game="senet", pieces=4)


def _tiny(tables, tmp_path):
    path = tmp_path / "tiny.h5"
    generate(tables[("ur", 1)], path, 10, 0.5, 100, 0, 0.1, 0.1, quiet=True)
    return path


def test_ur_features_by_hand():
    game = get_game("ur", 7)
    code = game.position_from_json({"me": [4, 9], "me_waiting": 3, "opp": [5, 14],
                                    "opp_waiting": 1})
    x = game.encoding.features(torch.tensor([code]))[0].numpy()
    assert x.shape == (game.encoding.n_features,) == (62,)
    assert list(np.flatnonzero(x[:28])) == [3, 8, 14 + 4, 14 + 13]
    waiting_me, waiting_opp, off_me, off_opp = x[28:36], x[36:44], x[44:52], x[52:60]
    assert [np.flatnonzero(v)[0] for v in (waiting_me, waiting_opp, off_me, off_opp)] == \
        [3, 1, 2, 4]
    assert x[60] == pytest.approx((11 + 6 + 3 * 15) / 105)
    assert x[61] == pytest.approx((10 + 1 + 15) / 105)


def test_senet_features_by_hand():
    game = get_game("senet", 4)
    code = game.position_from_json({"me": [1, 30], "opp": [26, 28, 29]})
    x = game.encoding.features(torch.tensor([code, code]))[1].numpy()
    assert x.shape == (game.encoding.n_features,) == (72,)
    assert list(np.flatnonzero(x[:60])) == [0, 29, 30 + 25, 30 + 27, 30 + 28]
    assert np.flatnonzero(x[60:65])[0] == 2 and np.flatnonzero(x[65:70])[0] == 1
    assert x[70] == pytest.approx((30 + 1) / 124)
    assert x[71] == pytest.approx((5 + 3 + 2) / 124)


def test_alternatives_are_the_other_moves_of_self_play_decisions(tables, tmp_path):
    table = tables[("ur", 2)]
    game = table.game
    path = tmp_path / "alt.h5"
    generate(table, path, games=50, explore=0.2, uniform=0, seed=3, val_frac=0.0,
             test_frac=0.0, quiet=True, alternatives=True)
    data = read_all(path)["train"]
    alternative = data["codes"][data["source"] == 2]
    met = set(data["codes"][data["source"] == 0].tolist())
    assert len(alternative) > 100
    assert np.array_equal(data["values"], table.values(data["codes"]).astype(np.float32))
    # each alternative is a move's result from some position met in self-play
    results = {m["position"] for code in met for throw in game.throws
               for m in game.legal_moves(code, int(throw)) if not m["over"]}
    assert set(alternative.tolist()) <= results
    counts = DataFile(path).counts
    assert counts["alternative_records"] == len(alternative)


def _next_ones(table, code) -> set:
    """Where the perfect player may go from `code`, over every throw: the result of
    any best move, or the board passed on where a throw has no move."""
    from tabula.games.game import worths
    game = table.game
    reached = {int(game.mirror(np.int64(code)))}
    for throw in game.throws:
        moves = game.legal_moves(code, int(throw))
        if not moves:
            continue
        infos = np.array([m["info"] for m in moves])
        values = np.array([0.0 if m["over"] else table.values([m["position"]])[0]
                           for m in moves])
        worth = worths(infos, values)
        reached |= {m["position"] for m, w in zip(moves, worth) if w >= worth.max() - 1e-9}
    return reached


def _strays(table, codes) -> int:
    """How many steps of a run of games (their positions in order, each game from the
    start) the perfect player could not have made."""
    start = table.game.start
    return sum(b != start and b not in _next_ones(table, a) for a, b in zip(codes, codes[1:]))


def test_perfect_games_are_their_own_source_and_never_explore(tables, tmp_path):
    """--perfect-games adds games numbered after the exploring ones, played by the
    perfect player alone (each step a best move, checked against the table through
    the rules' slow path) and marked perfect-play; the exploring games are unchanged."""
    from tabula.datagen.datafile import SOURCES
    from tabula.datagen.generate import self_play
    table = tables[("ur", 2)]
    paths = [tmp_path / "plain.h5", tmp_path / "perfect.h5"]
    for path, perfect in zip(paths, (0, 40)):
        generate(table, path, games=60, explore=0.5, uniform=500, seed=4, val_frac=0.0,
                 test_frac=0.0, quiet=True, perfect_games=perfect)
    plain, data = (read_all(path)["train"] for path in paths)
    marked = data["source"] == SOURCES.index("perfect-play")
    assert np.array_equal(data["values"], table.values(data["codes"]).astype(np.float32))
    assert np.array_equal(np.sort(data["codes"][~marked]), np.sort(plain["codes"]))
    played, _ = self_play(table, 40, 0.0, 4, quiet=True, first_game=60)
    assert np.array_equal(np.sort(data["codes"][marked]), np.sort(played))
    assert DataFile(paths[1]).counts["perfect_play_records"] == marked.sum() == len(played)
    assert _strays(table, played.tolist()) == 0
    exploring, _ = self_play(table, 40, 0.5, 4, quiet=True, first_game=60)
    assert _strays(table, exploring.tolist()) > 0   # the check can fail
