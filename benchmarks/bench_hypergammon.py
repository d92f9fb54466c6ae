"""Hypergammon solved exactly with the cube, against GNU Backgammon's makehyper, side by
side on this machine (Debian's gnubg package: /usr/games/makehyper).

    python benchmarks/bench_hypergammon.py [--checkers 1 2] [--makehyper-iterations 2]

For each number of checkers: tabula's solve (tabula solve backgammon --checkers N, its
own process) and makehyper -c N in full, their times, and every position of
makehyper's file (hyperN.bd, read by tests/makehyper_bridge.py) against tabula's
table. makehyper reads a roll without a legal move as the opponent's no-double equity
of the same cube state (makehyper.c: HyperEquity), where the rules let the opponent
double then; tabula's table follows the rules, so the equities are also compared with
a solve that reads blocked rolls as makehyper does (solver/contact.py:
blocked_as_makehyper), which must agree within makehyper's rounding and threshold.
The cubeless chances are compared as makehyper's cubeless equity, since of two plays
with the same cubeless equity (more wins for as many more gammons lost) makehyper
keeps the one it met last and tabula the one with more wins.

With --makehyper-iterations K and 3 checkers, makehyper runs K iterations only (it
needs hours): its time per iteration is reported.

    python benchmarks/bench_hypergammon.py --makehyper-file hyper3.bd.tmp [--sample 200000]

compares a file makehyper -c 3 wrote (its database, or the checkpoint it writes after
every iteration of a long run) with tabula's solve that reads blocked rolls as makehyper
does, on --sample positions drawn uniformly: the largest difference of each quantity
and its 99.9th percentile, and the cube actions (double or not, take or pass, the cube
centred) on which the two disagree, with how far tabula's equities put each from the
boundary.

    python benchmarks/bench_hypergammon.py --ties --checkers 2 3 [--sample 200000]

counts, at --sample positions drawn uniformly, the rolls whose best cubeless plays tie
while their chances differ, and how much a position's chances can change where
makehyper's rounding changes which of them it keeps (tied_chances).
"""
import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script  # noqa: E402
from tabula.infra.errors import TabulaError  # noqa: E402
from tabula.solver.contact import numbering  # noqa: E402
from tests.makehyper_bridge import (EQUITIES, MAKEHYPER, cubeless_equity,  # noqa: E402
                                    differences, read_makehyper, records_of)

# cubeless equities this close tie: exactly, or within float32's rounding of a sum of
# some 36 values of a few units (makehyper's arithmetic)
TIES = (1e-12, 1e-6)
TIES_CHUNK = 500_000   # positions whose moves are weighed at once (memory)


def run_makehyper(checkers: int, folder: Path, iterations: int | None) -> dict:
    """makehyper -c N in `folder`: its wall time, iterations and largest last change
    (stopped after `iterations` when given)."""
    started = time.perf_counter()
    process = subprocess.Popen([MAKEHYPER, "-c", str(checkers), "-n"], cwd=folder,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    done, norm = 0, None
    for line in process.stdout:
        for part in line.split("\r"):
            if part.startswith("norm of delta:"):
                norm = float(part.split(":")[1])
            if re.match(r"Time for iteration", part):
                done += 1
                if iterations is not None and done >= iterations:
                    process.kill()
    process.wait()
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "iterations": done, "last_change": norm,
            "finished": iterations is None}


def solve_tabula(checkers: int, folder: Path, blocked_as_makehyper: bool):
    """tabula's solve: the summary and the table (the makehyper reading in process)."""
    from tabula.games import get_game
    from tabula.solver import contact
    from tabula.solver.contact_table import ContactTable
    if blocked_as_makehyper:
        game = get_game("backgammon", checkers)
        codes, offsets, values, figures = contact.solve_values(game, quiet=True,
                                                               blocked_as_makehyper=True)
        return figures, values
    out = folder / f"hyper{checkers}.h5"
    command = [sys.executable, "-m", "tabula", "solve", "backgammon", "--checkers",
               str(checkers), "--out", str(out), "--quiet", "--json", "--force"]
    started = time.perf_counter()
    summary = json.loads(subprocess.run(command, check=True, capture_output=True,
                                        text=True).stdout)
    summary["process_seconds"] = time.perf_counter() - started   # Python's start too
    return summary, ContactTable(out)


def compare_file(path: Path, sample: int, seed: int = 1) -> dict:
    """makehyper's 3-checker file at `path` against tabula (blocked rolls as makehyper
    reads them) on `sample` positions drawn uniformly."""
    import numpy as np

    from tabula.games import get_game
    from tabula.solver import contact
    from tabula.solver.two_sided import doubles, takes
    game = get_game("backgammon", 3)
    chances, equities = read_makehyper(path, 3)   # refused before the solve if it is not
    started = time.perf_counter()
    codes, _, values, figures = contact.solve_values(game, quiet=True,
                                                     blocked_as_makehyper=True)
    solve_s = time.perf_counter() - started
    pick = np.sort(np.random.default_rng(seed).choice(len(codes), size=min(sample, len(codes)),
                                                      replace=False))
    records = records_of(game, codes[pick])
    ours = values[pick]
    largest = differences(chances, equities, records, ours)
    theirs_centered = equities[records, EQUITIES.index("centered")]
    theirs_unavailable = equities[records, EQUITIES.index("unavailable")]
    centered = ours[:, contact.VALUES.index("centered")]
    unavailable = ours[:, contact.VALUES.index("unavailable")]
    percentile = {"centered": float(np.percentile(np.abs(theirs_centered - centered), 99.9)),
                  "unavailable": float(np.percentile(np.abs(theirs_unavailable - unavailable),
                                                     99.9))}
    disagree, distance = 0, 0.0
    for i in range(len(pick)):
        double = doubles(centered[i], unavailable[i]) != doubles(theirs_centered[i],
                                                                 theirs_unavailable[i])
        take = takes(unavailable[i]) != takes(theirs_unavailable[i])
        if double or take:
            disagree += 1   # how far tabula's equities are from a boundary: double when
            # 2 ND(unavailable) >= ND and ND <= 1 (not too good), take when 2 ND(unav.) < 1
            gaps = ([abs(2 * unavailable[i] - centered[i]), abs(centered[i] - 1)]
                    if double else []) + ([abs(2 * unavailable[i] - 1)] if take else [])
            distance = max(distance, min(gaps))
    return {"file": str(path), "positions_compared": len(pick),
            "tabula_solve_s": round(solve_s, 1), "tabula_residual": figures["residual"],
            "largest": largest, "percentile_99_9": percentile,
            "cube_actions_disagreeing": disagree,
            "farthest_from_the_boundary_among_them": distance}


def tied_chances(checkers: int, sample: int, seed: int = 1) -> dict:
    """Where makehyper's stored chances are not determined by the game: at positions
    drawn uniformly, the rolls whose best cubeless plays tie (within TIES of the best,
    by tabula's values, blocked rolls read as makehyper reads them) while their five
    chances differ. makehyper keeps the play it meets last of those with the best
    cubeless equity in float32 (makehyper.c: HyperEquity), so which one it keeps turns
    on rounding that changes from one iteration to the next; each roll weighs its
    chance in the position's chances, and its largest change of them a sweep (its
    "norm of delta", which also counts the chances) can stay that large."""
    import numpy as np

    from tabula.games import get_game
    from tabula.solver import contact
    game = get_game("backgammon", checkers)
    codes, offsets, values, figures = contact.solve_values(game, quiet=True,
                                                           blocked_as_makehyper=True)
    pick = np.sort(np.random.default_rng(seed).choice(len(codes), size=min(sample, len(codes)),
                                                      replace=False))
    tied_rolls, positions, largest = ({ties: 0 for ties in TIES} for _ in range(3))
    for chunk in np.array_split(pick, -(-len(pick) // TIES_CHUNK)):
        _, counts, targets = contact.table_moves(game, codes[chunk], offsets)
        chances = contact.move_chances(values, targets)
        equity = cubeless_equity(chances)
        starts = np.concatenate([[0], np.cumsum(counts.ravel(), dtype=np.int64)[:-1]])
        best = np.repeat(np.maximum.reduceat(equity, starts), counts.ravel())
        for ties in TIES:
            tied = (equity >= best - ties)[:, None]
            spread = (np.maximum.reduceat(np.where(tied, chances, -np.inf), starts)
                      - np.minimum.reduceat(np.where(tied, chances, np.inf), starts))
            by_position = (spread.reshape(*counts.shape, 5)
                           * game.probs[:, None]).sum(axis=1).max(axis=1)
            tied_rolls[ties] += int((spread.max(axis=1) > 1e-9).sum())
            positions[ties] += int((by_position > 1e-9).sum())
            largest[ties] = max(largest[ties], float(by_position.max()))
    rows = {f"{ties:g}": {"rolls_with_a_tie_of_different_chances": tied_rolls[ties],
                          "positions_with_one": positions[ties],
                          "largest_change_of_a_positions_chances": largest[ties]}
            for ties in TIES}
    return {"checkers": checkers, "positions_drawn": len(pick),
            "solve_residual": figures["residual"], "ties": rows}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--makehyper-iterations", type=int, default=2,
                        help="iterations of makehyper for 3 checkers (default 2)")
    parser.add_argument("--makehyper-file", type=Path,
                        help="compare this file of makehyper -c 3 (hyper3.bd, or its "
                             "checkpoint hyper3.bd.tmp) with tabula's values, and stop")
    parser.add_argument("--sample", type=int, default=200_000,
                        help="positions drawn for --makehyper-file and --ties (default "
                             "200000; more than the game has: all)")
    parser.add_argument("--ties", action="store_true",
                        help="how much makehyper's stored chances can change at plays "
                             "that tie (tied_chances), for --checkers, and stop")
    args = parser.parse_args()
    if not set(args.checkers) <= {1, 2, 3} or args.makehyper_iterations < 1 \
            or args.sample < 1:
        raise TabulaError("--checkers takes 1, 2 and 3; --makehyper-iterations and "
                          "--sample at least 1")
    if args.ties:
        for checkers in args.checkers:
            print(json.dumps(tied_chances(checkers, args.sample), indent=2))
        return
    if args.makehyper_file is not None:
        if not args.makehyper_file.is_file():
            raise TabulaError(f"no file {args.makehyper_file}")
        print(json.dumps(compare_file(args.makehyper_file, args.sample), indent=2))
        return
    if not Path(MAKEHYPER).exists():
        raise TabulaError(f"no {MAKEHYPER}: install Debian's gnubg package (make test does)")
    rows, comparisons = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for checkers in args.checkers:
            summary, table = solve_tabula(checkers, folder, False)
            limit = args.makehyper_iterations if checkers == 3 else None
            theirs = run_makehyper(checkers, folder, limit)
            row = {"checkers": checkers, "positions": summary["positions"],
                   "tabula_s": round(summary["process_seconds"], 1),
                   "tabula_sweeps": summary["sweeps"],
                   "tabula_residual": summary["residual"],
                   "tabula_peak_GiB": round(summary["peak_memory_bytes"] / 2**30, 2),
                   "makehyper_s": round(theirs["seconds"], 1),
                   "makehyper_iterations": theirs["iterations"],
                   "makehyper_last_change": theirs["last_change"]}
            if theirs["finished"]:
                row["ratio"] = round(theirs["seconds"] / summary["process_seconds"], 2)
                chances, equities = read_makehyper(folder / f"hyper{checkers}.bd", checkers)
                records = records_of(table.game, numbering(table.game)[0])
                by_rules = differences(chances, equities, records, table.table)
                _, as_makehyper = solve_tabula(checkers, folder, True)
                emulated = differences(chances, equities, records, as_makehyper)
                comparisons[checkers] = {"positions_compared": len(records),
                                         "by_the_rules": by_rules,
                                         "blocked_rolls_as_makehyper": emulated}
                row["max_diff_rules"] = max(by_rules.values())
                row["max_diff_as_makehyper"] = max(emulated.values())
            else:
                row["makehyper_s_per_iteration"] = round(
                    theirs["seconds"] / max(1, theirs["iterations"]), 1)
            rows.append(row)
    report("hypergammon", rows, {"comparisons": comparisons})
    print(json.dumps(comparisons, indent=2))


if __name__ == "__main__":
    run_script(main)
