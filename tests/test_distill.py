"""tabula distill and datagen/search_data.py: networks taught by tree search, checked
on a variant with a table (issue 51)."""
import numpy as np
import pytest
import yaml

from tabula.cli import main
from tabula.datagen.datafile import SOURCES, DataFile
from tabula.distill import DistillError, load_recipe, run_distill
from tabula.games import get_game
from tabula.games.game import worths
from tabula.datagen.search_data import search_data
from tabula.solver.solution import open_solution, solve_game


@pytest.fixture(scope="module")
def ur2(tmp_path_factory):
    path = tmp_path_factory.mktemp("distill") / "ur2.h5"
    solve_game(get_game("ur", 2), path, quiet=True)
    return open_solution(path)


def test_search_labels_are_near_the_exact_values(ur2, tmp_path):
    """Labels of a search with the heuristic as leaf: every position one a move
    reaches, valued at least one throw deep; nearer the table than the heuristic's own
    values of the same positions."""
    from tabula.infra.batch import evaluate_many
    out = tmp_path / "taught.h5"
    search_data(ur2.game, "mcts:30:heuristic", out, 100, 1, 0.1, 0.1, quiet=True)
    data = DataFile(out)
    assert data.attrs["teacher"] == "mcts:30:heuristic" and "table_sha256" not in data.attrs
    codes = np.concatenate([data.read(s, "codes") for s in ("train", "val", "test")])
    labels = np.concatenate([data.read(s, "values") for s in ("train", "val", "test")])
    assert len(codes) > 1000
    assert (data.read("train", "source") == SOURCES.index("search")).all()
    exact = ur2.values(codes)
    heuristic = evaluate_many(ur2.game.heuristic, codes)
    assert np.abs(labels - exact).mean() < np.abs(heuristic - exact).mean()
    assert main(["verify", str(out)]) == 0


def test_the_search_writes_its_decisions_with_their_visit_shares(ur2, tmp_path):
    """Beside the labels, the searched decisions: each move's worth by the search (near
    the table's) and its share of the root's visits; none reaches a held-out position."""
    from tabula.datagen.decision_set import DecisionSet
    from tabula.games.game import OVER
    out, decisions = tmp_path / "taught.h5", tmp_path / "decisions.h5"
    written = search_data(ur2.game, "mcts:30:heuristic", out, 100, 1, 0.1, 0.1, quiet=True,
                          decisions_out=decisions)
    s = DecisionSet(decisions)
    data = DataFile(out)
    assert written["decision_set"]["decisions"] == len(s.codes) > 300
    assert (s.attrs["teacher"], s.attrs["split"]) == ("mcts:30:heuristic", "train")
    assert s.attrs["data_sha256"] == data.attrs["data_sha256"]
    live = np.arange(s.next_codes.shape[1]) < s.counts[:, None]
    assert (s.counts >= 2).all()
    assert np.allclose(s.shares.sum(1), 1) and (s.shares[~live] == 0).all()
    assert (s.shares[live] > 0).any(axis=None) and (s.shares <= 1).all()
    labelled = live & ((s.infos & OVER) == 0)
    held_out = np.concatenate([data.read(split, "codes") for split in ("val", "test")])
    assert not np.isin(s.next_codes[labelled], held_out).any()
    assert np.isin(s.next_codes[labelled], data.read("train", "codes")).all()
    exact = np.where(s.infos & OVER, 1.0, 0.0)
    exact[labelled] = worths(s.infos[labelled], ur2.values(s.next_codes[labelled]))
    assert np.abs(s.worths - exact)[labelled].mean() < 0.05
    most_visited = np.argmax(s.shares, 1)
    best = np.where(live, exact, -np.inf).max(1)
    assert (exact[np.arange(len(best)), most_visited] > best - 0.1).mean() > 0.9
    import json
    import h5py
    from tabula.datagen.decision_set import decisions_sha256
    with h5py.File(decisions, "r+") as f:   # checksum recomputed: the shares are refused
        f["shares"][0, 0] = np.nan
        f.attrs["decisions_sha256"] = decisions_sha256(
            ur2.game, json.loads(f.attrs["kinds"]), {name: f[name][()] for name in f})
    with pytest.raises(ValueError, match="holds visit shares that are not a distribution"):
        DecisionSet(decisions)
    assert main(["eval", "decisions", str(decisions), "--player", "random"]) == 2


@pytest.mark.parametrize("teacher", ["mcts:30", "mcts:30:playout", "net:x.onnx", "mcts"])
def test_a_teacher_must_be_a_search_that_values_positions(ur2, tmp_path, teacher):
    with pytest.raises(ValueError, match="the teacher must be a tree search"):
        search_data(ur2.game, teacher, tmp_path / "x.h5", 10, 1, 0.1, 0.1, quiet=True)


def recipe(tmp_path, table, **distill):
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump({
        "name": "tiny", "game": "ur", "pieces": 2, "workdir": str(tmp_path / "work"),
        "table": str(table.path),
        "distill": {"generations": 2, "teacher": "mcts:30:heuristic", "sims": 30,
                    "games": 150, "report_games": 200, **distill},
        "train": {"model": {"hidden": [32]}, "data": {"batch_size": 256},
                  "trainer": {"max_epochs": 3, "enable_progress_bar": False,
                              "enable_model_summary": False}}}))
    return path


@pytest.mark.slow
def test_generations_are_taught_in_turn_and_a_rerun_skips_them(ur2, tmp_path):
    lines = []
    summary = run_distill(load_recipe(recipe(tmp_path, ur2)), log=lines.append)
    generations = summary["generations"]
    assert list(generations) == ["0", "1"]
    assert generations["1"]["teacher"].startswith("mcts:30:") and \
        generations["1"]["teacher"].endswith("gen_0/model.onnx")
    for record in generations.values():
        assert record["records"] > 1000 and 0 <= record["regret"]["loss_per_game"] < 40
    assert (tmp_path / "work" / "gen_1" / "model.onnx").is_file()
    lines = []
    run_distill(load_recipe(recipe(tmp_path, ur2)), log=lines.append)
    assert lines == [f"[gen {g}] up to date: {tmp_path / 'work' / f'gen_{g}' / 'model.onnx'}"
                     for g in (0, 1)]
    record = tmp_path / "work" / "distill.json"
    record.write_text(record.read_text().replace('"records": ', '"records": -'))
    lines = []
    run_distill(load_recipe(recipe(tmp_path, ur2, generations=1)), log=lines.append)
    assert lines[0].startswith(f"{record}: 0.records: ")
    assert lines[0].endswith(": every generation is taught again")
    assert "[gen 0] self-play of mcts:30:heuristic ..." in lines


def test_a_generation_learns_the_visit_shares_of_its_decisions(ur2, tmp_path):
    """With train.data.decisions and visit_shares, a generation trains a decision loss
    towards the search's visit shares, from the decision set its self-play wrote."""
    path = recipe(tmp_path, ur2, generations=1)
    loaded = load_recipe(path)
    loaded["train"]["data"] = {**loaded["train"]["data"], "decisions": 32,
                               "visit_shares": True}
    loaded["train"]["model"] = {**loaded["train"]["model"], "decision_weight": 1.0}
    run_distill(loaded, log=lambda line: None)
    gen = tmp_path / "work" / "gen_0"
    config = yaml.safe_load((gen / "train.yaml").read_text())
    assert config["data"]["decision_set"] == str(gen / "decisions.h5")
    header = next(gen.glob("train/version_0/metrics.csv")).read_text().splitlines()[0]
    assert "train_decision_loss" in header


@pytest.mark.parametrize("bad, said", [({"generations": 0}, "generations must be at least 1"),
                                       ({"sims": "many"}, "sims must be int"),
                                       ({"gamez": 3}, "unknown setting gamez"),
                                       ({"val_frac": float("nan")}, "must be a finite number"),
                                       ({"teacher": "mcts:30"}, "the teacher must be a tree"),
                                       ({"teacher": "mcts:x:heuristic"}, "mcts takes")])
def test_bad_recipes_are_one_line(ur2, tmp_path, bad, said):
    with pytest.raises(ValueError, match=said):
        load_recipe(recipe(tmp_path, ur2, **bad))
    assert issubclass(DistillError, ValueError)


def test_shipped_recipes_load():
    from pathlib import Path
    folder = Path(__file__).resolve().parent.parent / "configs" / "distill"
    recipes = {path.stem: load_recipe(path) for path in folder.glob("*.yaml")}
    assert sorted(recipes) == ["einstein3", "einstein6", "einstein6-strong"]
    assert recipes["einstein6"]["pieces"] == 6 and recipes["einstein6"]["table"] is None
    strong = recipes["einstein6-strong"]   # taught by a search over the shipped network
    assert strong["distill"]["teacher"] == "mcts:400:models/einstein6.onnx"
    assert strong["train"]["model"]["init_from"] == "models/einstein6.onnx"
    assert recipes["einstein3"]["table"] == "tables/einstein-5x5-3.h5"


def test_a_recipe_naming_a_missing_table_stops_before_any_work(ur2, tmp_path):
    recipe_path = recipe(tmp_path, ur2)
    loaded = load_recipe(recipe_path)
    loaded["table"] = str(tmp_path / "none.h5")
    with pytest.raises(ValueError, match="none.h5"):
        run_distill(loaded, log=lambda line: None)
    assert not (tmp_path / "work" / "gen_0").exists()


def test_a_decision_set_is_not_made_from_search_taught_data(ur2, tmp_path, capsys):
    """tabula eval decision-set on data a search taught (no table made it): one line
    saying so (issue 65, item 21: a KeyError)."""
    from tabula.cli import main
    out = tmp_path / "taught.h5"
    search_data(ur2.game, "mcts:30:heuristic", out, 20, 1, 0.1, 0.1, quiet=True)
    assert main(["eval", "decision-set", "ur", "--pieces", "2", "--table", str(ur2.path),
                 "--data", str(out), "--out", str(tmp_path / "set.h5"), "--quiet"]) == 2
    assert "taught by mcts:30:heuristic, not made from a table" in capsys.readouterr().err
