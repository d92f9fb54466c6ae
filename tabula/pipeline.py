"""`tabula pipeline`: solve -> datagen -> train -> finetune -> polish -> export -> eval
report for one game variant, from one YAML file.

The finetune and polish stages are optional: given a `finetune` section (model, data,
trainer settings laid over those of train), finetune trains again from train's best
weights (model.init_from); given a `polish` section (laid over finetune's, or train's),
polish trains again from the best weights before it. Either may also give its own
`threads` (laid over the stage before's like the sections). Export takes the last
training stage's checkpoint; a stage without its section is a no-op.

Each stage's inputs (its settings and the fingerprints of the stages before it) are
hashed into a stamp kept in WORKDIR/stages.json; a stage whose stamp and outputs
are unchanged is skipped, and a changed setting reruns that stage and every stage
after it.
"""
import hashlib
import json
import os
import shutil
import time
from dataclasses import asdict
from functools import partial
from pathlib import Path

import yaml

from tabula.datagen.settings import DatagenSettings
from tabula.eval.settings import ReportSettings
from tabula.export.settings import ExportSettings
from tabula.games import get_game
from tabula.infra.atomic import write_atomic
from tabula.infra.cluster import ClusterError, cluster_address, cluster_named
from tabula.infra.yamlfile import load_yaml
from tabula.infra.errors import TabulaError
from tabula.infra.schemas import StageRecords, read_records
from tabula.solver.settings import SolveSettings
from tabula.training.settings import TrainSettings

STAGES = ("solve", "datagen", "train", "finetune", "polish", "export", "report")
TRAINING = ("train", "finetune", "polish")   # each from the best weights of the one before
SECTIONS = ("model", "data", "trainer")   # LightningCLI's, under each training stage
# besides its sections, a later training stage may set its own torch threads and the
# metric its best checkpoint goes by (the stage before's when not given; why:
# docs/CHAIN.md)
LATER_STAGE_KEYS = {"threads", "monitor"}
# each stage's defaults are its command's (the settings objects); only the sections of
# LightningCLI and the report's players, which name the pipeline's own models, are new
DEFAULTS = {
    "solve": asdict(SolveSettings()),
    "datagen": asdict(DatagenSettings()),
    "train": {**{section: {} for section in SECTIONS}, **asdict(TrainSettings())},
    "finetune": {section: {} for section in SECTIONS},
    "polish": {section: {} for section in SECTIONS},
    "export": asdict(ExportSettings()),
    "report": {**asdict(ReportSettings()),
               "players": ["random", "heuristic", "expectimax:1", "net", "net+search",
                           "net-int8", "perfect"]},
}


class PipelineError(TabulaError):
    """A pipeline config that cannot be run."""


def read_recipe(path, allowed: set, what: str, error=PipelineError) -> dict:
    """The YAML mapping at `path` (a pipeline config or a distillation recipe): UTF-8,
    valid YAML, a mapping of the `allowed` keys naming the game (and where work runs, a
    cluster infra/cluster.py reads); else one line."""
    path = Path(path)
    if not path.is_file():
        raise error(f"no {what} {path}")
    try:
        config = load_yaml(path.read_text(encoding="utf-8")) or {}
    except UnicodeDecodeError:
        raise error(f"{path} is not UTF-8 text") from None
    except yaml.YAMLError as err:
        raise error(f"{path} is not valid YAML ({' '.join(str(err).split())})") from None
    if not isinstance(config, dict):
        raise error(f"{path} must be a YAML mapping (game: ..., pieces: ..., ...)")
    unknown = sorted(set(config) - allowed)
    if unknown:
        raise error(f"{path}: unknown key(s) {', '.join(unknown)}; keys are "
                    f"{', '.join(sorted(allowed))}")
    if "game" not in config:
        raise error(f"{path}: give the game (game: ur or game: senet)")
    for key, kind in (("name", str), ("game", str), ("rules", str), ("workdir", str),
                      ("table", str), ("cluster", str), ("pieces", int)):   # before any work
        value = config.get(key)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            raise error(f"{path}: {key} must be {'a whole number' if kind is int else 'text'}"
                        f", not {str(value)[:40]!r}")
    try:
        cluster_address(config.get("cluster"))
    except ClusterError as err:
        raise error(f"{path}: cluster: {err}") from None
    return config


def load_config(path) -> dict:
    path = Path(path)
    config = read_recipe(path, {"name", "game", "rules", "pieces", "workdir", "cluster",
                                *STAGES}, "pipeline config")
    game = get_game(config["game"], config.get("pieces"), config.get("rules"))
    merged = {"name": config.get("name", path.stem), "game": game.name,
              "cluster": config.get("cluster") or "local",
              "rules": game.rules, "pieces": game.pieces,
              "workdir": config.get("workdir", f"runs/pipeline/{config.get('name', path.stem)}")}
    for stage in STAGES:
        given = config.get(stage) or {}
        if not isinstance(given, dict):
            raise PipelineError(f"{path}: {stage} must be a mapping of settings")
        known = set(DEFAULTS[stage]) | (LATER_STAGE_KEYS if stage in TRAINING[1:] else set())
        unknown = sorted(set(given) - known)
        if unknown:
            raise PipelineError(f"{path}: unknown key(s) {', '.join(unknown)} under {stage}; "
                                f"keys are {', '.join(sorted(known))}")
        check_stage(stage, given, f"{path}: {stage}: ")
        merged[stage] = {**DEFAULTS[stage], **given}
    for stage in TRAINING[1:]:
        merged[stage] = merged[stage] if config.get(stage) else None
    return merged


SETTINGS = {"solve": SolveSettings, "datagen": DatagenSettings, "train": TrainSettings,
            "finetune": TrainSettings, "polish": TrainSettings,   # (their threads alone)
            "export": ExportSettings, "report": ReportSettings}


def check_stage(stage, given, where):
    """A stage's settings, with the checks its command makes (the LightningCLI sections
    are checked by run_pipeline before the first stage: _check_training)."""
    own = {k: v for k, v in given.items() if k not in SECTIONS and k != "players"}
    if stage in SETTINGS:
        SETTINGS[stage].check(own, where)
    for section in SECTIONS:
        if not isinstance(given.get(section, {}), dict):
            raise PipelineError(f"{where}{section} must be a mapping of settings")
    players = given.get("players", [])
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise PipelineError(f"{where}players must be a list of player names")


def _stamp(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


def stage_paths(config: dict) -> dict:
    """Where each stage's result is, in the config's workdir."""
    work = Path(config["workdir"])
    paths = {"solve": work / "table.h5", "datagen": work / "data.h5",
             **{stage: best_checkpoint(work / stage) for stage in TRAINING},
             "export": work / "model.onnx", "report": work / "report" / "REPORT.md"}
    for before, stage in zip(TRAINING, TRAINING[1:]):
        if not config[stage]:   # nothing to do: the weights of the stage before go on
            paths[stage] = paths[before]
    return paths


def best_checkpoint(root) -> Path:
    """Where a `tabula train` run under `root` (its trainer.default_root_dir, run afresh
    by run_training) keeps its best weights."""
    return Path(root) / "version_0" / "checkpoints" / "best.ckpt"


def training_stages(config: dict) -> list[str]:
    """The training stages the config runs, in order: train, and those it has sections
    for."""
    return [stage for stage in TRAINING if stage == "train" or config[stage]]


def last_training_stage(config: dict) -> str:
    """The training stage whose checkpoint export takes."""
    return training_stages(config)[-1]


def run_pipeline(config: dict, log=print, table=None) -> dict:
    """Run the stages that are not up to date; return where each result is. `table`: a
    table of the variant solved before, which the solve stage takes instead of
    solving again. The solve, the games of datagen and the report run on the config's
    cluster where they can (a layered solve; games without the cube), the rest here;
    where they ran changes no result, so it is not part of any stage's stamp."""
    with cluster_named(config["cluster"]) as cluster:
        return _run_stages(config, log, table, cluster)


def _run_stages(config, log, table, cluster) -> dict:
    work = Path(config["workdir"])
    work.mkdir(parents=True, exist_ok=True)
    state_path = work / "stages.json"
    state = read_records(state_path, StageRecords, log, "every stage runs again")
    game = get_game(config["game"], config["pieces"], config["rules"])
    paths = stage_paths(config)
    actions = {"solve": partial(_take_table, table) if table else _solve, "datagen": _datagen,
               **{stage: _training_stage(stage) for stage in TRAINING},
               "export": _export, "report": _report}
    _check_training(game, config, paths)
    upstream = [game.name, game.rules, game.pieces]
    summary = {"workdir": str(work), "stages": {}}
    for stage in STAGES:
        stamp = _stamp(upstream, stage, config[stage])
        upstream = [upstream, stamp]
        if config[stage] is None:   # an optional stage the config leaves out
            log(f"[{stage}] skipped: the config has no {stage} section")
            summary["stages"][stage] = {"path": str(paths[stage]), "ran": False,
                                        "skipped": True}
            continue
        done = state.get(stage, {})
        if done.get("stamp") == stamp and paths[stage].exists():
            log(f"[{stage}] up to date: {paths[stage]}")
            summary["stages"][stage] = {"path": str(paths[stage]), "ran": False}
        else:
            log(f"[{stage}] running ...")
            started = time.time()
            actions[stage](game, config, paths, work, cluster)
            state[stage] = {"stamp": stamp, "seconds": time.time() - started}
            for later in STAGES[STAGES.index(stage) + 1:]:
                state.pop(later, None)
            write_atomic(state_path, json.dumps(state, indent=2) + "\n")
            log(f"[{stage}] done in {state[stage]['seconds']:.1f} s: {paths[stage]}")
            summary["stages"][stage] = {"path": str(paths[stage]), "ran": True,
                                        "seconds": state[stage]["seconds"]}
    summary["report"] = json.loads((work / "report" / "results.json").read_text())
    return summary


def _check_training(game, config, paths):
    """Every training stage's settings, checked before the first stage runs (not after
    the solve and the data set, as training itself would)."""
    from tabula.training.cli import check_before_data
    for stage in training_stages(config):
        train_config = training_config(game, config, stage, paths)
        if stage != "train":   # the weights of the stage before, not made yet
            train_config["model"]["init_from"] = None
        try:
            check_before_data(train_config, game)
        except TabulaError as err:
            raise PipelineError(f"{stage}: {err}") from None


def _solve(game, config, paths, work, cluster):
    from tabula.solver.solution import kind_of_game, solve_game
    paths["solve"].unlink(missing_ok=True)
    options = kind_of_game(game).options
    settings = {k: v for k, v in config["solve"].items() if k in options}
    if "cluster" in options:
        settings["cluster"] = cluster
    solve_game(game, paths["solve"], **settings)


def _take_table(table, game, config, paths, work, cluster):
    """The solve stage's table, solved before: checked to be of the variant and solved
    at least as tightly as the config asks, then linked (or copied) into the workdir."""
    solved = _table(game, table)
    tolerance = solved.attrs.get("tolerance")
    if tolerance is not None and tolerance > config["solve"]["tol"]:
        raise PipelineError(f"{table} was solved to tolerance {tolerance:g}, not the "
                            f"{config['solve']['tol']:g} the config asks")
    tmp = paths["solve"].with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    try:
        os.link(table, tmp)
    except OSError:   # another file system
        shutil.copyfile(table, tmp)
    os.replace(tmp, paths["solve"])


def _table(game, path):
    from tabula.solver.solution import open_solution
    return open_solution(path, game=game.name, pieces=game.pieces, rules=game.rules)


def _datagen(game, config, paths, work, cluster):
    from tabula.datagen.generate import generate
    s = config["datagen"]
    generate(_table(game, paths["solve"]), paths["datagen"], s["games"], s["explore"],
             s["uniform"], s["seed"], s["val_frac"], s["test_frac"],
             alternatives=s["alternatives"], perfect_games=s["perfect_games"],
             cluster=cluster)


def _training_stage(stage):
    def action(game, config, paths, work, cluster):
        run_training(training_config(game, config, stage, paths), work / stage)
    return action


def training_config(game, config, stage, paths) -> dict:
    """The `tabula train` config of a training stage: train's settings with those of
    each later stage up to this one laid over them; after train, starting from the
    best weights of the stage before."""
    t = config["train"]
    for before, later in zip(TRAINING, TRAINING[1:TRAINING.index(stage) + 1]):
        laid = config[later] or {}
        t = {**t, **{key: {**t[key], **laid.get(key, {})} for key in SECTIONS},
             **{key: laid[key] for key in LATER_STAGE_KEYS if key in laid}}
        t["model"]["init_from"] = str(paths[before])
    settings = lightning_config(t, paths["datagen"], Path(config["workdir"]) / stage)
    if any(t["data"].get(key) for key in ("decisions", "searched", "val_decisions")):
        settings["data"]["table"] = str(paths["solve"])
    return settings


def lightning_config(t: dict, data_path, root, init_from: str | None = None) -> dict:
    """The `tabula train` config of training settings `t` (a train section): its data
    at data_path, its runs under root, from the weights at init_from (None: as t says)."""
    model = {**t["model"], "init_from": init_from} if init_from else dict(t["model"])
    return {"seed_everything": t["seed"], "patience": t["patience"], "threads": t["threads"],
            "monitor": t["monitor"], "model": model, "data": {**t["data"], "path": str(data_path)},
            "trainer": {**t["trainer"], "default_root_dir": str(root)}}


def run_training(train_config, root):
    from tabula.training.cli import run
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    config_path = root.with_suffix(".yaml")
    write_atomic(config_path, yaml.safe_dump(train_config, sort_keys=False))
    run(["--config", str(config_path)])


def _export(game, config, paths, work, cluster):
    from tabula.export.onnx_export import export
    export(paths[last_training_stage(config)], paths["export"], int8=config["export"]["int8"])


def _report(game, config, paths, work, cluster):
    from tabula.eval.report import write_report
    from tabula.export.onnx_export import int8_model_path
    r = config["report"]
    model = paths["export"]
    named = {"net": f"net:{model}", "net+search": f"net+search:{model}",
             "net-int8": f"net:{int8_model_path(model)}"}
    players = [named.get(p, p) for p in r["players"]]
    if not config["export"]["int8"]:
        players = [p for p in players if ".int8." not in p]
    write_report(_table(game, paths["solve"]), players, r["games"], r["seed"], work / "report",
                 quiet=False, cluster=cluster)
    curves = ""
    for stage in training_stages(config):
        curve = work / stage / "version_0" / "learning_curve.png"
        if curve.is_file():
            shutil.copy(curve, work / "report" / f"learning_curve_{stage}.png")
            curves += f"\n![{stage}: learning curve](learning_curve_{stage}.png)\n"
    if curves:
        with open(work / "report" / "REPORT.md", "a") as report:
            report.write(f"\n## Training\n{curves}")
