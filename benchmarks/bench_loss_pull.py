"""How hard each part of a training loss pulls on a network: on one batch of a data
file's training split, the value loss and the decision loss (training/model.py) of a
checkpoint, each with the norm of its gradient over all weights, and that norm times
the loss's weight in the checkpoint's own settings (the value loss's is 1).

    python benchmarks/bench_loss_pull.py --checkpoint RUN/checkpoints/best.ckpt \
        --data data.h5 --table table.h5 [--positions 4096] [--decisions 2048] \
        [--every-cube-state] [--seed 0]

A decision stage trains on the sum, so where one part's weighted norm is many times the
other's, that part steers the step: the figures for issue 61's network are in
docs/BENCHMARKS.md.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script  # noqa: E402


def gradient_norm(net, loss) -> float:
    net.zero_grad()
    loss.backward()
    return float(sum((p.grad ** 2).sum() for p in net.parameters() if p.grad is not None)
                 ** 0.5)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", required=True, help="a checkpoint of tabula train")
    parser.add_argument("--data", required=True, help="the data file it trained on")
    parser.add_argument("--table", required=True, help="the table the data came from")
    parser.add_argument("--positions", type=int, default=4096,
                        help="training positions of the value loss (a batch)")
    parser.add_argument("--decisions", type=int, default=2048,
                        help="of those, how many become a decision")
    parser.add_argument("--every-cube-state", action="store_true",
                        help="a money table's decisions in each of the mover's cube states")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    from tabula.infra.errors import TabulaError
    if not 1 <= args.decisions <= args.positions:
        raise TabulaError(f"--decisions must be 1 to --positions ({args.positions}), "
                          f"not {args.decisions}")
    if args.seed < 0:
        raise TabulaError(f"--seed must be 0 or more, not {args.seed}")
    import torch

    from tabula.solver.solution import open_solution
    from tabula.training.data import ValueData
    from tabula.training.decisions import batch_decisions
    from tabula.training.model import ValueNet
    net, _ = ValueNet.from_checkpoint(args.checkpoint)
    data = ValueData(args.data, batch_size=args.positions, table=args.table,
                     decisions=args.decisions, every_cube_state=args.every_cube_state)
    game = data.file.game
    other = game.differs_from(net.game.name, net.game.pieces, net.game.rules)
    if other:
        raise TabulaError(f"{args.data} holds positions of {game.describe()}, {other}, "
                          f"the game of {args.checkpoint}")
    if args.positions > data.sizes["train"]:
        raise TabulaError(f"--positions must be at most the {data.sizes['train']:,} "
                          f"training positions of {args.data}, not {args.positions}")
    rows = np.sort(np.random.default_rng(args.seed).choice(data.sizes["train"],
                                                           args.positions, replace=False))
    codes = data.read("train", "codes")[rows]
    values = torch.as_tensor(data.read("train", "values")[rows]).float()
    # the decisions of one training batch, made as training makes them
    decisions = batch_decisions(open_solution(args.table), codes, args.positions, 0,
                                args.decisions, args.seed,
                                every_cube_state=args.every_cube_state).batch(0)
    codes = torch.as_tensor(codes)
    hp = net.hparams
    parts = [("value loss", 1.0, net._loss(net(codes), values)),
             ("decision loss", hp.decision_weight, net._decision_losses(*decisions)[0])]
    out = []
    for name, weight, loss in parts:
        norm = gradient_norm(net, loss)
        out.append({"loss": name, "value": round(float(loss.detach()), 6), "weight": weight,
                    "gradient norm": float(f"{norm:.4g}"),
                    "weighted norm": float(f"{weight * norm:.4g}")})
    report("loss_pull", out, {"checkpoint": args.checkpoint, "data": args.data,
                              "positions": args.positions, "decisions": args.decisions,
                              "every_cube_state": args.every_cube_state, "seed": args.seed,
                              "decision_temperature": hp.decision_temperature})


if __name__ == "__main__":
    run_script(main)
