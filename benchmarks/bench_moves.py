"""Legal-move generation speed in the compiled path, one core.

    python benchmarks/bench_moves.py [--positions N]

Counts positions x throws per second on random positions (half uniform within
layers, half met in random play), every throw of each position.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script  # noqa: E402
from tabula.games import get_game  # noqa: E402
from tabula.runtime.sampling import random_play_positions, uniform_positions  # noqa: E402


@njit(cache=True)
def generate_all(moves, codes, throws, max_moves):
    out_codes = np.empty(max_moves, dtype=np.int64)
    out_info = np.empty(max_moves, dtype=np.int64)
    total = 0
    for i in range(len(codes)):
        for t in throws:
            total += moves(codes[i], t, out_codes, out_info)
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=2_000_000)
    args = parser.parse_args()
    rows = []
    for name in ("ur", "senet"):
        game = get_game(name)
        half = args.positions // 2
        codes = np.concatenate([uniform_positions(game, half, 1),
                                random_play_positions(game, args.positions - half, 2)])
        generate_all(game.moves, codes[:10], game.throws, game.max_moves)  # compile
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            n_moves = generate_all(game.moves, codes, game.throws, game.max_moves)
            best = min(best, time.perf_counter() - t0)
        calls = len(codes) * len(game.throws)
        rows.append({"game": name, "positions": len(codes), "throws": len(game.throws),
                     "moves found": int(n_moves), "seconds": round(best, 4),
                     "positions x throws / s (1 core)": round(calls / best)})
    report("moves", rows)


if __name__ == "__main__":
    run_script(main)
