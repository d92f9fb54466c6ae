"""Solver speed from a cold start: wall time, core-seconds, peak memory.

    python benchmarks/bench_solve.py ur --pieces 7 --out tables/ur7.h5
    python benchmarks/bench_solve.py senet --pieces 4 --out tables/senet4.h5
    python benchmarks/bench_solve.py ur --rules masters --pieces 7 --out tables/ur-masters7.h5

Runs `tabula solve` in a child process with an empty numba cache (so compilation
is included), then reads the table's figures.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.common import report, run_script  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game")
    parser.add_argument("--pieces", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--rules", default=None, help="the rule set (default: the game's first)")
    parser.add_argument("--max-total", type=int, default=None)
    args = parser.parse_args()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "tabula", "solve", args.game, "--pieces", str(args.pieces),
               "--out", args.out, "--force", "--json"]
    if args.rules:
        command += ["--rules", args.rules]
    if args.max_total:
        command += ["--max-total", str(args.max_total)]
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        t0 = time.time()
        done = subprocess.run(command, env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        wall = time.time() - t0
    if done.returncode:
        sys.exit(done.returncode)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    row = {"game": args.game, "rules": summary.get("rules", "-"), "pieces": args.pieces,
           "positions": summary["positions"],
           "wall s (cold)": round(wall, 1), "core-seconds": round(usage.ru_utime + usage.ru_stime),
           "peak GiB": round(usage.ru_maxrss * 1024 / 2**30, 2),
           "full sweeps": summary["sweeps"], "policy sweeps": summary["policy_sweeps"],
           "worst residual": summary["max_residual"],
           "start value": (f"{summary['start_value']:.10f}" if summary["start_value"] is not None
                           else "-")}
    name = args.game + (f"-{args.rules}" if args.rules else "") + str(args.pieces)
    report(f"solve_{name}", [row], {"summary": summary})


if __name__ == "__main__":
    run_script(main)
