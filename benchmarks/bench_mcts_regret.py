"""The tree search's exact regret (issue 51): winning chance given away per game by
`mcts:SIMS[:LEAF]` against a solved table, beside the network's greedy and
one-throw-search players, with the time a move.

    python benchmarks/bench_mcts_regret.py --table tables/ur7.h5 --model models/ur7.onnx

Each player plays one side against the perfect player, every decision judged by the
table (eval/measures.py regret). The larger searches play fewer games: --games gives
the games at 100 simulations a move and below; 1,000 play a tenth of them and 10,000 a
hundredth (at least 10), so each row shows its own 95% interval. Time a move: the
run's seconds over its searched decisions (the perfect side's moves cost next to
nothing), with the decisions of a batch of games searched together on all cores.
"""
import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.common import report, run_script  # noqa: E402

SIMS = (100, 1000, 10000)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table", required=True, help="the variant's solved table")
    parser.add_argument("--model", required=True, help="its network (.onnx)")
    parser.add_argument("--games", type=int, default=1000, help="games at 100 simulations")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--leaves", default="playout,net",
                        help="leaves to search with: playout, heuristic, net (comma-separated)")
    parser.add_argument("--most", type=int, default=10000, help="the most simulations a move")
    parser.add_argument("--most-net", type=int, default=1000,
                        help="the most simulations a move with the network as leaf")
    args = parser.parse_args()
    from tabula.eval.measures import regret
    from tabula.eval.players import make_player
    from tabula.solver.solution import open_solution
    table = open_solution(args.table)
    game = table.game
    players = [(f"net:{args.model}", args.games), (f"net+search:{args.model}", args.games)]
    for leaf in args.leaves.split(","):
        suffix = {"playout": "", "heuristic": ":heuristic", "net": f":{args.model}"}[leaf]
        players += [(f"mcts:{sims}{suffix}", max(10, args.games * 100 // sims))
                    for sims in SIMS if sims <= (args.most_net if leaf == "net" else args.most)]
    rows = []
    for spec, games in players:
        summary = regret(table, make_player(spec, game, table), games, args.seed).summary
        low, high = summary["loss_per_game_ci95"]
        rows.append({"player": spec.replace(str(args.model), "NET"), "games": games,
                     "loss per game": round(summary["loss_per_game_points"], 3),
                     "95% interval": f"{low:.3f}..{high:.3f}",
                     "error rate": round(summary["error_rate"], 4),
                     "ms a move": round(1000 * summary["seconds"] / max(summary["decisions"], 1),
                                        3)})
        print(rows[-1], flush=True)
    leaves = args.leaves.replace(",", "-")
    report(f"mcts_regret_{game.name}_{game.rules}_{game.pieces}_{leaves}", rows,
           {"table": str(args.table), "model": str(args.model), "seed": args.seed})


if __name__ == "__main__":
    run_script(main)
