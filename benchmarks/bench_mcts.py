"""The tree search's speed (eval/mcts.py): simulations a second on each game with each
leaf, on one core by default.

    python benchmarks/bench_mcts.py            # one core
    python benchmarks/bench_mcts.py --threads 2

Each row searches decisions met at random in the game's layers (positions drawn
uniformly, a throw that leaves two or more moves): one decision alone, as a player in
`tabula play` searches, and 64 at once, as `tabula eval` searches a batch of games.
The leaves: random playouts to the end of the game (compiled with the tree, no
Python between simulations), the hand-made heuristic, and the shipped network (one
batched ONNX call a step for all trees), also with 16 leaves of each tree a call (the
spec's x16). The compile is done before the clock starts.
"""
import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.common import report, run_script  # noqa: E402

GAMES = [("ur", 7, "finkel", "ur7"), ("senet", 4, "kendall", "senet4"),
         ("einstein", 3, "5x5", "einstein3"), ("bearoff", 10, "", "bearoff10")]
SIMS = {"playout": 2000, "heuristic": 500, "net": 200, "net x16": 1000}
LEAVES = {"playout": "", "heuristic": ":heuristic", "net": ":{model}", "net x16": "x16:{model}"}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=1, help="cores to use")
    args = parser.parse_args()
    import numba
    import numpy as np
    numba.set_num_threads(args.threads)

    from tabula.runtime.sampling import uniform_positions
    from tabula.eval.players import make_player
    from tabula.runtime.model_file import OnnxValueModel
    from tabula.games import get_game
    from tabula.infra.batch import all_throws
    rows = []
    for name, pieces, rules, model_name in GAMES:
        game = get_game(name, pieces, rules or None)
        codes = uniform_positions(game, 4000, 1)
        counts, nxt, infos = all_throws(game.moves, game.mirror, game.throws, game.max_moves,
                                        codes)
        pick, throw = np.nonzero(counts >= 2)
        pick, throw = pick[:64], throw[:64]
        batch = (codes[pick], counts[pick, throw], nxt[pick, throw], infos[pick, throw])
        model = OnnxValueModel(ROOT / "models" / f"{model_name}.onnx", threads=args.threads)
        for leaf, sims in SIMS.items():
            spec = f"mcts:{sims}" + LEAVES[leaf].format(model=model.path)
            player = make_player(spec, game, model=model)
            player.choose(*(part[:2] for part in batch), np.full(2, 0.5))   # compile
            row = {"game": game.describe(), "leaf": leaf, "simulations a move": sims}
            for trees in (1, 64):
                started = time.perf_counter()
                player.choose(*(part[:trees] for part in batch),
                              np.linspace(0, 1, trees, endpoint=False))
                seconds = time.perf_counter() - started
                row[f"sims/s, {trees} tree{'s' * (trees > 1)}"] = round(trees * sims / seconds)
            rows.append(row)
    report("mcts", rows, {"threads": args.threads})


if __name__ == "__main__":
    run_script(main)
