"""Work on a Ray cluster (infra/cluster.py) gives the bytes a local run gives.

The slow tier starts a real local Ray cluster: a head that runs no tasks and two
worker nodes of one CPU each, as separate raylets on this machine. The default tier
needs no Ray at all."""
import json
import threading
import time

import numpy as np
import pytest

from tabula.cli import main
from tabula.games import parse_variant
from tabula.infra.cluster import ClusterError, LocalCluster, cluster_address, open_cluster
from tabula.solver.layered import solve
from tabula.solver.table import Table


def test_cluster_names():
    assert cluster_address(None) is None and cluster_address("local") is None
    assert cluster_address("ray") == ""
    assert cluster_address("ray:auto") == "auto"
    assert cluster_address("ray:10.0.0.5:6379") == "10.0.0.5:6379"
    with pytest.raises(ClusterError, match="local, ray"):
        cluster_address("slurm")
    assert isinstance(open_cluster("local"), LocalCluster)


def test_a_local_unit_runs_at_once_and_keeps_its_error():
    cluster = LocalCluster()
    ran = []
    future = cluster.submit(lambda x: ran.append(x) or x * 2, 21)
    assert ran == [21] and future.result() == 42
    failed = cluster.submit(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        failed.result()


def test_a_bad_cluster_is_one_line(tmp_path, capsys):
    assert main(["solve", "ur", "--pieces", "1", "--out", str(tmp_path / "t.h5"),
                 "--cluster", "slurm"]) == 2
    assert "--cluster must be local, ray" in capsys.readouterr().err
    assert main(["solve", "bearoff", "--pieces", "2", "--out", str(tmp_path / "b.h5"),
                 "--cluster", "ray"]) == 2
    assert "--cluster is not for bearoff" in capsys.readouterr().err


def test_a_cluster_that_does_not_answer_is_said_at_once():
    """Ray would wait minutes for a head node that is not there."""
    import socket
    from tabula.infra.cluster import _check_answers
    with socket.socket() as unused:   # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    started = time.time()
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        with pytest.raises(ClusterError, match=f"nothing answers at {address}"):
            _check_answers(address)
    assert time.time() - started < 10
    _check_answers(None)     # a Ray started here, and the one `ray start` made: Ray's to
    _check_answers("auto")   # find, at once


@pytest.fixture(scope="module")
def ray_cluster():
    """A head node that runs nothing and two one-CPU worker nodes."""
    ray = pytest.importorskip("ray")
    from ray.cluster_utils import Cluster
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    for _ in range(2):
        cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False,
             logging_level="warning")
    yield cluster
    ray.shutdown()
    cluster.shutdown()


def same_tables(a, b):
    """Every layer of the two tables the same bytes, and the same start value."""
    a, b = Table(a), Table(b)
    assert a.layers == b.layers
    for layer in a.layers:
        assert a.layer(*layer).tobytes() == b.layer(*layer).tobytes(), layer
    assert a.attrs.get("start_value") == b.attrs.get("start_value")


@pytest.mark.slow
@pytest.mark.cluster
# (Senet 3 whole, Ur 5 and the rest: benchmarks/bench_cluster.py; here what fits the tier)
@pytest.mark.parametrize("variant, max_total", [("ur(pieces=4)", None), ("senet(pieces=3)", 4),
                                                ("einstein(rules=4x4,pieces=3)", None)])
def test_a_solve_on_ray_is_the_local_solve(ray_cluster, tmp_path, variant, max_total):
    game = parse_variant(variant)
    solve(game, tmp_path / "local.h5", quiet=True, max_total=max_total)
    limit = [] if max_total is None else ["--max-total", str(max_total)]
    assert main(["solve", variant, "--out", str(tmp_path / "ray.h5"), "--cluster", "ray",
                 "--quiet", *limit]) == 0
    same_tables(tmp_path / "local.h5", tmp_path / "ray.h5")


@pytest.mark.slow
@pytest.mark.cluster
def test_a_node_killed_mid_solve_costs_only_its_unit(ray_cluster, tmp_path):
    """The only node with CPUs is removed while it solves a unit (its tabled moves are
    on disk); a new node takes the unit again and the table is the local one's."""
    game = parse_variant("ur(pieces=4)")
    solve(game, tmp_path / "local.h5", quiet=True)
    out = tmp_path / "ray.h5"
    nodes = list(ray_cluster.worker_nodes)
    ray_cluster.remove_node(nodes[1])   # one node does the work
    from tabula.infra.cluster import RayCluster
    done = []
    run = threading.Thread(target=lambda: done.append(
        solve(game, out, quiet=True, cluster=RayCluster(), table_budget=0)))
    run.start()
    partial = tmp_path / "ray.h5.partial"
    deadline = time.time() + 120
    while not any(partial.glob("moves-*/moves.int32")) or not any(partial.glob("*.npy")):
        assert time.time() < deadline and run.is_alive(), "no unit got under way"
        time.sleep(0.05)
    kept = {path: path.stat().st_mtime_ns for path in partial.glob("*.npy")}
    ray_cluster.add_node(num_cpus=1)
    ray_cluster.remove_node(nodes[0])   # kills the unit at work
    rewritten = set()
    while run.is_alive() and time.time() < deadline + 300:
        for path, when in kept.items():   # a finished layer is never solved again
            try:
                if path.stat().st_mtime_ns != when:
                    rewritten.add(path.name)
            except FileNotFoundError:     # the checkpoint is removed once the table is out
                pass
        time.sleep(0.05)
    run.join(timeout=1)
    assert done, "the solve did not finish"
    assert kept and not rewritten
    same_tables(tmp_path / "local.h5", out)


def test_games_cut_in_other_blocks_are_the_same_games(tables, monkeypatch):
    """Each game's throws and players' choices follow its number in the run, not its
    block: blocks of 6 games play the games of one block of 2048."""
    from tabula.eval import blocks
    from tabula.eval.measures import match, regret
    from tabula.eval.players import make_player
    table = tables[("ur", 2)]

    def measured():
        played = regret(table, make_player("random", table.game), 40, seed=3)
        result = match(make_player("heuristic", table.game), make_player("random", table.game),
                       20, seed=4, table=table)
        return played.per_game_points, played.loss_points, without_times(result)
    whole = measured()
    monkeypatch.setattr(blocks, "BLOCK_GAMES", 6)
    cut = measured()
    assert whole[0].tobytes() == cut[0].tobytes()
    # decisions are recorded turn by turn across a block's games: the same, in other order
    assert np.sort(whole[1]).tobytes() == np.sort(cut[1]).tobytes()
    assert whole[2] == cut[2]


def without_times(summary: dict) -> dict:
    return {k: v for k, v in summary.items()
            if "second" not in k and k not in ("seconds", "moves_per_second")}


@pytest.mark.slow
@pytest.mark.cluster
def test_a_match_and_a_regret_on_ray_are_the_local_ones(ray_cluster, tables, capsys):
    """Two blocks of games, the table opened again from its path on the workers."""
    table = tables[("ur", 3)]
    runs = {}
    for where in ("local", "ray"):
        assert main(["eval", "match", "ur", "--pieces", "3", "--table", str(table.path),
                     "--a", "heuristic", "--b", "expectimax:1", "--pairs", "1100",
                     "--seed", "7", "--cluster", where, "--json", "--quiet"]) == 0
        assert main(["eval", "regret", "ur", "--pieces", "3", "--table", str(table.path),
                     "--player", "random", "--games", "2100", "--seed", "8",
                     "--cluster", where, "--json", "--quiet"]) == 0
        runs[where] = [without_times(json.loads(line))
                       for line in capsys.readouterr().out.splitlines()]
    assert runs["local"] == runs["ray"]
    assert runs["local"][0]["games"] == 2200 and runs["local"][1]["games"] == 2100


@pytest.mark.slow
@pytest.mark.cluster
def test_a_datagen_on_ray_is_the_local_one(ray_cluster, tables, tmp_path):
    """Three chunks of games, the last two perfect-play games on other dice."""
    import h5py
    table = tables[("ur", 3)]
    for where in ("local", "ray"):
        assert main(["datagen", "ur", "--pieces", "3", "--table", str(table.path), "--out",
                     str(tmp_path / f"{where}.h5"), "--games", "5000", "--perfect-games",
                     "3000", "--alternatives", "--uniform", "1000", "--seed", "9",
                     "--cluster", where, "--quiet"]) == 0
    with h5py.File(tmp_path / "local.h5") as a, h5py.File(tmp_path / "ray.h5") as b:
        assert a.attrs["data_sha256"] == b.attrs["data_sha256"]
        for split in ("train", "val", "test"):
            for name in ("codes", "values", "source"):
                assert a[split][name][:].tobytes() == b[split][name][:].tobytes()


@pytest.mark.slow
@pytest.mark.cluster
def test_a_distill_generation_on_ray_is_the_local_one(ray_cluster, tables, tmp_path):
    """Self-play of the teacher in two blocks on the workers, its labels, its decisions
    and the network trained on them: the same bytes as a local generation."""
    import h5py
    import yaml
    from tabula.datagen.datafile import DataFile
    from tabula.distill import load_recipe, run_distill
    from tests.test_distill import recipe
    made = {}
    for where in ("local", "ray"):
        folder = tmp_path / where
        folder.mkdir()
        path = recipe(folder, tables[("ur", 2)], generations=1, games=2100, sims=4,
                      teacher="mcts:4:heuristic", report_games=100)
        loaded = yaml.safe_load(path.read_text())
        path.write_text(yaml.safe_dump({**loaded, "cluster": where}))
        summary = run_distill(load_recipe(path), log=lambda line: None)
        gen = folder / "work" / "gen_0"
        made[where] = (DataFile(gen / "data.h5").attrs["data_sha256"],
                       h5py.File(gen / "decisions.h5").attrs["decisions_sha256"],
                       summary["generations"]["0"]["records"],
                       summary["generations"]["0"]["regret"])
    assert made["local"] == made["ray"]


def test_a_config_or_recipe_names_its_cluster_or_is_refused(tmp_path):
    import yaml
    from tabula.distill import DistillError, load_recipe
    from tabula.pipeline import PipelineError, load_config
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"game": "ur", "pieces": 2, "cluster": "ray:auto"}))
    assert load_config(path)["cluster"] == "ray:auto"
    assert load_recipe(path)["cluster"] == "ray:auto"
    path.write_text(yaml.safe_dump({"game": "ur", "pieces": 2}))
    assert load_config(path)["cluster"] == "local" == load_recipe(path)["cluster"]
    path.write_text(yaml.safe_dump({"game": "ur", "pieces": 2, "cluster": "slurm"}))
    for load, error in ((load_config, PipelineError), (load_recipe, DistillError)):
        with pytest.raises(error, match="cluster: --cluster must be local, ray"):
            load(path)
    path.write_text(yaml.safe_dump({"game": "ur", "pieces": 2, "cluster": 5}))
    with pytest.raises(PipelineError, match="cluster must be text"):
        load_config(path)
