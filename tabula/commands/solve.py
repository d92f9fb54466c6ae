"""tabula solve: the exact table of a game, layer by layer."""
import json
import sys
from pathlib import Path

from tabula.solver.settings import SolveSettings

from .common import UsageError, add_game_arguments, check_output, game_from_args


def add_parser(sub):
    p = sub.add_parser(
        "solve", help="solve a game exactly into an HDF5 table",
        description="Compute, for every position, the probability that the player about "
                    "to throw wins under perfect play (layered value iteration). Finished "
                    "layers are checkpointed beside the output (OUT.partial/); running the "
                    "same command again resumes there. The table appears under its name "
                    "only when complete.")
    add_game_arguments(p)
    p.add_argument("--out", required=True, metavar="FILE", help="table file to write (.h5)")
    p.add_argument("--tol", type=float, default=SolveSettings.tol,
                   help="stop a layer when no value changes by more than this "
                        f"(default {SolveSettings.tol:g})")
    p.add_argument("--threads", type=int, default=None,
                   help="threads for the compiled kernels (default: all cores)")
    p.add_argument("--max-total", type=int, default=None, metavar="K",
                   help="solve only layers with at most K pieces in play in total")
    p.add_argument("--one-sided", action="store_true",
                   help="race games (bearoff): only the one-sided table, the distribution "
                        "of the throws each side needs to bear off (up to 15 checkers)")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                   help="where the sweeps run: cpu (default), or cuda, one GPU through "
                        "numba's CUDA target (moves generated on the fly; see "
                        "docs/SOLVER.md)")
    p.add_argument("--force", action="store_true", help="overwrite an existing table")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(run=run)


def run(args):
    from tabula.solver.layered import SolveError, solve
    game = game_from_args(args)
    out = Path(args.out)
    check_output(out, args.force)
    if game.race is not None:
        return _solve_race(game, out, args)
    if args.one_sided:
        raise UsageError(f"--one-sided is for race games; {game.name} is not one")
    if args.max_total is not None and not 2 <= args.max_total <= 2 * game.pieces:
        raise UsageError(f"--max-total must lie between 2 and {2 * game.pieces} (pieces in "
                         "play of both sides together)")
    SolveSettings.check({"tol": args.tol}, "--")
    _check_threads(args.threads)
    unit_solver = _gpu_unit_solver() if args.device == "cuda" else None
    try:
        summary = solve(game, out, tol=args.tol, threads=args.threads,
                        max_total=args.max_total, quiet=args.quiet, unit_solver=unit_solver)
    except KeyboardInterrupt:
        print(f"\ntabula solve: interrupted; finished layers are kept in {out}.partial/, "
              "run the same command again to resume", file=sys.stderr)
        return 130
    except SolveError as err:
        raise UsageError(str(err)) from None
    if args.json:
        print(json.dumps(summary))
    else:
        start = summary["start_value"]
        print(f"solved {game.name} (pieces={game.pieces}): {summary['positions']:,} positions "
              f"in {summary['layers']} layers, {summary['wall_seconds']:.1f} s, peak memory "
              f"{summary['peak_memory_bytes'] / 2**30:.2f} GiB, worst residual "
              f"{summary['max_residual']:.1e}")
        if start is not None:
            print(f"first player's winning chance from the start: {start:.10f}")
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


def _solve_race(game, out, args):
    """A race whose sides never meet: one pass, with gammons and the doubling cube."""
    from tabula.solver.race_table import solve_race
    if args.max_total is not None:
        raise UsageError(f"--max-total is not for {game.name}: its table is solved whole")
    _check_threads(args.threads)
    try:
        summary = solve_race(game, out, threads=args.threads, one_sided=args.one_sided,
                             quiet=args.quiet)
    except KeyboardInterrupt:
        print("\ntabula solve: interrupted; nothing written (a race table is solved in "
              "one pass)", file=sys.stderr)
        return 130
    if args.json:
        print(json.dumps(summary))
    else:
        what = ("one-sided table" if args.one_sided else
                f"{summary['positions']:,} positions")
        print(f"solved {game.name} ({game.pieces} checkers): {what}, {summary['sides']:,} "
              f"sides, {summary['wall_seconds']:.1f} s, peak memory "
              f"{summary['peak_memory_bytes'] / 2**30:.2f} GiB")
        print(f"table: {out}")
    return 0
