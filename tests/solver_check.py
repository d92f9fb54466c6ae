"""Fast solver against the float64 reference on larger variants than the tests use.

    python -m tests.solver_check senet        # Senet layers with <= 5 pieces in total
    python -m tests.solver_check ur --pieces 3

Prints the largest difference per layer and exits 1 if any exceeds 1e-7.
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tabula.games import get_game
from tabula.solver.layered import solve
from tabula.solver.reference import reference_solve
from tabula.solver.table import Table

BOUND = 1e-7


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=["ur", "senet"])
    parser.add_argument("--pieces", type=int, default=None)
    parser.add_argument("--max-total", type=int, default=None)
    args = parser.parse_args(argv)
    if args.game == "senet" and args.pieces is None:
        args.pieces, args.max_total = 4, args.max_total or 5
    game = get_game(args.game, args.pieces)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "table.h5"
        t0 = time.time()
        solve(game, path, max_total=args.max_total, quiet=True)
        t1 = time.time()
        reference = reference_solve(game, max_total=args.max_total)
        t2 = time.time()
        table = Table(path)
        worst = 0.0
        for layer, exact in sorted(reference.items()):
            diff = float(np.abs(table.layer(*layer).astype(np.float64) - exact).max())
            worst = max(worst, diff)
            print(f"layer {layer}: {len(exact):,} positions, max |fast - reference| {diff:.2e}")
    total = sum(len(v) for v in reference.values())
    print(f"{game.name} pieces={game.pieces} max_total={args.max_total}: {total:,} positions, "
          f"worst {worst:.2e} (bound {BOUND:.0e}); fast {t1 - t0:.1f} s, reference "
          f"{t2 - t1:.1f} s: {'ok' if worst <= BOUND else 'FAIL'}")
    return 0 if worst <= BOUND else 1


if __name__ == "__main__":
    sys.exit(main())
