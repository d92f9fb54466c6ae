"""Does val_decision_regret rank networks as their loss in play does? For checkpoints
each given with its `tabula eval regret ... --json` result, the figure training logs
with data.val_decisions (the mean exact worth the net's greedy choices give away in
decisions of the validation split, each cube state of a money game's a decision)
beside the measured loss a game, their ratio, and the correlations of the two.

    python benchmarks/bench_regret_proxy.py --data data.h5 --table table.h5 \
        [--val-decisions 1024] [--batch-size 4096] CKPT=REGRET.json ...

A stage that keeps its best checkpoint by this figure (tabula train --monitor
val_decision_regret) relies on it; the figures for issue 61's networks are in
docs/BENCHMARKS.md.
"""
import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script  # noqa: E402


def pairs(given: list[str]) -> list[tuple[str, float]]:
    """CKPT=REGRET.json arguments as (checkpoint, loss a game) pairs."""
    from tabula.infra.errors import TabulaError
    out = []
    for text in given:
        checkpoint, sep, result = text.partition("=")
        if not sep:
            raise TabulaError(f"give each network as CKPT=REGRET.json, not {text!r}")
        try:
            loss = json.loads(Path(result).read_text())["loss_per_game_points"]
        except (OSError, ValueError, KeyError, TypeError):
            raise TabulaError(f"{result} is not the --json result of tabula eval regret "
                              "(no loss_per_game_points)") from None
        if not (isinstance(loss, float) and np.isfinite(loss)):
            raise TabulaError(f"{result}: loss_per_game_points must be a finite number, "
                              f"not {loss!r}")
        out.append((checkpoint, loss))
    return out


def validation_regret(net, batches) -> float:
    """val_decision_regret of a net over the validation batches' decisions."""
    total, count = 0.0, 0
    for i in range(len(batches)):
        regrets = net.decision_regrets(*batches[i]["decisions"])
        total, count = total + float(regrets.sum()), count + len(regrets)
    return total / count


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("networks", nargs="+", metavar="CKPT=REGRET.json",
                        help="a checkpoint and its tabula eval regret --json result")
    parser.add_argument("--data", required=True, help="the data file they trained on")
    parser.add_argument("--table", required=True, help="the table the data came from")
    parser.add_argument("--val-decisions", type=int, default=1024,
                        help="decisions per validation batch (data.val_decisions)")
    parser.add_argument("--batch-size", type=int, default=4096,
                        help="records per validation batch (data.batch_size)")
    args = parser.parse_args()
    from tabula.infra.errors import TabulaError
    if not 1 <= args.val_decisions <= args.batch_size:
        raise TabulaError(f"--val-decisions must be 1 to --batch-size ({args.batch_size}), "
                          f"not {args.val_decisions}")
    networks = pairs(args.networks)
    if len(networks) < 3:
        raise TabulaError("give at least three networks: a correlation of fewer says nothing")
    from tabula.training.data import ValueData
    from tabula.training.model import ValueNet
    data = ValueData(args.data, batch_size=args.batch_size, table=args.table,
                     val_decisions=args.val_decisions)
    data.setup()
    batches = data.splits["val"]
    rows = []
    for checkpoint, loss in networks:
        net, _ = ValueNet.from_checkpoint(checkpoint)
        started = time.time()
        figure = validation_regret(net.eval(), batches)
        rows.append({"checkpoint": checkpoint, "loss a game": loss,
                     "val_decision_regret": float(f"{figure:.6g}"),
                     "ratio": float(f"{loss / figure:.4g}") if figure > 0 else None,
                     "seconds": round(time.time() - started, 1)})
    played = np.array([r["loss a game"] for r in rows])
    measured = np.array([r["val_decision_regret"] for r in rows])

    def ranks(a):
        return np.argsort(np.argsort(a))
    together = {"pearson": round(float(np.corrcoef(played, measured)[0, 1]), 4),
                "spearman": round(float(np.corrcoef(ranks(played), ranks(measured))[0, 1]), 4)}
    decisions = sum(len(batches[i]["decisions"][0]) for i in range(len(batches)))
    print(f"{decisions:,} decisions; correlation of the two: Pearson {together['pearson']}, "
          f"Spearman (ranks) {together['spearman']}")
    report("regret_proxy", rows, {"data": args.data, "table": args.table,
                                  "val_decisions": args.val_decisions,
                                  "batch_size": args.batch_size, "decisions": decisions,
                                  **together})


if __name__ == "__main__":
    run_script(main)
