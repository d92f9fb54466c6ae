"""Solve one game with several thread counts: the time, the sweeps and the SHA-256
of the values of each (the same bytes whatever the thread count), one process a run.

    python benchmarks/bench_threads.py ur 5 [--threads 1 2 2]
"""
import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script  # noqa: E402

RUN = """
import json, sys, time
from tabula.games import get_game
from tabula.solver.layered import solve
from tabula.solver.table import Table
name, pieces, threads, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
started = time.time()
summary = solve(get_game(name, pieces), out, threads=threads, quiet=True)
print(json.dumps({"seconds": time.time() - started, "sweeps": summary["sweeps"],
                  "policy_sweeps": summary["policy_sweeps"],
                  "sha256": Table(out).attrs["sha256"], "start": summary["start_value"]}))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game")
    parser.add_argument("pieces", type=int)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2, 2])
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for run, threads in enumerate(args.threads):
            out = Path(folder) / f"t{run}.h5"
            done = subprocess.run([sys.executable, "-c", RUN, args.game, str(args.pieces),
                                   str(threads), str(out)], capture_output=True, text=True,
                                  check=True)
            got = json.loads(done.stdout)
            rows.append({"game": f"{args.game} {args.pieces}", "threads": threads,
                         "seconds": round(got["seconds"], 2),
                         "sweeps": f"{got['sweeps']} + {got['policy_sweeps']}",
                         "sha256": got["sha256"][:16], "start": round(got["start"], 10)})
    report(f"threads_{args.game}{args.pieces}", rows,
           {"same_bytes": len({r["sha256"] for r in rows}) == 1})


if __name__ == "__main__":
    run_script(main)
