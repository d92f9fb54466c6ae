"""`tabula distill`: networks taught by tree search instead of a table (issue 51),
generation after generation, from one YAML recipe (configs/distill/*.yaml).

Generation 0's teacher is the recipe's `teacher` (a search with the heuristic as
leaf: no network yet); generation g's is `mcts:SIMS:` the network of generation g - 1.
Each generation:
  data     self-play of the teacher, the result of every move it searched labelled by
           the search, and its decisions with each move's worth and share of the
           visits (datagen/search_data.py: WORKDIR/gen_G/data.h5 and decisions.h5)
  train    `tabula train` on those labels, from the weights of the generation before;
           with train.data.decisions, a decision loss on the searched decisions too
           (towards the visit shares with train.data.visit_shares)
  export   the network (WORKDIR/gen_G/model.onnx and its manifest)
  measure  with the recipe's `table` (a variant that has one), the network's exact
           loss per game against the table, greedily (eval regret)
Each finished generation is recorded in WORKDIR/distill.json with a stamp of its
settings and its teacher; a rerun skips generations whose stamp and network are
there, so a stopped run goes on where it stopped.
"""
import hashlib
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from tabula.eval.players import SearchSpec
from tabula.games import get_game
from tabula.infra.atomic import write_atomic
from tabula.infra.cluster import cluster_named
from tabula.infra.errors import TabulaError
from tabula.infra.settings import MAX_SEED, Settings
from tabula.infra.schemas import GenerationRecords, read_records
from tabula.pipeline import (DEFAULTS, SECTIONS, best_checkpoint, check_stage,
                             lightning_config, read_recipe, run_training)


class DistillError(TabulaError):
    """A distillation recipe that cannot be run."""


@dataclass(frozen=True)
class DistillSettings(Settings):
    generations: int = 3          # networks taught in turn, each by a search with the last
    teacher: str = "mcts:200:heuristic"   # generation 0's search
    sims: int = 200               # simulations a move of the later generations' searches
    games: int = 20000            # self-play games of the teacher a generation
    seed: int = 0
    val_frac: float = 0.05
    test_frac: float = 0.05
    report_games: int = 2000      # games of each network's exact regret (with a table)
    LIMITS = {"generations": (1, 100), "sims": (1, 1_000_000), "games": (1, 10**8),
              "seed": (0, MAX_SEED), "val_frac": (0.0, 0.5), "test_frac": (0.0, 0.5),
              "report_games": (1, 10**7)}


def load_recipe(path) -> dict:
    path = Path(path)
    recipe = read_recipe(path, {"name", "game", "rules", "pieces", "workdir", "table",
                                "cluster", "distill", "train"}, "recipe", DistillError)
    game = get_game(recipe["game"], recipe.get("pieces"), recipe.get("rules"))
    distill, train = recipe.get("distill") or {}, recipe.get("train") or {}
    if not isinstance(distill, dict) or not isinstance(train, dict):
        raise DistillError(f"{path}: distill and train must be mappings of settings")
    DistillSettings.check(distill, f"{path}: distill: ")
    unknown = sorted(set(train) - set(DEFAULTS["train"]))
    if unknown:
        raise DistillError(f"{path}: unknown key(s) {', '.join(unknown)} under train")
    check_stage("train", train, f"{path}: train: ")
    if "teacher" in distill:   # built once, so that a bad one is refused before any work
        from tabula.datagen.search_data import teacher_player
        teacher_player(game, distill["teacher"])
    name = recipe.get("name", path.stem)
    table = recipe.get("table")
    return {"name": name, "game": game.name, "rules": game.rules, "pieces": game.pieces,
            "workdir": recipe.get("workdir", f"runs/distill/{name}"), "table": table,
            "cluster": recipe.get("cluster") or "local",
            "distill": {**asdict(DistillSettings()), **distill},
            "train": {**DEFAULTS["train"], **train}}


def teacher_of(recipe: dict, generation: int, work: Path) -> str:
    """The search that teaches `generation`."""
    if generation == 0:
        return recipe["distill"]["teacher"]
    return str(SearchSpec(recipe["distill"]["sims"],
                          leaf=str(work / f"gen_{generation - 1}" / "model.onnx")))


def run_distill(recipe: dict, log=print) -> dict:
    """Teach the recipe's generations that are not done; what each one measured. The
    self-play and the measures run on the recipe's cluster (a generation is the same
    bytes wherever: infra/cluster.py), the training here."""
    with cluster_named(recipe["cluster"]) as cluster:
        return _run_generations(recipe, cluster, log)


def _run_generations(recipe: dict, cluster, log) -> dict:
    from tabula.export.onnx_export import export
    from tabula.datagen.search_data import search_data
    from tabula.training.cli import check_before_data
    game = get_game(recipe["game"], recipe["pieces"], recipe["rules"])
    work = Path(recipe["workdir"])
    work.mkdir(parents=True, exist_ok=True)
    s, t = recipe["distill"], recipe["train"]
    try:
        check_before_data(lightning_config(t, work / "data.h5", work), game)
    except TabulaError as err:
        raise DistillError(f"train: {err}") from None
    table = _table(recipe, game)
    state_path = work / "distill.json"
    state = read_records(state_path, GenerationRecords, log, "every generation is taught again")
    stamp = _stamp(recipe["game"], recipe["rules"], recipe["pieces"])
    taught_by = ({**s, "generations": None, "report_games": None},   # what a network is
                 {k: t[k] for k in (*SECTIONS, "seed")})             # made of
    for generation in range(s["generations"]):
        folder = work / f"gen_{generation}"
        model = folder / "model.onnx"
        stamp = _stamp(stamp, *taught_by, generation)
        done = state.get(str(generation), {})
        if done.get("stamp") == stamp and model.is_file():
            log(f"[gen {generation}] up to date: {model}")
            continue
        started = time.time()
        teacher = teacher_of(recipe, generation, work)
        log(f"[gen {generation}] self-play of {teacher} ...")
        folder.mkdir(exist_ok=True)
        data = search_data(game, teacher, folder / "data.h5", s["games"],
                           s["seed"] + generation, s["val_frac"], s["test_frac"],
                           decisions_out=folder / "decisions.h5", cluster=cluster)
        log(f"[gen {generation}] {data['counts']['search_records']:,} positions and "
            f"{data['decision_set']['decisions']:,} decisions taught; training ...")
        run_training(training_config(t, folder, work, generation), folder / "train")
        export(best_checkpoint(folder / "train"), model, int8=False)
        record = {"stamp": stamp, "teacher": teacher, "records": data["counts"]["search_records"],
                  "seconds": time.time() - started}
        if table is not None:
            measured = record["regret"] = _regret(table, game, model, s, cluster)
            low, high = measured["ci95"]
            log(f"[gen {generation}] greedy loss per game {measured['loss_per_game']:.3f} "
                f"points (95% {low:.3f}..{high:.3f})")
        state[str(generation)] = record
        for later in [key for key in state if int(key) > generation]:
            del state[later]
        write_atomic(state_path, json.dumps(state, indent=2) + "\n")
        log(f"[gen {generation}] done in {record['seconds']:.0f} s: {model}")
    return {"workdir": str(work), "generations": state}


def training_config(t: dict, folder: Path, work: Path, generation: int) -> dict:
    """The `tabula train` config of a generation: its data, its decisions when the
    recipe asks for a decision loss, from the weights of the generation before."""
    before = best_checkpoint(work / f"gen_{generation - 1}" / "train") if generation else None
    config = lightning_config(t, folder / "data.h5", folder / "train",
                              str(before) if before else None)
    if t["data"].get("decisions"):
        config["data"]["decision_set"] = str(folder / "decisions.h5")
    return config


def _table(recipe, game):
    if recipe["table"] is None:
        return None
    from tabula.solver.solution import open_solution
    return open_solution(recipe["table"], game=game.name, pieces=game.pieces, rules=game.rules)


def _regret(table, game, model, s, cluster) -> dict:
    from tabula.eval.measures import regret
    from tabula.eval.players import make_player
    summary = regret(table, make_player(f"net:{model}", game), s["report_games"],
                     s["seed"] + 1, cluster=cluster).summary
    return {"player": "net", "games": s["report_games"],
            "loss_per_game": summary["loss_per_game_points"],
            "ci95": summary["loss_per_game_ci95"], "error_rate": summary["error_rate"]}


def _stamp(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()) \
        .hexdigest()[:16]
