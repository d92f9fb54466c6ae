"""Where a money player's loss comes from: the decisions of `tabula eval regret` (eval/
cube_regret.py, the player on both sides of --games money games from the start) split
by kind and by what the position was like.

    python benchmarks/bench_regret_breakdown.py --table hyper3.h5 \
        --player net:models/backgammon3.onnx [--games 3000] [--seed 1]

For checker plays and cube decisions apart, and for checker plays split by whether
the sides are still in contact (the network's own input that says so, the last of
games/backgammon.py's features), by the cube's value, and by the size of each loss:
the decisions, their share, the points a game they give away, that loss's share, and
their error rate (a loss over 1e-6). Figures for issue 61's network: docs/BENCHMARKS.md.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script  # noqa: E402

ERROR = 1e-6   # eval/equities.py's TIE: a loss above it is an error


def row(name: str, mask, loss, games: int, total: float) -> dict:
    return {"decisions": name, "count": int(mask.sum()),
            "share": round(float(mask.mean()), 4),
            "points a game": round(float(loss[mask].sum()) / games, 4),
            "share of the loss": round(float(loss[mask].sum()) / total, 4),
            "error rate": round(float((loss[mask] > ERROR).mean()), 4) if mask.any() else 0.0}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table", required=True, help="a solved money table (tabula solve)")
    parser.add_argument("--player", required=True, help="a money player (net:MODEL.onnx)")
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    from tabula.infra.errors import TabulaError
    if args.games < 1:
        raise TabulaError(f"--games must be at least 1, not {args.games}")
    import torch

    from tabula.eval.cube_regret import cube_regret
    from tabula.eval.players import money_player
    from tabula.solver.solution import CONTACT, kind_of_game, open_solution
    table = open_solution(args.table)
    game = table.game
    if kind_of_game(game) != CONTACT:
        raise TabulaError(f"{args.table} is not a table of a game with contact (tabula "
                          "solve backgammon): its positions have no contact to split by")
    result = cube_regret(table, money_player(args.player, game, table), args.games, args.seed,
                         quiet=True)
    loss, checker = result.loss_points, result.checker
    total = max(float(loss.sum()), 1e-300)
    contact = game.encoding.features(torch.as_tensor(result.codes))[:, -1].numpy() > 0.5
    rows = [row("checker plays", checker, loss, args.games, total),
            row("cube decisions", ~checker, loss, args.games, total),
            row("checker, in contact", checker & contact, loss, args.games, total),
            row("checker, no contact", checker & ~contact, loss, args.games, total)]
    for value in np.unique(result.cube_values[checker]):
        rows.append(row(f"checker, cube at {int(value)}",
                        checker & (result.cube_values == value), loss, args.games, total))
    for low, high in ((0.0, 0.01), (0.01, 0.05), (0.05, np.inf)):
        rows.append(row(f"checker, loss {low:g} to {high:g}",
                        checker & (loss > low) & (loss <= high), loss, args.games, total))
    report(f"regret_breakdown_{game.name}_{game.rules}_{game.pieces}", rows,
           {"table": str(args.table), "player": args.player, "games": args.games,
            "seed": args.seed, "summary": result.summary})


if __name__ == "__main__":
    run_script(main)
