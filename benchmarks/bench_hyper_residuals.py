"""Where a hypergammon network misjudges positions: its error on the equity with the
cube centred, on the positions after every play of positions met in play, grouped by
what the side on roll there can do to the other: hit two blots in one play (--by
double-hit, the chance), send checkers back (--by hit-pips, the pips its best hit
sends back, averaged over the 36 rolls), or hit with two checkers, making the point
(--by point-on-blot, the chance).

    python benchmarks/bench_hyper_residuals.py --table hyper3.h5 --data data.h5 \
        --model models/backgammon3.onnx [--model OTHER.onnx ...] [--by double-hit]
        [--positions 6000] [--after 20000] [--seed 1]

The positions are the self-play records of the data file's test split (met when the
table's player plays with exploration, as `tabula datagen` draws them); every play of
a throw drawn for each gives a position after it (the other side on roll), of which
--after are drawn. The grouping quantity comes from the plain reference
(tests/reference/backgammon_rules.py double_hit_chance, best_hit_pips,
point_on_blot_chance), not from any network's inputs, so that networks with and
without such an input compare on the same groups. A group whose mean error is far from
0 is one the network misjudges one way: what its inputs leave it to work out. Figures
for issue 61's network: docs/BENCHMARKS.md.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script  # noqa: E402

# For each --by: its column's name, the groups (each its name and the highest value it
# holds, above the group before's) and the quantity's unit there.
GROUPINGS = {
    "double-hit": ("double hit, 36ths", [("0", 0), ("1-3", 3), ("4-7", 7), ("8-12", 12),
                                         ("13-17", 17), ("18-36", 36)], 1 / 36),
    "hit-pips": ("pips sent back", [("0", 0), ("0-3", 3), ("3-6", 6), ("6-9", 9),
                                    ("9-12", 12), ("12-15", 15), ("over 15", 75)], 1),
    "point-on-blot": ("point on a blot, 36ths", [("0", 0), ("1-3", 3), ("4-7", 7),
                                                  ("8-36", 36)], 1 / 36),
}


def after_positions(table, codes, count: int, seed: int) -> np.ndarray:
    """`count` distinct positions after the plays of a throw drawn for each of codes
    (games over left out), drawn with seed."""
    from tabula.datagen.decisions import decisions_for
    from tabula.games.game import OVER
    counts, next_codes, infos, _ = decisions_for(table, codes, seed=seed)
    live = np.arange(next_codes.shape[1]) < counts[:, None]
    after = np.unique(next_codes[live & ((infos & OVER) == 0)])
    rng = np.random.default_rng(seed)
    return rng.choice(after, min(count, len(after)), replace=False)


def grouped_by(by: str, codes) -> np.ndarray:
    """For each position, the reference's quantity of --by, in its groups' units."""
    from tabula.games import backgammon
    from tests.reference.backgammon_rules import (best_hit_pips, double_hit_chance,
                                                  point_on_blot_chance)
    quantity = {"double-hit": double_hit_chance, "hit-pips": best_hit_pips,
                "point-on-blot": point_on_blot_chance}[by]
    values = []
    for code in codes:
        board = backgammon.board_of(int(code))
        me, opp = tuple(int(c) for c in board[:26]), tuple(int(c) for c in board[26:])
        values.append(quantity(me, opp))
    return np.array(values) / GROUPINGS[by][2]


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table", required=True, help="the solved hypergammon table")
    parser.add_argument("--data", required=True, help="a data file of that table "
                        "(tabula datagen), whose test split gives the positions")
    parser.add_argument("--model", action="append", required=True,
                        help="an fp32 model of `tabula export` (repeat to compare)")
    parser.add_argument("--by", choices=sorted(GROUPINGS), default="double-hit",
                        help="what the groups are made by (default double-hit)")
    parser.add_argument("--positions", type=int, default=6000)
    parser.add_argument("--after", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    from tabula.datagen.datafile import SOURCES, DataFile
    from tabula.infra.errors import TabulaError
    from tabula.runtime.model_file import OnnxValueModel
    from tabula.solver.solution import CONTACT, kind_of_game, open_solution
    for name, lowest in (("positions", 1), ("after", 1), ("seed", 0)):
        if getattr(args, name) < lowest:
            raise TabulaError(f"--{name} must be at least {lowest}, not {getattr(args, name)}")
    table = open_solution(args.table)
    game = table.game
    if kind_of_game(game) != CONTACT or game.rules != "hyper":
        raise TabulaError(f"{args.table} is not a hypergammon table (tabula solve backgammon)")
    data = DataFile(args.data, game.name, game.pieces, game.rules)
    data.check_made_from(table)
    met = data.read("test", "codes")[data.read("test", "source") == SOURCES.index("self-play")]
    met = met[:args.positions]
    if not len(met):
        raise TabulaError(f"{args.data} has no self-play positions in its test split")
    models = {path: OnnxValueModel(path, game=game.name, pieces=game.pieces, rules=game.rules,
                                   check_manifest=False) for path in args.model}
    after = after_positions(table, met, args.after, args.seed)
    centered = table.value_names.index("centered")
    exact = table.values(after)[:, centered]
    quantities = grouped_by(args.by, after)
    column, groups, _ = GROUPINGS[args.by]
    errors = {path: model.predict(after)[:, centered] - exact for path, model in models.items()}
    rows = []
    above = -np.inf
    for name, highest in groups:
        group = (quantities > above + 1e-9) & (quantities <= highest + 1e-9)
        above = highest
        row = {column: name, "positions": int(group.sum())}
        for i, path in enumerate(args.model):
            error = errors[path][group]
            row[f"mean error {i + 1}"] = round(float(error.mean()), 4) if group.any() else None
            row[f"mean |error| {i + 1}"] = round(float(np.abs(error).mean()), 4) \
                if group.any() else None
        rows.append(row)
    report(f"hyper_residuals_{game.pieces}", rows,
           {"by": args.by, "table": args.table, "data": args.data, "models": args.model,
            "positions": len(met), "after": len(after), "seed": args.seed,
            "mean |error|": {path: round(float(np.abs(e).mean()), 5)
                             for path, e in errors.items()}})


if __name__ == "__main__":
    run_script(main)
