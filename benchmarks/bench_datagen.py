"""Labelled positions per second: perfect self-play with exploration, uniform draws
within layers, and a whole `generate` run (split, shuffle, HDF5 write included).

    python benchmarks/bench_datagen.py tables/ur7.h5 [--games 50000] [--uniform 5000000]
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script  # noqa: E402
from tabula.datagen.generate import generate, self_play, uniform_draws  # noqa: E402
from tabula.solver.table import Table  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("table")
    parser.add_argument("--games", type=int, default=50_000)
    parser.add_argument("--uniform", type=int, default=5_000_000)
    args = parser.parse_args()
    table = Table(args.table)
    game = table.game
    self_play(table, 10, 0.3, 99, quiet=True)        # compile and warm up
    table.values(uniform_draws(table, 10_000, 99))
    rows = []

    t0 = time.perf_counter()
    codes, _ = self_play(table, args.games, 0.3, 1, quiet=True)
    table.values(codes)
    seconds = time.perf_counter() - t0
    rows.append(_row(game, "self-play + labels", len(codes), seconds))

    t0 = time.perf_counter()
    codes = uniform_draws(table, args.uniform, 1)
    table.values(codes)
    seconds = time.perf_counter() - t0
    rows.append(_row(game, "uniform + labels", len(codes), seconds))

    with tempfile.TemporaryDirectory() as folder:
        t0 = time.perf_counter()
        summary = generate(table, Path(folder) / "d.h5", args.games, 0.3, args.uniform, 1,
                           0.05, 0.05, quiet=True)
        seconds = time.perf_counter() - t0
    records = summary["counts"]["self_play_records"] + summary["counts"]["uniform_records"]
    rows.append(_row(game, "whole datagen run (written)", records, seconds))
    report("datagen", rows, {"games": args.games, "uniform": args.uniform,
                             "target_per_minute": 10_000_000})


def _row(game, what, n, seconds):
    return {"game": f"{game.name} {game.pieces}", "what": what, "positions": n,
            "seconds": round(seconds, 2), "per minute (M)": round(60 * n / seconds / 1e6, 1)}


if __name__ == "__main__":
    run_script(main)
