"""The whole chain from one YAML file; unchanged stages are skipped, changed ones rerun."""
import json
import re

import pytest
import torch
import yaml

from tabula.cli import main
from tabula.datagen.datafile import SOURCES, DataFile
from tabula.pipeline import PipelineError, load_config, run_pipeline

TINY = {"name": "tiny", "game": "ur", "pieces": 2,
        "datagen": {"games": 300, "uniform": 5000, "perfect_games": 60, "seed": 1},
        "train": {"model": {"hidden": [16]}, "data": {"batch_size": 512},
                  "trainer": {"max_epochs": 2, "enable_progress_bar": False,
                              "enable_model_summary": False}},
        "export": {"int8": True},
        "report": {"games": 200, "players": ["random", "heuristic", "net", "net-int8",
                                             "net+search", "perfect"]}}


def write(tmp_path, config):
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump({**config, "workdir": str(tmp_path / "work")}))
    return path


def rerun(tmp_path, config) -> list[str]:
    """Run the pipeline of `config` again; its log lines."""
    lines = []
    run_pipeline(load_config(write(tmp_path, config)), log=lines.append)
    return lines


def ran(lines) -> list[str]:
    """The stages a pipeline's log lines say ran (were not up to date)."""
    return [line.split("]")[0][1:] for line in lines if "running" in line]


def exported_and_used(tmp_path, stage) -> tuple[str, dict]:
    """The checkpoint the exported model was made from, and the `tabula train` config
    the pipeline wrote for `stage`."""
    work = tmp_path / "work"
    return (json.loads((work / "model.json").read_text())["checkpoint"],
            yaml.safe_load((work / f"{stage}.yaml").read_text()))


@pytest.mark.slow
def test_chain_runs_skips_and_reruns_what_changed(tmp_path, capsys):
    path = write(tmp_path, TINY)
    assert main(["pipeline", str(path)]) == 0
    out = capsys.readouterr().out
    for spec in ("| random |", "| heuristic |", "| perfect |", "| net (model.int8) |",
                 "| net+search (model) |"):
        assert spec in out
    report = tmp_path / "work" / "report"
    assert (report / "REPORT.md").exists() and (report / "loss_per_game.png").exists()
    assert (report / "learning_curve_train.png").stat().st_size > 10_000
    curve = "![train: learning curve](learning_curve_train.png)"
    assert curve in (report / "REPORT.md").read_text()
    rows = json.loads((report / "results.json").read_text())["players"]
    assert len(rows) == 6

    lines = []
    summary = run_pipeline(load_config(path), log=lines.append)
    assert summary["stages"]["finetune"]["skipped"] and summary["stages"]["polish"]["skipped"]
    assert lines[3] == "[finetune] skipped: the config has no finetune section"
    assert lines[4] == "[polish] skipped: the config has no polish section"
    assert all("up to date" in line for line in lines[:3] + lines[5:]) and len(lines) == 7

    changed = {**TINY, "datagen": {**TINY["datagen"], "seed": 2}}
    lines = rerun(tmp_path, changed)
    assert lines[0].startswith("[solve] up to date")
    assert ran(lines) == ["datagen", "train", "export", "report"]

    tuned = {**changed, "finetune": {"model": {"lr": 1e-3}, "trainer": {"max_epochs": 1}}}
    assert ran(rerun(tmp_path, tuned)) == ["finetune", "export", "report"]
    exported, tuned_config = exported_and_used(tmp_path, "finetune")
    assert exported.endswith("finetune/version_0/checkpoints/best.ckpt")
    assert tuned_config["model"]["init_from"].endswith("train/version_0/checkpoints/best.ckpt")
    assert tuned_config["model"]["lr"] == 1e-3 and tuned_config["model"]["hidden"] == [16]
    assert tuned_config["trainer"]["max_epochs"] == 1

    only = {"train_sources": ["perfect-play"], "val_sources": ["perfect-play"]}
    polished = {**tuned, "polish": {"model": {"lr": 5e-4}, "data": only}}
    assert ran(rerun(tmp_path, polished)) == ["polish", "export", "report"]
    exported, used = exported_and_used(tmp_path, "polish")
    assert exported.endswith("polish/version_0/checkpoints/best.ckpt")
    assert used["model"]["init_from"].endswith("finetune/version_0/checkpoints/best.ckpt")
    assert used["model"]["lr"] == 5e-4 and used["trainer"]["max_epochs"] == 1
    assert {k: used["data"][k] for k in only} == only
    data = DataFile(tmp_path / "work" / "data.h5")
    perfect = (data.read("train", "source") == SOURCES.index("perfect-play")).sum()
    tested = json.loads((tmp_path / "work" / "polish" / "version_0" / "test_error.json")
                        .read_text())
    assert 0 < tested["train_records"] == perfect < data.sizes["train"]
    assert "![polish: learning curve]" in (report / "REPORT.md").read_text()

    (tmp_path / "work" / "stages.json").write_text('{"solve": ')   # a damaged record
    lines = rerun(tmp_path, polished)
    assert "stages.json is not JSON" in lines[0]
    assert lines[0].endswith(": every stage runs again")
    assert ran(lines) == ["solve", "datagen", "train", "finetune", "polish", "export", "report"]
    assert json.loads((tmp_path / "work" / "stages.json").read_text())["report"]["stamp"]


def test_bad_configs_fail_clearly(tmp_path):
    with pytest.raises(PipelineError, match="unknown key"):
        load_config(write(tmp_path, {**TINY, "datagen": {"gmaes": 3}}))
    with pytest.raises(PipelineError, match="give the game"):
        load_config(write(tmp_path, {"name": "x"}))
    with pytest.raises(PipelineError, match="no pipeline config"):
        load_config(tmp_path / "none.yaml")


@pytest.mark.parametrize("stage, section, bad, said", [
    ("train", "trainer", {"max_epochs": -5}, "train: trainer.max_epochs must be at least 1"),
    ("train", "trainer", {"max_epochs": "many"}, 'train: Parser key "trainer.max_epochs"'),
    ("train", "model", {"lr": float("nan")}, "train: model.lr must be more than 0"),
    ("train", "data", {"batch_size": 0}, "train: data.batch_size must be at least 1"),
    ("finetune", "model", {"hidden": "wide"}, 'finetune: Parser key "model.hidden"'),
    ("train", "model", {"init_from": "PAYLOAD"}, "not a checkpoint tabula can read safely"),
])
def test_bad_training_settings_are_refused_before_the_first_stage(tmp_path, stage, section,
                                                                  bad, said):
    from tests.test_export import Payload
    marker = tmp_path / "ran"
    if bad.get("init_from"):
        bad = {"init_from": str(tmp_path / "evil.ckpt")}
        torch.save({"state_dict": {}, "payload": Payload(marker)}, bad["init_from"])
    config = {**TINY, stage: {**TINY.get(stage, {}),
                              section: {**TINY.get(stage, {}).get(section, {}), **bad}}}
    with pytest.raises(PipelineError, match=re.escape(said)):
        run_pipeline(load_config(write(tmp_path, config)), log=lambda line: None)
    assert not (tmp_path / "work" / "table.h5").exists() and not marker.exists()


def test_shipped_pipeline_configs_load():
    from pathlib import Path
    folder = Path(__file__).resolve().parent.parent / "configs" / "pipeline"
    names = sorted(p.stem for p in folder.glob("*.yaml"))
    assert names == ["backgammon3", "bearoff10", "einstein3", "quick", "senet4", "ur-blitz5",
                     "ur-masters7", "ur7"]
    for path in folder.glob("*.yaml"):
        config = load_config(path)
        assert config["game"] in ("ur", "senet", "bearoff", "einstein", "backgammon")
        assert config["report"]["players"]


# the path-like settings differ between the machine that trained and the recipe's workdir
PATHS = {("model", "init_from"), ("data", "path"), ("data", "table"),
         ("trainer", "default_root_dir")}


@pytest.mark.parametrize("model", ["einstein3", "einstein3.int8", "ur7", "ur7.int8",
                                   "senet4", "senet4.int8", "bearoff10", "bearoff10.int8",
                                   "ur-blitz5", "ur-blitz5.int8", "ur-masters7",
                                   "ur-masters7.int8", "backgammon3", "backgammon3.int8"])
def test_each_shipped_model_was_trained_by_its_recipe(model):
    """models/NAME.json's training config is what configs/pipeline/NAME.yaml gives for its
    last training stage, every key the recipe sets."""
    from pathlib import Path

    from tabula.games import get_game
    from tabula.pipeline import last_training_stage, stage_paths, training_config
    root = Path(__file__).resolve().parent.parent
    manifest = json.loads((root / "models" / f"{model}.json").read_text())
    config = load_config(root / "configs" / "pipeline" / f"{model.split('.')[0]}.yaml")
    game = get_game(config["game"], config["pieces"], config["rules"])
    assert (manifest["game"], manifest["rules"], manifest["pieces"]) == \
        (game.name, game.rules, game.pieces)
    stage = last_training_stage(config)
    recipe = training_config(game, config, stage, stage_paths(config))
    used = manifest["config"]
    for key in ("seed_everything", "patience", "threads"):
        assert used[key] == recipe[key], key
    # (a model trained before --monitor existed kept its best checkpoint by val_loss)
    assert used.get("monitor", "val_loss") == recipe["monitor"]
    for section in ("model", "data", "trainer"):
        for key, value in recipe[section].items():
            if (section, key) not in PATHS:
                assert used[section][key] == value, (section, key)
    assert (used["model"].get("init_from") is not None) == (stage != "train")


def test_the_solve_stage_takes_a_table_solved_before(tmp_path, tables, capsys):
    """`tabula pipeline --table FILE`: the table is checked to be of the variant, then
    linked into the workdir instead of solving again; one of another variant is refused."""
    small = {**TINY, "datagen": {"games": 50, "uniform": 500, "seed": 1},
             "train": {**TINY["train"], "trainer": {**TINY["train"]["trainer"],
                                                    "max_epochs": 1}},
             "export": {}, "report": {"games": 20, "players": ["random", "net"]}}
    path = write(tmp_path, small)
    ur2 = tables[("ur", 2)].path
    assert main(["pipeline", str(path), "--table", str(tables[("ur", 3)].path)]) == 2
    assert "pieces=2" in capsys.readouterr().err
    assert main(["pipeline", str(path), "--table", str(tmp_path / "none.h5")]) == 2
    assert "no table" in capsys.readouterr().err
    assert main(["pipeline", str(path), "--table", str(ur2), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["stages"]["solve"]["ran"] and summary["stages"]["report"]["ran"]
    assert (tmp_path / "work" / "table.h5").samefile(ur2)


def test_a_later_stage_may_run_on_threads_and_keep_a_best_checkpoint_of_its_own(tmp_path):
    """`threads` and `monitor` in a finetune or polish section are that stage's; a stage
    without them runs as the stage before (data.val_decisions, which val_decision_regret
    needs, is read from the pipeline's table)."""
    from tabula.games import get_game
    from tabula.infra.settings import SettingsError
    from tabula.pipeline import stage_paths, training_config
    config = load_config(write(tmp_path, {**TINY, "train": {**TINY["train"], "threads": 2},
                                          "finetune": {"model": {"lr": 1e-3},
                                                       "data": {"val_decisions": 64},
                                                       "monitor": "val_decision_regret"},
                                          "polish": {"threads": 1}}))
    game = get_game(config["game"], config["pieces"], config["rules"])
    made = {stage: training_config(game, config, stage, stage_paths(config))
            for stage in ("train", "finetune", "polish")}
    assert {stage: (c["threads"], c["monitor"]) for stage, c in made.items()} == \
        {"train": (2, "val_loss"), "finetune": (2, "val_decision_regret"),
         "polish": (1, "val_decision_regret")}
    # the decisions it measures come from the pipeline's table
    assert made["finetune"]["data"]["table"] == str(stage_paths(config)["solve"])
    assert "table" not in made["train"]["data"]
    with pytest.raises(SettingsError, match="polish: threads must be at least 0 and at most 1024"):
        load_config(write(tmp_path, {**TINY, "polish": {"threads": -1}}))
    with pytest.raises(SettingsError, match="finetune: monitor must be one of val_loss, "):
        load_config(write(tmp_path, {**TINY, "finetune": {"monitor": "val_mae"}}))
    with pytest.raises(PipelineError, match="unknown key.*seed under polish"):
        load_config(write(tmp_path, {**TINY, "polish": {"seed": 1}}))
