"""Matches of the network-guided tree search where no table exists (issue 51): against
plain playout search given the same time a move, and against the hand-made heuristic.

    python benchmarks/bench_search_match.py [--model models/einstein6.onnx]
        [--ms 20] [--pairs 1000] [--decisions 200] [--table TABLE]

First the clock: decisions met in play (self-play games of the heuristic, two or more
moves) are searched one at a time, on one core, as `tabula play` searches, by the
network-guided search and by playout search. From their simulations a second, each
gets the simulations that fill --ms milliseconds a move; those two fixed budgets then
play, so that the matches replay exactly. Matches are duplicate pairs (eval match):
the pair's two games share their throws and set-ups, sides swapped; the score is the
first player's share of games won, with a 95% interval from the pairs' spread.
With --table (a variant that has one), the perfect player meets the playout search
too: the most any player can score against it, the ceiling of the first match.
"""
import argparse
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.common import report, run_script  # noqa: E402

PROBE_SIMS = {"net": 200, "playout": 5000}   # simulations a move while timing


def met_in_play(game, n: int, seed: int):
    """n decisions (decision form) with two or more moves, from heuristic self-play."""
    import numpy as np

    from tabula.eval.engine import play
    from tabula.eval.players import Player, make_player
    heuristic, met = make_player("heuristic", game), []

    def recording(codes, counts, nxt, infos, rand):
        keep = counts >= 2
        met.append((counts[keep], nxt[keep], infos[keep]))
        return heuristic.choose(codes, counts, nxt, infos, rand)
    player = Player("heuristic", game, recording)
    play(game, [player, player], np.arange(2 * n) % 2, np.arange(2 * n), seed)
    counts, nxt, infos = (np.concatenate(parts) for parts in zip(*met))
    pick = np.random.default_rng(seed).choice(len(counts), n, replace=False)
    return counts[pick], nxt[pick], infos[pick]


def seconds_a_move(player, decisions) -> float:
    """The mean time of one decision searched alone."""
    import numpy as np
    counts, nxt, infos = decisions
    dummy = np.zeros(1, dtype=np.int64)
    player.choose(dummy, counts[:1], nxt[:1], infos[:1], np.full(1, 0.5))   # compile
    started = time.perf_counter()
    for i in range(len(counts)):
        player.choose(dummy, counts[i:i + 1], nxt[i:i + 1], infos[i:i + 1], np.full(1, 0.5))
    return (time.perf_counter() - started) / len(counts)


def equal_time_budget(player_of, sims: int, decisions, ms: float) -> tuple[int, dict]:
    """The simulations a move that fill `ms` milliseconds for the search
    player_of(sims), probed from `sims`, then again at the budget found (big trees
    cost more a simulation); and the check's row of the clock's table."""
    for _ in range(2):
        sims = max(1, round(sims / seconds_a_move(player_of(sims), decisions) * ms / 1000))
    check = seconds_a_move(player_of(sims), decisions)
    return sims, {"search": player_of(sims).spec, "sims/s alone": round(sims / check),
                  "ms a move": round(1000 * check, 2)}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=str(ROOT / "models" / "einstein6.onnx"))
    parser.add_argument("--ms", type=float, default=20.0,
                        help="time a move of both searches (default 20: the Master's)")
    parser.add_argument("--pairs", type=int, default=1000, help="pairs a match (default 1000)")
    parser.add_argument("--decisions", type=int, default=200,
                        help="decisions timed for each search (default 200)")
    parser.add_argument("--leaves", type=int, default=1,
                        help="leaves of a tree the network values in one call (the spec's "
                             "xL; default 1)")
    parser.add_argument("--playouts", type=int, default=0,
                        help="random playouts mixed into each position the network values "
                             "(the leaf's +K; default 0)")
    parser.add_argument("--table", help="the variant's solved table: adds the perfect "
                                        "player against the playout search (the ceiling)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not (math.isfinite(args.ms) and args.ms > 0) or min(args.pairs, args.decisions,
                                                            args.leaves) < 1 or args.playouts < 0:
        from tabula.infra.errors import TabulaError
        raise TabulaError("--ms must be a positive number of milliseconds, --pairs, "
                          "--decisions and --leaves at least 1, --playouts not negative")
    import numba

    from tabula.eval.measures import match
    from tabula.eval.players import make_player
    from tabula.runtime.model_file import OnnxValueModel
    from tabula.solver.solution import open_solution
    model = OnnxValueModel(args.model, threads=1)
    game = model.game
    table = None if args.table is None else open_solution(   # refused before any work
        args.table, game=game.name, pieces=game.pieces, rules=game.rules)
    numba.set_num_threads(1)
    decisions = met_in_play(game, args.decisions, args.seed)
    batch = f"x{args.leaves}" if args.leaves > 1 else ""
    mixed = f"+{args.playouts}" if args.playouts else ""
    leaves = {"net": f"{batch}:{model.path}{mixed}", "playout": ""}
    timed, budgets = [], {}
    for leaf, sims in PROBE_SIMS.items():
        budgets[leaf], row = equal_time_budget(
            lambda n: make_player(f"mcts:{n}{leaves[leaf]}", game, model=model), sims,
            decisions, args.ms)
        timed.append(row)
    report("search_match_clock", timed, {"decisions": args.decisions, "ms": args.ms})

    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    guided = make_player(f"mcts:{budgets['net']}{leaves['net']}", game, model=model)
    playouts = f"mcts:{budgets['playout']}"
    pairings = [(guided, other) for other in (playouts, "heuristic", f"net:{model.path}")]
    if table is not None:
        pairings.append((make_player("perfect", game, table=table), playouts))
    rows = []
    for first, other in pairings:
        result = match(first, make_player(other, game, model=model), args.pairs, args.seed)
        low, high = result["score_a_ci95"]
        rows.append({"a": first.spec.replace(str(model.path), "NET"),
                     "b": other.replace(str(model.path), "NET"), "games": result["games"],
                     "a wins": round(float(result["score_a"]), 4), "95% low": round(float(low), 4),
                     "95% high": round(float(high), 4), "seconds": round(result["seconds"])})
        print(rows[-1], flush=True)
    report("search_match", rows, {"game": game.describe(), "model": str(args.model),
                                  "model_sha256": model.manifest["sha256"],
                                  "ms": args.ms, "clock": timed, "seed": args.seed})


if __name__ == "__main__":
    run_script(main)
