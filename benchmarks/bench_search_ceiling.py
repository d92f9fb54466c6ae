"""The most any player can score against plain playout search at a given time a move
(issue 51's target for the network-guided search: 70% at equal time), measured where
it can be: on the variants with a table, the perfect player against the playout
search.

    python benchmarks/bench_search_ceiling.py --tables T.h5 [T.h5 ...] [--ms 20]
        [--pairs 1000] [--decisions 200]

For each table, the playout search is timed as bench_search_match.py times it
(decisions met in heuristic self-play, searched one at a time on one core) and given
the simulations that fill --ms a move; then the perfect player meets it in duplicate
pairs with set-ups drawn at random, sides swapped. The score has two intervals: the
games' own, and the luck-adjusted one (eval match --table), which takes the throws'
luck out and is far narrower.
"""
import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.bench_search_match import PROBE_SIMS, equal_time_budget, met_in_play  # noqa: E402
from benchmarks.common import report, run_script  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", nargs="+", required=True, help="solved tables")
    parser.add_argument("--ms", type=float, default=20.0,
                        help="time a move of the playout search (default 20: the Master's)")
    parser.add_argument("--pairs", type=int, default=1000, help="pairs a match (default 1000)")
    parser.add_argument("--decisions", type=int, default=200,
                        help="decisions timed (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not (math.isfinite(args.ms) and args.ms > 0) or min(args.pairs, args.decisions) < 1:
        from tabula.infra.errors import TabulaError
        raise TabulaError("--ms must be a positive number of milliseconds, --pairs and "
                          "--decisions at least 1")
    import numba

    from tabula.eval.measures import match
    from tabula.eval.players import make_player
    from tabula.solver.solution import open_solution
    rows = []
    for path in args.tables:
        table = open_solution(path)
        game = table.game
        numba.set_num_threads(1)
        decisions = met_in_play(game, args.decisions, args.seed)
        sims, clock = equal_time_budget(lambda n: make_player(f"mcts:{n}", game),
                                        PROBE_SIMS["playout"], decisions, args.ms)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        result = match(make_player("perfect", game, table=table),
                       make_player(f"mcts:{sims}", game),
                       args.pairs, args.seed, table=table)
        low, high = result["score_a_ci95"]
        luck_low, luck_high = result["luck_adjusted_score_a_ci95"]
        rows.append({"variant": game.describe(), "playout search": f"mcts:{sims}",
                     "ms a move": clock["ms a move"], "games": result["games"],
                     "perfect wins": round(float(result["score_a"]), 4),
                     "95% low": round(float(low), 4), "95% high": round(float(high), 4),
                     "luck-adjusted": round(float(result["luck_adjusted_score_a"]), 4),
                     "adj. low": round(float(luck_low), 4),
                     "adj. high": round(float(luck_high), 4)})
        print(rows[-1], flush=True)
    report("search_ceiling", rows, {"ms": args.ms, "pairs": args.pairs, "seed": args.seed,
                                    "decisions": args.decisions})


if __name__ == "__main__":
    run_script(main)
