"""tabula datagen: a labelled position set (HDF5) from a solved table."""
import json
import sys
from pathlib import Path

from tabula.datagen.settings import DatagenSettings as D

from .common import (add_cluster_argument, add_game_arguments, add_table_argument,
                     check_output, cluster_from_args, open_table, seed)


def add_parser(sub):
    p = sub.add_parser(
        "datagen", help="write labelled positions (code, exact value) for training",
        description="Positions from games of the perfect player against itself, each side "
                    "playing a random legal move now and then (game g at rate explore*u_g, "
                    "u_g uniform in [0,1)), plus positions drawn uniformly within the "
                    "table's layers, and if asked games in which neither side ever "
                    "explores (the games tabula eval regret scores a player on), stored as "
                    "their own source; each labelled with its exact value, split by position "
                    "into train/val/test, shuffled, written to HDF5. The same seed gives "
                    "the same file.")
    add_game_arguments(p)
    add_table_argument(p, required=True)
    p.add_argument("--out", required=True, metavar="FILE.h5", help="data file to write")
    p.add_argument("--games", type=int, default=D.games,
                   help=f"self-play games (default {D.games})")
    p.add_argument("--explore", type=float, default=D.explore,
                   help=f"largest per-decision exploration rate (default {D.explore})")
    p.add_argument("--uniform", type=int, default=D.uniform, metavar="M",
                   help=f"positions drawn uniformly within layers (default {D.uniform})")
    p.add_argument("--alternatives", action="store_true",
                   help="also record, at every self-play decision, the positions the moves "
                        "not chosen lead to (what a player must rank)")
    p.add_argument("--perfect-games", type=int, default=D.perfect_games, metavar="N",
                   help="further games of the perfect player that never explore, their "
                        "positions stored as source perfect-play (a training stage can keep "
                        f"to them: data.train_sources) (default {D.perfect_games})")
    p.add_argument("--seed", type=seed, default=D.seed, help=f"random seed (default {D.seed})")
    p.add_argument("--val-frac", type=float, default=D.val_frac,
                   help=f"share of positions held out for validation (default {D.val_frac})")
    p.add_argument("--test-frac", type=float, default=D.test_frac,
                   help=f"share of positions held out for testing (default {D.test_frac})")
    add_cluster_argument(p)
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(run=run)


def run(args):
    out = Path(args.out)
    check_output(out, args.force)
    D.check({"games": args.games, "uniform": args.uniform, "explore": args.explore,
             "perfect_games": args.perfect_games, "val_frac": args.val_frac,
             "test_frac": args.test_frac}, "--")
    from tabula.datagen.generate import generate
    table = open_table(args)
    try:
        with cluster_from_args(args) as cluster:
            summary = generate(table, out, args.games, args.explore, args.uniform, args.seed,
                               args.val_frac, args.test_frac, quiet=args.quiet,
                               alternatives=args.alternatives,
                               perfect_games=args.perfect_games, cluster=cluster)
    except KeyboardInterrupt:
        Path(str(out) + ".partial").unlink(missing_ok=True)
        print("\ntabula datagen: interrupted; no file written", file=sys.stderr)
        return 130
    if args.json:
        print(json.dumps(summary))
        return 0
    c = summary["counts"]
    print(f"{table.game.name} (pieces={table.game.pieces}): {c['self_play_records']:,} "
          f"self-play + {c['alternative_records']:,} alternative + "
          f"{c['uniform_records']:,} uniform + {c['perfect_play_records']:,} perfect-play "
          f"records in "
          f"{summary['seconds']:.1f} s ({summary['labelled_per_second'] * 60 / 1e6:.1f} M "
          "labelled/min)")
    for split in ("train", "val", "test"):
        print(f"  {split:5s} {c[split + '_records']:>12,} records, "
              f"{c[split + '_positions']:>12,} distinct positions")
    print(f"data: {out}")
    return 0
