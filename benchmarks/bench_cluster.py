"""What Ray costs against a local run, for each kind of work, and that both give the
same bytes.

    python benchmarks/bench_cluster.py [--nodes 2] [--work solve datagen match distill]
                                       [--folder DIR]

Each kind of work runs twice, side by side in one process: in this process (`local`,
the default), then on a local Ray cluster started here (a head that runs nothing and
--nodes worker nodes of one CPU each: separate raylets, as on separate machines). On a
machine of 2 cores a cluster cannot be faster than the local run, which uses both
cores in one process; the ratio shows what cutting work into units, starting workers
and moving results costs. Every pair of runs is checked to be the same bytes:

  solve     Ur 5, Senet 3, EinStein 4x4 with 3 cubes (every layer of the two tables)
  datagen   Ur 5's table: 100,000 games with alternatives, 1,000,000 uniform positions
            (the data's checksum)
  match     Ur 5: heuristic against expectimax:1, 5,000 duplicate pairs, with the table
            (the result, timings aside)
  distill   one generation of Ur 2 taught by mcts:30:heuristic over 4,096 games
            (the data's and decisions' checksums and the network's regret)

The first local run of each kind compiles what it needs (numba's cache) and imports
what it uses (PyTorch and Lightning for distill); a warm-up of the same work, smaller,
runs before it so that neither side pays for that.
"""
import argparse
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script, work_folder  # noqa: E402

SOLVES = ["ur(pieces=5)", "senet(pieces=3)", "einstein(rules=4x4,pieces=3)"]


def timed(work):
    started = time.time()
    result = work()
    return time.time() - started, result


def solve_pair(variant, folder, cluster):
    from tabula.games import parse_variant
    from tabula.solver.layered import solve
    from tabula.solver.table import Table
    game = parse_variant(variant)
    rows = []
    for name, where in (("local", None), ("ray", cluster)):
        seconds, _ = timed(lambda: solve(game, folder / f"{name}.h5", quiet=True,
                                         cluster=where))
        rows.append(seconds)
    a, b = Table(folder / "local.h5"), Table(folder / "ray.h5")
    same = all(a.layer(*p).tobytes() == b.layer(*p).tobytes() for p in a.layers)
    return rows, same, a.layers


def datagen_pair(table, folder, cluster):
    from tabula.datagen.generate import generate
    sums = []
    times = []
    for name, where in (("local", None), ("ray", cluster)):
        seconds, written = timed(lambda: generate(
            table, folder / f"{name}.h5", 100_000, 0.3, 1_000_000, 1, 0.05, 0.05,
            quiet=True, alternatives=True, cluster=where))
        times.append(seconds)
        sums.append(written["data_sha256"])
    return times, sums[0] == sums[1]


def match_pair(table, cluster):
    from tabula.eval.measures import match
    from tabula.eval.players import make_player
    results, times = [], []
    match(*(make_player(spec, table.game, table) for spec in ("heuristic", "expectimax:1")),
          50, 0, table=table)   # warm-up: the players' compiled code
    for where in (None, cluster):
        a, b = (make_player(spec, table.game, table) for spec in ("heuristic", "expectimax:1"))
        seconds, result = timed(lambda: match(a, b, 5000, 1, table=table, cluster=where))
        times.append(seconds)
        results.append({k: v for k, v in result.items() if "second" not in k})
    return times, results[0] == results[1]


def distill_pair(ur2_path, folder, cluster_name, games=4096, where=None):
    from tabula.datagen.datafile import DataFile
    import h5py
    import yaml
    from tabula.distill import load_recipe, run_distill
    made, times = [], []
    folder.mkdir(parents=True, exist_ok=True)
    for where in where or ("local", cluster_name):
        work = folder / where.replace(":", "_")
        shutil.rmtree(work, ignore_errors=True)   # a generation found done is not run again
        path = folder / f"{where.replace(':', '_')}.yaml"
        path.write_text(yaml.safe_dump({
            "name": "bench", "game": "ur", "pieces": 2, "workdir": str(work),
            "table": str(ur2_path), "cluster": where,
            "distill": {"generations": 1, "teacher": "mcts:30:heuristic", "sims": 30,
                        "games": games, "report_games": 2000},
            "train": {"model": {"hidden": [64, 64]},
                      "trainer": {"max_epochs": 3, "enable_progress_bar": False,
                                  "enable_model_summary": False}}}))
        recipe = load_recipe(path)
        seconds, summary = timed(lambda: run_distill(recipe, log=lambda line: None))
        times.append(seconds)
        gen = work / "gen_0"
        made.append((DataFile(gen / "data.h5").attrs["data_sha256"],
                     h5py.File(gen / "decisions.h5").attrs["decisions_sha256"],
                     summary["generations"]["0"]["regret"]))
    return times, made[0] == made[-1]


def start_cluster(nodes: int):
    import ray
    from ray.cluster_utils import Cluster
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    for _ in range(nodes):
        cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False,
             logging_level="warning")
    from tabula.infra.cluster import RayCluster
    return cluster, RayCluster()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=2, help="Ray worker nodes (default 2)")
    parser.add_argument("--work", nargs="+", default=["solve", "datagen", "match", "distill"],
                        choices=["solve", "datagen", "match", "distill"])
    parser.add_argument("--folder", type=Path, default=None,
                        help="where the tables and sets go (default a temporary folder)")
    args = parser.parse_args()
    with work_folder(args.folder) as folder:
        return measure(args, folder)


def measure(args, folder: Path):
    from tabula.games import get_game, parse_variant
    from tabula.solver.layered import solve
    from tabula.solver.solution import open_solution
    for variant in SOLVES:   # warm-up: numba's cache for every game, here and for workers
        game = parse_variant(variant)
        solve(game, folder / "warm.h5", quiet=True, max_total=min(3, 2 * game.pieces))
        (folder / "warm.h5").unlink()
    ray_cluster, cluster = start_cluster(args.nodes)
    rows = []

    def row(work, what, times, same):
        rows.append({"work": work, "what": what, "local s": round(times[0], 1),
                     f"ray ({args.nodes} nodes) s": round(times[1], 1),
                     "ray / local": round(times[1] / times[0], 2),
                     "same bytes": "yes" if same else "NO"})
        print(rows[-1], flush=True)

    try:
        if "solve" in args.work:
            for variant in SOLVES:
                sub = folder / variant.replace("(", "_").replace(")", "").replace(",", "_")
                sub.mkdir(exist_ok=True)
                times, same, _ = solve_pair(variant, sub, cluster)
                row("solve", variant, times, same)
        ur5 = folder / "ur5.h5"
        if {"datagen", "match"} & set(args.work) and not ur5.exists():
            solve(get_game("ur", 5), ur5, quiet=True)
        if "datagen" in args.work:
            times, same = datagen_pair(open_solution(ur5), folder, cluster)
            row("datagen", "ur 5: 100,000 games + alternatives, 1,000,000 uniform", times,
                same)
        if "match" in args.work:
            times, same = match_pair(open_solution(ur5), cluster)
            row("match", "ur 5: heuristic vs expectimax:1, 5,000 pairs", times, same)
        if "distill" in args.work:
            ur2 = folder / "ur2.h5"
            if not ur2.exists():
                solve(get_game("ur", 2), ur2, quiet=True)
            distill_pair(ur2, folder / "warm", "ray", games=64, where=("local",))   # imports
            times, same = distill_pair(ur2, folder, "ray")
            row("distill", "ur 2: one generation, 4,096 games of mcts:30:heuristic", times,
                same)
    finally:
        import ray
        ray.shutdown()
        ray_cluster.shutdown()
    report("cluster", rows, {"nodes": args.nodes})
    return 0 if all(r["same bytes"] == "yes" for r in rows) else 1


if __name__ == "__main__":
    run_script(main)
