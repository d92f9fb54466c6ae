"""How long the bear-off tables take and how much memory they need: each size is
solved by `tabula solve bearoff --checkers N` in its own process (so its peak memory
is its own), plus the 15-checker one-sided table.

    python benchmarks/bench_bearoff.py [--checkers 6 10] [--threads 2]

Targets (issue 20, this 2-core machine): 6 checkers under 30 s; 10 checkers under
15 minutes and 8 GB.
"""
import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script  # noqa: E402


def solve(checkers: int, threads: int, one_sided: bool, folder: Path) -> dict:
    out = folder / f"bearoff{checkers}{'os' if one_sided else ''}.h5"
    command = [sys.executable, "-m", "tabula", "solve", "bearoff", "--checkers", str(checkers),
               "--out", str(out), "--threads", str(threads), "--quiet", "--json"]
    if one_sided:
        command.append("--one-sided")
    summary = json.loads(subprocess.run(command, check=True, capture_output=True,
                                        text=True).stdout)
    return {"table": "one-sided" if one_sided else "two-sided", "checkers": checkers,
            "positions": summary["positions"] or summary["sides"],
            "seconds": round(summary["wall_seconds"], 1),
            "peak_GiB": round(summary["peak_memory_bytes"] / 2**30, 2),
            "file_MB": round(out.stat().st_size / 1e6, 1)}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkers", type=int, nargs="+", default=[6, 10])
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        rows = [solve(n, args.threads, False, Path(folder)) for n in args.checkers]
        rows.append(solve(15, args.threads, True, Path(folder)))
    report("bearoff", rows, {"threads": args.threads})


if __name__ == "__main__":
    run_script(main)
