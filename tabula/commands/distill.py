"""tabula distill: networks taught by tree search, generation after generation."""
import contextlib
import json
import sys

from tabula.distill import load_recipe, run_distill

from .common import add_cluster_argument, cluster_over_recipe


def add_parser(sub):
    p = sub.add_parser(
        "distill", help="teach networks by tree search where no table is needed",
        description="Run the recipe RECIPE (configs/distill/*.yaml): generation 0 learns "
                    "from self-play of the recipe's search (distill.teacher, e.g. "
                    "mcts:200:heuristic), each later generation from self-play of "
                    "mcts:SIMS with the network before it as leaf and prior. Each "
                    "generation writes WORKDIR/gen_G/data.h5 (the positions the search "
                    "reached, labelled by its values), train/ and model.onnx; with a "
                    "`table:` in the recipe, each network's exact loss per game is "
                    "measured. Finished generations are kept in WORKDIR/distill.json and "
                    "skipped when run again.")
    p.add_argument("recipe", metavar="RECIPE", help="distillation YAML (configs/distill/)")
    add_cluster_argument(p, default=None, where_else=" (default: the recipe's cluster:, "
                                                     "else local)")
    p.add_argument("--json", action="store_true", help="print the generations as JSON")
    p.set_defaults(run=run)


def run(args):
    recipe = load_recipe(args.recipe)
    cluster_over_recipe(args, recipe)
    if args.json:   # the stages' own lines go to stderr: stdout holds the JSON alone
        with contextlib.redirect_stdout(sys.stderr):
            summary = run_distill(recipe, log=lambda *_: None)
        print(json.dumps(summary))
        return 0
    summary = run_distill(recipe)
    for generation, record in summary["generations"].items():
        regret = record.get("regret")
        measured = (f", greedy loss {regret['loss_per_game']:.3f} points a game"
                    if regret else "")
        print(f"generation {generation}: {record['records']:,} positions taught by "
              f"{record['teacher']}{measured}")
    return 0
