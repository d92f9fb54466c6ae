"""Checkers endgame databases: how long and how much memory each solve takes, and the
moves against imparaai-checkers.

    python benchmarks/bench_checkers.py [--pieces 2 3 4 5] [--positions 20000]
                                        [--tables DIR]

Solves: for each N, `tabula solve checkers --pieces N` in a process of its own (its peak
memory is its own), every position with at most N pieces: the board configurations
(Schaeffer's counts, side to move not counted), the positions with the side to move
(each entry stands for a position and its colours reversed), the results for the side
to move, the most plies to the end, wall time, peak memory, and positions with the side
to move a second per core. The table is then verified: every position (up to 4 pieces;
a sample of 1,000,000 above) consistent with its moves.

Moves: --positions positions of up to 6 pieces (half uniform in the layers, half met in
random play), each with Black and with White to move in turn: every whole move (the
origin and each landing) and its result equal imparaai-checkers' (tests/imparaai_bridge.py).
"""
import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script, work_folder  # noqa: E402
from tabula.games.checkers_rules import configurations  # noqa: E402

VERIFY_SAMPLE = 1_000_000


def solve(pieces: int, tables: Path, threads: int) -> dict:
    out = tables / f"checkers{pieces}.h5"
    said = subprocess.run([sys.executable, "-m", "tabula", "solve", "checkers", "--pieces",
                           str(pieces), "--out", str(out), "--force", "--quiet", "--json",
                           "--threads", str(threads)],
                          check=True, capture_output=True, text=True).stdout
    summary = json.loads(said)
    verified = subprocess.run([sys.executable, "-m", "tabula", "table", "verify", str(out),
                               "--sample", str(VERIFY_SAMPLE), "--json"],
                              capture_output=True, text=True)
    check = json.loads(verified.stdout)
    with_side = 2 * summary["positions"]
    return {"pieces": pieces,
            "configurations": sum(configurations(n) for n in range(1, pieces + 1)),
            "positions with side to move": with_side,
            "won": 2 * summary["wins"], "lost": 2 * summary["losses"],
            "drawn": 2 * summary["draws"], "most plies": summary["longest"],
            "seconds": round(summary["wall_seconds"], 1),
            "positions/s/core": round(with_side / summary["wall_seconds"] / threads),
            "peak GiB": round(summary["peak_memory_bytes"] / 2**30, 2),
            "verified": f"{check['positions_checked']:,} {'ok' if check['ok'] else 'FAILED'}"}


def moves_against_imparaai(n: int, seed: int) -> dict:
    from tests.test_checkers import check_moves_equal_imparaai
    started = time.time()
    chains = check_moves_equal_imparaai(n, seed)   # asserts every position agrees
    return {"positions": n, "positions with chains": chains, "differences": 0,
            "seconds": round(time.time() - started, 1)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pieces", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--positions", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tables", type=Path, default=None,
                        help="keep the tables here (default: a temporary folder)")
    args = parser.parse_args()
    with work_folder(args.tables) as tables:
        rows = [solve(pieces, tables, args.threads) for pieces in args.pieces]
    report("checkers_solve", rows)
    if args.positions:
        report("checkers_moves", [moves_against_imparaai(args.positions, args.seed)])
    return 0


if __name__ == "__main__":
    run_script(main)
