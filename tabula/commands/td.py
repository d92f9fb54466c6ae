"""tabula td: a network taught by self-play and temporal differences (training/td.py)."""
import argparse
import contextlib
import json
import sys
from pathlib import Path

from tabula.training.settings import TdSettings as S

from .common import add_game_arguments, game_from_args, read_variant, seed


def _widths(text: str) -> list[int]:
    """argparse type of --hidden: layer widths separated by commas."""
    widths = text.split(",")
    if not all(w.isascii() and w.isdigit() and len(w) <= 6 for w in widths):
        raise argparse.ArgumentTypeError(f"layer widths separated by commas (128,128), not "
                                         f"{text[:40]!r}")
    return [int(w) for w in widths]


def add_parser(sub):
    p = sub.add_parser(
        "td", help="teach a network by self-play where no table can be solved (backgammon)",
        description="The network plays itself, a chunk of games at a time, each move the "
                    "best by its own cubeless equity; every position met is labelled with "
                    "one roll's backup of the network's values of the moves' results "
                    "(chances by TD(lambda) along the game, the cube's equities by the "
                    "exact solve's rule), and after each chunk the network takes a pass of "
                    "Adam over them. WORKDIR/td.ckpt is written after every chunk: run the "
                    "same command again to go on (--games more to play further), --force "
                    "to start again. At the end the network is exported to "
                    "WORKDIR/model.onnx. For backgammon: the standard game, or hypergammon, "
                    "where the table measures the result.")
    add_game_arguments(p)
    p.add_argument("--workdir", required=True, metavar="DIR",
                   help="folder of the run's checkpoint and model")
    p.add_argument("--games", type=int, default=S.games,
                   help=f"self-play games in all (default {S.games:,})")
    p.add_argument("--chunk", type=int, default=S.chunk,
                   help=f"games played at once between passes of training (default {S.chunk})")
    p.add_argument("--lambda", dest="lam", type=float, default=S.lam,
                   help=f"TD's lambda, 0..1 (default {S.lam})")
    p.add_argument("--lr", type=float, default=S.lr, help=f"Adam's learning rate "
                                                          f"(default {S.lr})")
    p.add_argument("--lr-end", type=float, default=None, metavar="LR",
                   help="Adam's rate at the last game, reached by a cosine (default: --lr "
                        "all through)")
    p.add_argument("--init-from", default=None, metavar="CKPT|MODEL.onnx",
                   help="start from these weights (a checkpoint of tabula td or train, or "
                        "an fp32 model file) of the same widths, with a new optimizer")
    p.add_argument("--batch", type=int, default=S.batch,
                   help=f"positions a step of Adam (default {S.batch})")
    p.add_argument("--hidden", type=_widths, default=[128, 128], metavar="W,W",
                   help="hidden layer widths (default 128,128)")
    p.add_argument("--seed", type=seed, default=S.seed, help=f"random seed (default {S.seed})")
    p.add_argument("--force", action="store_true",
                   help="start again, over a checkpoint already in WORKDIR")
    p.add_argument("--json", action="store_true", help="print the run's summary as JSON")
    p.set_defaults(run=run)


def run(args):
    read_variant(args)
    game = game_from_args(args)
    from tabula.export.onnx_export import export
    from tabula.training.td import td_train
    settings = {"games": args.games, "chunk": args.chunk, "lam": args.lam, "lr": args.lr,
                "lr_end": S.lr_end if args.lr_end is None else args.lr_end,
                "batch": args.batch, "seed": args.seed}
    S.check(settings, "--")
    log = (lambda *_: None) if args.json else (lambda line: print(line, file=sys.stderr))
    model = {"hidden": args.hidden, **({"init_from": args.init_from} if args.init_from else {})}
    summary = td_train(game, args.workdir, settings, model,
                       force=args.force, log=log)
    out = Path(args.workdir) / "model.onnx"
    with contextlib.redirect_stdout(sys.stderr):
        export(summary["checkpoint"], out, quiet=True)
    summary["model"] = str(out)
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{summary['games']:,} games of self-play ({summary['positions']:,} positions, "
              f"{summary['seconds']:.0f} s): {out}")
    return 0
