"""EinStein würfelt nicht!: every variant with at most 3 cubes a side on boards up to
5 x 5, solved, with the value of its set-up choice.

    python benchmarks/bench_einstein.py --out-dir tables/einstein

For each variant runs `tabula solve einstein --board N --cubes K` in a child process
(numba's cache as it is: `benchmarks/bench_solve.py einstein --rules 5x5 --pieces 3`
gives a cold start) and `tabula value einstein --setups` on its table: the first
player's chance with the cubes in order, when both sides choose their set-ups at once
(the matrix game's value) and with set-ups drawn at random.
"""
import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.common import report, run_script  # noqa: E402

BOARDS = {2: 1, 3: 3, 4: 3, 5: 3}   # board -> the most cubes solved on it here


def tabula(*args) -> dict:
    """Run `tabula ARGS --json` in a child process; its JSON answer."""
    done = subprocess.run([sys.executable, "-m", "tabula", *args, "--json"], cwd=ROOT,
                          stdout=subprocess.PIPE, text=True)
    if done.returncode:
        sys.exit(done.returncode)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out-dir", default="tables/einstein", help="where the tables go")
    parser.add_argument("--largest", type=int, default=5, help="the largest board (2..5)")
    args = parser.parse_args()
    folder = Path(args.out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for board, most in BOARDS.items():
        if board > args.largest:
            continue
        for cubes in range(1, most + 1):
            out = folder / f"einstein-{board}x{board}-{cubes}.h5"
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.time()
            solved = tabula("solve", "einstein", "--board", str(board), "--cubes", str(cubes),
                            "--out", str(out), "--force", "--quiet")
            wall = time.time() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            setups = tabula("value", "einstein", "--board", str(board), "--cubes", str(cubes),
                            "--table", str(out), "--setups")
            rows.append({
                "board": f"{board}x{board}", "cubes": cubes, "positions": solved["positions"],
                "wall s": round(wall, 1),
                "core-seconds": round(after.ru_utime + after.ru_stime
                                      - before.ru_utime - before.ru_stime),
                "peak GiB": round(solved["peak_memory_bytes"] / 2**30, 2),
                "cubes in order": f"{solved['start_value']:.6f}",
                "both choose": f"{setups['value']:.6f}",
                "random set-ups": f"{setups['random_value']:.6f}",
                "red's best set-ups": " ".join(f"{a}:{p:.2f}"
                                               for a, p in setups["first_mix"].items())})
    report("einstein_variants", rows)


if __name__ == "__main__":
    run_script(main)
