"""Decisions per second in `tabula eval regret`: the perfect player (compiled table
lookups) and the network (one onnxruntime call per step for all running games).

    python benchmarks/bench_eval.py tables/ur7.h5 models/ur7.onnx [--games 10000]
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script  # noqa: E402
from tabula.datagen.generate import self_play  # noqa: E402
from tabula.eval.engine import throw_and_move  # noqa: E402
from tabula.infra.rng import cumulative  # noqa: E402
from tabula.eval.measures import regret  # noqa: E402
from tabula.eval.players import make_player  # noqa: E402
from tabula.solver.table import Table  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("table")
    parser.add_argument("model")
    parser.add_argument("--games", type=int, default=10000)
    args = parser.parse_args()
    table = Table(args.table)
    game = table.game
    rows = []
    for spec in ("perfect", f"net:{args.model}", f"net+search:{args.model}"):
        player = make_player(spec, game, table)
        regret(table, player, 200, seed=99)   # compile, load, warm the page cache
        s = regret(table, player, args.games, seed=1).summary
        rows.append({"player": spec.split(":")[0], "games": args.games,
                     "player decisions": s["decisions"], "seconds": round(s["seconds"], 1),
                     "player decisions/s": round(s["player_decisions_per_second"]),
                     "all moves/s": round(s["moves_per_second"]),
                     "loss/game (pts)": round(s["loss_per_game_points"], 3)})
    rows.append(_perfect_choices(game, table))
    report("eval", rows, {"targets": {"net decisions/s": 20000,
                                      "perfect decisions/s": 1000000}})


def _perfect_choices(game, table, n=2_000_000):
    """The perfect player's choice alone, on a batch of n decisions of self-play."""
    codes = self_play(table, n // 150, 0.3, 5, quiet=True)[0][:n]
    rng = np.random.default_rng(0)
    _, counts, next_codes, infos = throw_and_move(
        game.moves, game.throws, cumulative(game.probs), game.max_moves, codes,
        rng.integers(0, 2**63, len(codes)).astype(np.uint64), np.zeros(len(codes), np.int64))
    keep = counts >= 2
    counts, next_codes, infos = counts[keep], next_codes[keep], infos[keep]
    player = make_player("perfect", game, table)
    player.choose(None, counts[:100], next_codes[:100], infos[:100], None)
    t0 = time.perf_counter()
    player.choose(None, counts, next_codes, infos, None)
    seconds = time.perf_counter() - t0
    return {"player": "perfect, choice only", "games": 0, "player decisions": len(counts),
            "seconds": round(seconds, 2), "player decisions/s": round(len(counts) / seconds),
            "all moves/s": 0, "loss/game (pts)": 0.0}


if __name__ == "__main__":
    run_script(main)
