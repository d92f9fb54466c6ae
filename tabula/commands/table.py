"""tabula table info|verify: what a table file holds, and whether it is sound."""
import json

from .common import print_json_or_text


def add_parser(sub):
    p = sub.add_parser("table", help="inspect or verify a solved table",
                       description="Inspect (info) or check (verify) a table file.")
    actions = p.add_subparsers(dest="action", metavar="ACTION", parser_class=type(p))
    actions.required = True
    info = actions.add_parser(
        "info", help="what the file holds, its provenance and residuals",
        description="What a table holds: game, rules, pieces, positions and layers; who "
                    "solved it, where and when; its tolerance, certified residuals and "
                    "checksum; and per layer its positions, the sweeps it took (full "
                    "sweeps over every move + cheap sweeps over the recorded best moves, "
                    "modified policy iteration) and its certified residual.")
    info.add_argument("file", metavar="FILE", help="a table made by tabula solve (.h5)")
    info.add_argument("--json", action="store_true", help="print everything as JSON")
    info.set_defaults(run=run_info)
    verify = actions.add_parser(
        "verify", help="recompute the SHA-256 and the Bellman residual on a sample of "
                       "every layer (exit status 1 when a check fails)")
    verify.add_argument("file", metavar="FILE", help="a table made by tabula solve (.h5)")
    verify.add_argument("--sample", type=int, default=100_000,
                        help="positions checked per layer (all of smaller layers)")
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    verify.set_defaults(run=run_verify)


def _race_info(args, race):
    """table info of a race table (solved in one pass: no layers, sweeps or residuals)."""
    from tabula.solver.race_table import two_sided_positions
    a = race.attrs
    n = race.game.race.n_sides(race.game.pieces)
    answer = {"file": str(race.path), **{k: a[k] for k in ("game", "rules", "pieces",
                                                           "sha256", "solve_seconds")},
              "values": list(race.arrays), "sides": n,
              "positions": two_sided_positions(race.game) if race.arrays else 0}
    print_json_or_text(args, answer, "\n".join([
        f"{race.path}: {a['game']} ({a['rules']}), up to {a['pieces']} checkers a side, "
        f"{answer['positions']:,} positions ({n:,} sides), solved in one pass",
        f"  values {', '.join(race.arrays) or '(one-sided only)'}; the rolls to bear "
        "off of every side",
        f"  solved {a.get('created')} by tabula {a.get('code_version')} in "
        f"{a['solve_seconds']:.1f} s",
        f"  sha256 {a['sha256']}"]))
    return 0


def run_info(args):
    from tabula.solver.race_table import RaceTable, open_table_file
    table = open_table_file(args.file)
    if isinstance(table, RaceTable):
        return _race_info(args, table)
    attrs = dict(table.attrs)
    attrs["layers"] = json.loads(attrs["layers"])
    attrs["machine"] = json.loads(attrs.get("machine", "{}"))
    positions = sum(table.game.layer_size(*p) for p in table.layers)
    answer = {"file": str(table.path), **attrs, "positions": positions,
              "layer_stats": {f"{a}_{b}": table.layer_attrs[(a, b)] for a, b in table.layers}}
    lines = [f"{table.path}: {attrs['game']} ({attrs['rules']}), pieces={attrs['pieces']}, "
             f"{positions:,} positions in {len(table.layers)} layers",
             f"  solved {attrs.get('created')} by tabula {attrs.get('code_version')} on "
             f"{attrs['machine'].get('cpu')} ({attrs['machine'].get('cores')} cores) in "
             f"{attrs.get('solve_seconds', 0):.1f} s",
             f"  tolerance {attrs['tolerance']:.0e}, worst certified residual "
             f"{attrs['max_residual']:.2e}",
             f"  sha256 {attrs['sha256']}"]
    if "start_value" in attrs:
        lines.append(f"  start value (float64) {attrs['start_value']:.12f}")
    lines.append("  layer    positions     sweeps  residual   "
                 "(sweeps: full + cheap ones over the recorded best moves)")
    for (a, b) in table.layers:
        s = table.layer_attrs[(a, b)]
        lines.append(f"  ({a},{b})  {s['positions']:>12,}  {s['sweeps']:>4}+{s['policy_sweeps']:<4}"
                     f"  {s['residual']:.1e}")
    print_json_or_text(args, answer, "\n".join(lines))
    return 0


def run_verify(args):
    from tabula.solver.race_table import RaceTable, is_race_table
    from tabula.solver.verify import verify_table
    if is_race_table(args.file):   # solved exactly in one pass: its checksums are the check
        report = RaceTable(args.file).verify()
        print_json_or_text(args, report, f"{report['table']}: sha256 "
                           f"{'ok' if report['sha256_ok'] else 'MISMATCH'}, checksums of "
                           f"every dataset ok: {'ok' if report['ok'] else 'FAILED'}")
        return 0 if report["ok"] else 1
    report = verify_table(args.file, sample=args.sample)
    lines = [f"{report['table']}: sha256 {'ok' if report['sha256_ok'] else 'MISMATCH'}, "
             f"worst residual {report['max_residual']:.2e} on samples "
             f"(bound {report['residual_bound']:.0e}): {'ok' if report['ok'] else 'FAILED'}"]
    print_json_or_text(args, report, "\n".join(lines))
    return 0 if report["ok"] else 1
