"""tabula eval: how much winning chance a player gives away, matches, reports."""
import json
from pathlib import Path

from tabula.eval.settings import ReportSettings

from .common import (UsageError, add_cluster_argument, add_game_arguments,
                     add_table_argument, check_output, cluster_from_args, game_from_args,
                     open_table, print_json_or_text, seed)

PLAYER_HELP = ("player spec: random, heuristic, expectimax:N (N=1..3), perfect, "
               "net:MODEL.onnx, net+search:MODEL.onnx, mcts:SIMS[xL][/Tms][:LEAF] (tree "
               "search of SIMS simulations a move, L leaves valued in one call, at most "
               "T ms if given; LEAF: playout, heuristic or MODEL.onnx, the last two with "
               "+K to mix in K random playouts a position), gnubg:N (GNU Backgammon's "
               "networks at N=0..2 plies; standard backgammon)")


def add_parser(sub):
    p = sub.add_parser("eval", help="measure players against the exact table; matches; reports",
                       description="Measure players exactly against a solved table.")
    inner = p.add_subparsers(dest="what", metavar="WHAT", parser_class=type(p))
    inner.required = True

    r = inner.add_parser("regret", help="winning chance a player gives away against perfect play",
                         description="The player plays GAMES games against the perfect "
                                     "player, first throw alternating; every decision with "
                                     "two or more legal moves is scored by the table.")
    add_game_arguments(r)
    add_table_argument(r, required=True)
    r.add_argument("--player", required=True, help=PLAYER_HELP)
    r.add_argument("--positions", type=int, default=20_000, metavar="N",
                   help="games that may be drawn (checkers): the player's decisions at N "
                        "positions drawn uniformly from the table's layers, scored by the "
                        "results they throw away (default 20000); --games is not used")
    r.add_argument("--cubeless", action="store_true",
                   help="races (bearoff): checker play without the doubling cube, from the "
                        "game's start, judged by the table's cubeless winning chances, so "
                        "that any player can be measured (with the cube, players are "
                        "perfect and net:MODEL.onnx)")
    _common(r, games=True)
    add_cluster_argument(r)
    r.set_defaults(run=run_regret)

    m = inner.add_parser("match", help="duplicate match between two players",
                         description="Pairs of games with the same throws, colours swapped; "
                                     "A's score with a 95% interval from the pairs' spread. "
                                     "With --table, also A's luck-adjusted score: the "
                                     "table's value of the start, less A's decision losses, "
                                     "plus B's; the same expectation, far less spread. "
                                     "Backgammon is played without the cube unless --cube "
                                     "is given, and A's points a game count gammons 2 and "
                                     "backgammons 3.")
    add_game_arguments(m)
    add_table_argument(m, required=False)
    m.add_argument("--a", required=True, help=PLAYER_HELP)
    m.add_argument("--b", required=True, help=PLAYER_HELP)
    m.add_argument("--pairs", type=int, default=1000, help="duplicate pairs (default 1000)")
    m.add_argument("--cube", action="store_true",
                   help="money play with the doubling cube (games with one): each player "
                        "doubles, takes and moves by its money view, and A's points a game "
                        "count the cube's value; players with the cube: perfect (with "
                        "--table), heuristic, net:MODEL.onnx, net+search:MODEL.onnx, "
                        "gnubg:N. Played in this process, one game at a time")
    _common(m, games=False)
    add_cluster_argument(m)
    m.set_defaults(run=run_match)

    rep = inner.add_parser("report", help="REPORT.md, results.json and plots for many players",
                           description="Regret of each player (default: the standard set "
                                       "random, heuristic, expectimax:1, expectimax:2, "
                                       "perfect), written to --out as REPORT.md, "
                                       "results.json and PNG plots.")
    add_game_arguments(rep)
    add_table_argument(rep, required=True)
    rep.add_argument("--players", nargs="+", default=None, metavar="SPEC", help=PLAYER_HELP)
    rep.add_argument("--out", default="report", help="folder to write (default ./report)")
    rep.add_argument("--force", action="store_true",
                     help="replace the report already in --out")
    _common(rep, games=True)
    add_cluster_argument(rep)
    rep.set_defaults(run=run_report)

    ds = inner.add_parser("decision-set", help="write held-out decisions with their exact "
                                               "worths, for eval decisions",
                          description="Decisions (every legal move of a throw and its exact "
                                      "worth) from positions of a data file's test split, "
                                      "which no training record holds, each tagged with its "
                                      "kinds (near-tie, bear-off, capture, backward, water, "
                                      "blockade, ...): a set that measures a player without "
                                      "the table (tabula eval decisions). With --split train, "
                                      "a set that feeds the decision losses of tabula train "
                                      "without the table (data.decision_set).")
    add_game_arguments(ds)
    add_table_argument(ds, required=True)
    ds.add_argument("--data", required=True, metavar="FILE.h5",
                    help="the data file (tabula datagen) whose test split to draw from")
    ds.add_argument("--out", required=True, metavar="SET.h5", help="decision set to write")
    ds.add_argument("--split", choices=("test", "train"), default="test",
                    help="the split to draw from: test (default; positions never met in "
                         "training, to measure a player) or train (to feed the decision "
                         "losses of training without the table: data.decision_set)")
    ds.add_argument("--decisions", type=int, default=20000,
                    help="decisions to write (default 20000; fewer if the split runs out)")
    ds.add_argument("--force", action="store_true", help="overwrite an existing file")
    _common(ds, games=False)
    ds.set_defaults(run=run_decision_set)

    d = inner.add_parser("decisions", help="a player's error rate and loss per decision on a "
                                           "decision set, by kind",
                         description="The player chooses a move in every decision of SET "
                                     "(tabula eval decision-set, or the GPU run of a game too "
                                     "large for this machine); each choice is scored by the "
                                     "exact worths stored with it: error rate and loss per "
                                     "decision, overall and by kind of decision. No table "
                                     "needed.")
    d.add_argument("set", metavar="SET.h5", help="a decision set")
    d.add_argument("--player", required=True, help=PLAYER_HELP.replace("perfect, ", ""))
    _common(d, games=False)
    d.set_defaults(run=run_decisions)


def _common(p, games):
    if games:
        p.add_argument("--games", type=int, default=ReportSettings.games,
                       help=f"games per player (default {ReportSettings.games})")
    p.add_argument("--seed", type=seed, default=ReportSettings.seed,
                   help=f"random seed (default {ReportSettings.seed})")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def _table_and_game(args):
    table = open_table(args)
    return table, (table.game if table is not None else game_from_args(args))


def run_regret(args):
    from tabula.eval.measures import regret
    from tabula.eval.players import make_player
    ReportSettings.check({"games": args.games}, "--")
    table, game = _table_and_game(args)
    if game.capabilities.draws:
        _in_process_only(args, "games that may be drawn are scored")
        return _outcome_regret(args, game, table)
    if game.cube is not None and not args.cubeless:
        _in_process_only(args, "money play with the cube is scored")
        return _race_regret(args, game, table)
    if args.cubeless and game.cube is None:
        raise UsageError(f"--cubeless is for games with the doubling cube, not {game.name}")
    with cluster_from_args(args) as cluster:
        result = regret(table, make_player(args.player, game, table), args.games,
                        args.seed, quiet=args.quiet, cluster=cluster).summary
    if args.json:
        print(json.dumps(result))
        return 0
    low, high = result["loss_per_game_ci95"]
    print(f"{result['player']}: {result['decisions']:,} decisions in {result['games']:,} games; "
          f"error rate {result['error_rate']:.2%}; loss per decision "
          f"{result['loss_per_decision_points']:.4f} points; loss per game "
          f"{result['loss_per_game_points']:.3f} points (95%: {low:.3f} .. {high:.3f}); "
          f"worst {result['worst_loss_points']:.2f} points; won "
          f"{result['win_rate_vs_perfect']:.1%} against perfect play")
    return 0


def _in_process_only(args, what):
    if args.cluster != "local":
        raise UsageError(f"--cluster: {what} in this process only, not on a cluster yet")


def _outcome_regret(args, game, table):
    """Games that may be drawn: the results a player's decisions throw away."""
    from tabula.eval.outcomes import thrown_results, thrown_text
    from tabula.eval.players import make_player
    if not 1 <= args.positions <= 10**8:
        raise UsageError(f"--positions must lie between 1 and 100000000, not {args.positions}")
    result = thrown_results(table, make_player(args.player, game, table), args.positions,
                            args.seed, quiet=args.quiet)
    print(json.dumps(result) if args.json else thrown_text(result))
    return 0


def _race_regret(args, game, table):
    """Games with the doubling cube: checker play and cube decisions scored apart."""
    from tabula.eval.cube_regret import cube_regret, starts_text
    from tabula.eval.players import money_player
    result = cube_regret(table, money_player(args.player, game, table), args.games,
                         args.seed, quiet=args.quiet).summary
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{result['player']}: {result['games']:,} games {starts_text(game)}, cube centred; "
          f"loss per game {result['loss_per_game_points']:.4f} points: checker play "
          f"{result['checker_loss_per_game_points']:.4f} ({result['checker_decisions']:,} "
          f"decisions, error rate {result['checker_error_rate']:.2%}), cube "
          f"{result['cube_loss_per_game_points']:.4f} ({result['cube_decisions']:,} decisions, "
          f"error rate {result['cube_error_rate']:.2%}); worst {result['worst_loss_points']:.3f}")
    return 0


def run_match(args):
    from tabula.eval.measures import match
    from tabula.eval.players import make_player
    if not 1 <= args.pairs <= 10**8:
        raise UsageError(f"--pairs must be at least 1 and at most 100000000, not {args.pairs}")
    table, game = _table_and_game(args)
    if args.cube:
        return _run_money_match(args, table, game)
    with cluster_from_args(args) as cluster:
        result = match(make_player(args.a, game, table), make_player(args.b, game, table),
                       args.pairs, args.seed, table=table, quiet=args.quiet, cluster=cluster)
    if args.json:
        print(json.dumps(result))
        return 0
    low, high = result["score_a_ci95"]
    print(f"{result['a']} vs {result['b']}: {result['a']} scores {result['score_a']:.2%} "
          f"(95%: {low:.2%} .. {high:.2%}) over {result['pairs']:,} duplicate pairs")
    if result["points_a_per_game"] is not None:
        low, high = result["points_a_per_game_ci95"]
        print(f"without the cube: {result['a']} {result['points_a_per_game']:+.3f} points a "
              f"game (95%: {low:+.3f} .. {high:+.3f}; {result['gammons']:,} gammons and "
              f"{result['backgammons']:,} backgammons in {result['games']:,} games); money "
              f"play with the cube: --cube")
    if result["luck_adjusted_score_a"] is not None:
        low, high = result["luck_adjusted_score_a_ci95"]
        print(f"luck-adjusted by the table: {result['luck_adjusted_score_a']:.3%} "
              f"(95%: {low:.3%} .. {high:.3%})")
    return 0


def _run_money_match(args, table, game):
    from tabula.eval.money_match import money_match
    from tabula.eval.players import money_player
    if args.cluster != "local":
        raise UsageError("--cube plays in this process: leave out --cluster")
    if game.cube is None:
        raise UsageError(f"{game.describe()} is not played with the doubling cube")
    result = money_match(money_player(args.a, game, table), money_player(args.b, game, table),
                         args.pairs, args.seed, quiet=args.quiet)
    low, high = result["points_a_per_game_ci95"]
    print_json_or_text(args, result, (
        f"{result['a']} vs {result['b']}, money play with the cube: {result['a']} "
        f"{result['points_a_per_game']:+.3f} points a game (95%: {low:+.3f} .. {high:+.3f}) "
        f"over {result['pairs']:,} duplicate pairs; {result['doubles_passed']:,} doubles "
        f"passed, mean cube {result['mean_cube_value']:.2f}, largest "
        f"{result['largest_cube_value']}"))
    return 0


def run_decision_set(args):
    from tabula.datagen.decision_set import make_decision_set
    out = Path(args.out)
    check_output(out, args.force)
    if args.decisions < 1:
        raise UsageError(f"--decisions must be at least 1, not {args.decisions}")
    table = open_table(args)
    if table.game.cube is not None:
        raise UsageError(f"{table.game.name}: decision sets hold games without the cube; "
                         "use tabula eval regret")
    result = make_decision_set(table, args.data, out, args.decisions, args.seed, args.split)
    kinds = ", ".join(f"{k} {n:,}" for k, n in result["kinds"].items())
    print_json_or_text(args, result, f"wrote {out}: {result['decisions']:,} decisions "
                                     f"({kinds})")
    return 0


def run_decisions(args):
    from tabula.datagen.decision_set import DecisionSet
    from tabula.eval.decision_score import score
    from tabula.eval.players import make_player
    decision_set = DecisionSet(args.set)
    if args.player == "perfect":
        raise UsageError("the perfect player needs a table; a decision set has none")
    result = score(decision_set, make_player(args.player, decision_set.game), args.seed)
    lines = [f"{result['player']} on {args.set}:",
             f"{'kind':<12} {'decisions':>10} {'error rate':>11} {'loss/decision (pts)':>20}"]
    for name, row in [("all", result), *result["by_kind"].items()]:
        lines.append(f"{name:<12} {row['decisions']:>10,} {row['error_rate']:>11.2%} "
                     f"{row['loss_per_decision_points']:>20.4f}")
    print_json_or_text(args, result, "\n".join(lines))
    return 0


def run_report(args):
    from tabula.eval.report import measure_of, write_report
    ReportSettings.check({"games": args.games}, "--")
    out = Path(args.out)
    if (out / "REPORT.md").exists() and not args.force:
        raise UsageError(f"{out} holds a report already; use --force to replace it")
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out} is a file, not a folder for the report")
    table, game = _table_and_game(args)
    if not measure_of(game).on_clusters:
        _in_process_only(args, "money play with the cube is scored")
    with cluster_from_args(args) as cluster:
        result = write_report(table, args.players or list(measure_of(game).players),
                              args.games, args.seed, Path(args.out), quiet=args.quiet,
                              cluster=cluster)
    if args.json:
        print(json.dumps(result))
        return 0
    print(result["table_markdown"])
    print(f"report: {Path(args.out) / 'REPORT.md'}")
    return 0
