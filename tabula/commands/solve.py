"""tabula solve: the exact table of a game, layer by layer."""
import json
import sys
from pathlib import Path

from tabula.solver.settings import SolveSettings

from .common import (UsageError, add_cluster_argument, add_game_arguments, check_output,
                     cluster_from_args, game_from_args)


def add_parser(sub):
    p = sub.add_parser(
        "solve", help="solve a game exactly into an HDF5 table",
        description="Compute, for every position, the probability that the player about "
                    "to throw wins under perfect play (layered value iteration); for games "
                    "without dice that may be drawn (checkers endgames: every position "
                    "with at most --pieces pieces), whether the side to move wins, loses "
                    "or draws and in how many plies (retrograde analysis). Finished "
                    "layers are checkpointed beside the output (OUT.partial/); running the "
                    "same command again resumes there. The table appears under its name "
                    "only when complete.")
    add_game_arguments(p)
    p.add_argument("--out", required=True, metavar="FILE", help="table file to write (.h5)")
    p.add_argument("--tol", type=float, default=None,
                   help="stop a layer when no value changes by more than this "
                        f"(default {SolveSettings.tol:g}; games solved by sweeps)")
    p.add_argument("--threads", type=int, default=None,
                   help="threads for the compiled kernels (default: all cores); with "
                        "--cluster ray, the CPUs each unit takes on its node (default 1)")
    p.add_argument("--max-total", type=int, default=None, metavar="K",
                   help="solve only layers with at most K pieces in play in total")
    p.add_argument("--one-sided", action="store_true",
                   help="race games (bearoff): only the one-sided table, the distribution "
                        "of the throws each side needs to bear off (up to 15 checkers)")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                   help="where the sweeps run: cpu (default), or cuda, one GPU through "
                        "numba's CUDA target (moves generated on the fly; see "
                        "docs/SOLVER.md)")
    add_cluster_argument(p)
    p.add_argument("--force", action="store_true", help="overwrite an existing table")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(run=run)


# the solve options (solver/solution.py, SolutionKind.options) the flags set
FLAGS = {"tol": "--tol", "max_total": "--max-total", "one_sided": "--one-sided",
         "unit_solver": "--device", "cluster": "--cluster"}


def run(args):
    from tabula.solver.layered import SolveError
    from tabula.solver.solution import kind_of_game, solve_game
    game = game_from_args(args)
    out = Path(args.out)
    check_output(out, args.force)
    kind = kind_of_game(game)
    given = {"tol": args.tol is not None, "max_total": args.max_total is not None,
             "one_sided": args.one_sided, "unit_solver": args.device != "cpu",
             "cluster": args.cluster != "local"}
    refused = [option for option, asked in given.items() if asked and option not in kind.options]
    if refused:
        raise UsageError(f"{FLAGS[refused[0]]} is not for {game.name}: its table is solved by "
                         f"the {kind.name} solver, which takes no such setting")
    options = {"threads": args.threads}
    _check_threads(args.threads)
    if "tol" in kind.options:
        options["tol"] = SolveSettings.tol if args.tol is None else args.tol
        SolveSettings.check({"tol": options["tol"]}, "--")
    if args.max_total is not None:
        if not 2 <= args.max_total <= 2 * game.pieces:
            raise UsageError(f"--max-total must lie between 2 and {2 * game.pieces} (pieces "
                             "in play of both sides together)")
        options["max_total"] = args.max_total
    if args.one_sided:
        options["one_sided"] = True
    if args.device == "cuda":
        if given["cluster"]:
            raise UsageError("--device cuda solves on this machine's GPU: it does not go "
                             "with --cluster")
        options["unit_solver"] = _gpu_unit_solver()
    try:
        with cluster_from_args(args) as cluster:
            if given["cluster"]:
                options["cluster"] = cluster
            summary = solve_game(game, out, quiet=args.quiet, **options)
    except KeyboardInterrupt:
        print(f"\ntabula solve: interrupted; {kind.interrupted.replace('OUT', str(out))}",
              file=sys.stderr)
        return 130
    except SolveError as err:
        raise UsageError(str(err)) from None
    if args.json:
        print(json.dumps(summary))
        return 0
    if summary.get("positions") or "sides" not in summary:
        what = f"{summary['positions']:,} positions"
    else:
        what = "one-sided table"
    where = next((f" in {summary[part]:,} {part}" for part in ("layers", "units")
                  if part in summary), f", {summary.get('sides', 0):,} sides")
    residual = (f", worst residual {summary['max_residual']:.1e}"
                if "max_residual" in summary else "")
    print(f"solved {game.describe()}: {what}{where}, {summary['wall_seconds']:.1f} s, peak "
          f"memory {summary['peak_memory_bytes'] / 2**30:.2f} GiB{residual}")
    if "draws" in summary:
        print(f"for the side to move: {summary['wins']:,} won, {summary['losses']:,} lost, "
              f"{summary['draws']:,} drawn; the most plies to the end: {summary['longest']}")
    if summary.get("start_value") is not None:
        print(f"first player's winning chance from the start: {summary['start_value']:.10f}")
    print(f"table: {out}")
    return 0


def _gpu_unit_solver():
    from tabula.solver import gpu
    if not gpu.cuda.is_available():
        raise UsageError("--device cuda: numba sees no CUDA GPU here (a GPU, its driver "
                         "and numba's CUDA target are needed); solve with --device cpu")
    return gpu.unit_solver("cuda")


def _check_threads(threads):
    if threads is not None:
        import numba
        if not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
            raise UsageError(f"--threads must lie between 1 and "
                             f"{numba.config.NUMBA_NUM_THREADS} (this machine's cores)")
