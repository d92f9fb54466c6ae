"""tabula moves: the legal moves of a position for a throw."""
import json

from tabula.games import PositionError

from .common import (UsageError, add_game_arguments, add_table_argument, game_from_args,
                     open_table, parse_position, parse_throw, read_jsonl, throw_text)


def add_parser(sub):
    p = sub.add_parser(
        "moves", help="list the legal moves of a position for a throw",
        description="List the legal moves of a position for one throw. Positions are seen "
                    "by the player about to throw: Senet {\"me\": [1,3,5,7,9], \"opp\": "
                    "[2,4,6,8,10]}, Ur {\"me\": [4,9], \"me_waiting\": 3, \"opp\": [5], "
                    "\"opp_waiting\": 6}. In a move, from 0 is an Ur piece entering, to 15 "
                    "(Ur) or 31 (Senet) bears a piece off; position is the result seen by "
                    "whoever throws next; again: the mover throws again; over: the move "
                    "won the game.")
    add_game_arguments(p)
    p.add_argument("--position", help="position as JSON, or 'start'")
    p.add_argument("--throw", type=throw_text,
                   help="the throw (ur 0..4, senet 1..5, bearoff two dice as one number, "
                        "the higher first: 61; none in a game without dice)")
    p.add_argument("--dice", type=int, nargs=2, metavar=("D1", "D2"),
                   help="two dice (bearoff), the same as --throw with both digits")
    p.add_argument("--input", metavar="FILE.jsonl",
                   help='many queries, one {"position": ..., "throw": ...} per line; '
                        "answers one JSON line each")
    p.add_argument("--json", action="store_true", help="print one JSON line")
    add_table_argument(p, required=False)
    p.epilog = ("With --table every move also gets its value: the mover's winning chance "
                "after it (1 if it wins; the next position's value if the mover throws "
                "again; one minus it if the turn passes); from a win/loss/draw database "
                "(checkers), the mover's result after it and the plies to the end.")
    p.set_defaults(run=run)


def outcome_text(said: dict) -> str:
    from tabula.solver.outcome_table import outcome_text
    return f"the mover {outcome_text(said)}"


def moves_json(game, code, throw, table=None):
    from tabula.api import moves
    return {"moves": moves(table if table is not None else game, code, throw)}


def describe(game, code, throw, answer):
    lines = [f"{game.name} ({game.rules}, {game.pieces} pieces), position "
             f"{json.dumps(game.to_json(code))}, throw {throw}:"]
    if not answer["moves"]:
        lines.append("  no legal move: the turn passes")
    for i, m in enumerate(answer["moves"], 1):
        notes = [note for flag, note in ((m["over"], "wins the game"),
                                         (m["again"], "throws again")) if flag]
        label = game.presentation.square_label
        source, target = label(m["from"]), label(m["to"])
        value = f"  value {m['value']:.6f}" if "value" in m else ""
        if "result" in m:   # a win/loss/draw database: the outcome, in plies
            value = f"  {outcome_text(m)}"
        if "equity" in m:   # a race's moves, without notation, are where the mover's
                            # checkers end up
            e = m["equity"]
            where = m.get("notation") or f"to {m['position']['opp']}"
            lines.append(f"  {i}. {where}  {', '.join(notes):<14}equity "
                         f"{e['cubeless']:+.6f} cubeless, {e['centered']:+.6f} cube centred")
            continue
        if "notation" in m:
            lines.append(f"  {i}. {m['notation']:<22} {', '.join(notes):<14}{value} then "
                         f"{json.dumps(m['position'])}")
            continue
        lines.append(f"  {i}. {source:>5} -> {target:<3} {', '.join(notes):<14}{value} "
                     f"then {json.dumps(m['position'])}")
    return "\n".join(lines)


def run(args):
    table = open_table(args)
    game = table.game if table else game_from_args(args)
    if args.dice is not None:
        if args.throw is not None:
            raise UsageError("give --throw or --dice, not both")
        if not all(1 <= d <= 6 for d in args.dice):
            raise UsageError("each die shows 1..6")
        args.throw = 10 * max(args.dice) + min(args.dice)
    if args.input:
        if args.position is not None or args.throw is not None:
            raise UsageError("give either --input or --position with --throw, not both")
        for number, query in read_jsonl(args.input):
            try:
                if not isinstance(query, dict) or set(query) != {"position", "throw"}:
                    raise PositionError('each line must be {"position": ..., "throw": ...}')
                code = parse_position(game, query["position"])
                throw = parse_throw(game, query["throw"])
            except PositionError as err:
                raise PositionError(f"{args.input} line {number}: {err}")
            print(json.dumps(moves_json(game, code, throw, table)))
        return 0
    if args.throw is None and not game.dice:   # the one throw of a game without dice
        args.throw = int(game.throws[0])
    if args.position is None or args.throw is None:
        raise UsageError("give --position and --throw (or --input FILE.jsonl)")
    code = parse_position(game, args.position)
    throw = parse_throw(game, args.throw)
    answer = moves_json(game, code, throw, table)
    print(json.dumps(answer) if args.json else describe(game, code, throw, answer))
    return 0
