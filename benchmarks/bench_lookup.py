"""Table lookups from Python: one position at a time, and batched.

    python benchmarks/bench_lookup.py tables/ur7.h5
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script  # noqa: E402
from tabula.runtime.sampling import uniform_positions  # noqa: E402
from tabula.solver.table import Table  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("table")
    parser.add_argument("--batch", type=int, default=5_000_000)
    args = parser.parse_args()
    rows = []
    for in_memory in (False, True):
        table = Table(args.table, in_memory=in_memory)
        codes = uniform_positions(table.game, args.batch, seed=1, layers=table.layers)
        table.values(codes[:10])  # compile
        table.values(codes)  # warm the page cache
        t0 = time.perf_counter()
        for code in codes[:20_000]:
            table.value(int(code))
        single = (time.perf_counter() - t0) / 20_000
        t0 = time.perf_counter()
        values = table.values(codes)
        batched = len(codes) / (time.perf_counter() - t0)
        assert np.isfinite(values).all()
        rows.append({"mode": "in memory" if in_memory else "memory-mapped",
                     "single lookup (us)": round(single * 1e6, 2),
                     "batched lookups / s": round(batched)})
    report("lookup", rows, {"table": args.table})


if __name__ == "__main__":
    run_script(main)
