"""tabula table info|verify: what a table file holds, and whether it is sound."""

from .common import print_json_or_text, sample_size, seed


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
    verify.add_argument("--sample", type=sample_size, default=100_000,
                        help="positions checked per layer (all of smaller layers)")
    verify.add_argument("--seed", type=seed, default=None,
                        help="the sample's seed (default: drawn afresh; the report says it)")
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    verify.set_defaults(run=run_verify)


def run_info(args):
    from tabula.solver.solution import open_solution
    answer, text = open_solution(args.file).info()
    print_json_or_text(args, answer, text)
    return 0


def run_verify(args):
    from tabula.solver.solution import open_solution
    table = open_solution(args.file)
    report = table.verify(sample=args.sample, seed=args.seed)
    print_json_or_text(args, report, table.verify_text(report))
    return 0 if report["ok"] else 1
