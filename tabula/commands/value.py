"""tabula value: a position's exact value from a solved table."""
import json

from tabula.games import PositionError

from .common import (UsageError, add_game_arguments, add_table_argument, open_table,
                     parse_position, read_jsonl)


def add_parser(sub):
    p = sub.add_parser(
        "value", help="the exact value of a position from a solved table",
        description="The probability that the player about to throw wins under perfect "
                    "play, read from a table made by `tabula solve`.")
    add_game_arguments(p)
    add_table_argument(p, required=True)
    p.add_argument("--position", help="position as JSON, or 'start'")
    p.add_argument("--input", metavar="FILE.jsonl",
                   help='many positions, one JSON position (or {"position": ...}) a line; '
                        'answers {"value": v} a line')
    p.add_argument("--json", action="store_true", help='print {"value": v}')
    p.set_defaults(run=run)


def run(args):
    table = open_table(args)
    game = table.game
    if args.input:
        if args.position is not None:
            raise UsageError("give either --input or --position, not both")
        queries = list(read_jsonl(args.input))
        codes = []
        for number, query in queries:
            if isinstance(query, dict) and set(query) == {"position"}:
                query = query["position"]
            try:
                codes.append(parse_position(game, query))
            except PositionError as err:
                raise PositionError(f"{args.input} line {number}: {err}")
        for answer in table.answers(codes):
            print(json.dumps(answer))
        return 0
    if args.position is None:
        raise UsageError("give --position (JSON or 'start') or --input FILE.jsonl")
    code = parse_position(game, args.position)
    print(json.dumps(table.answer(code)) if args.json else table.answer_text(code))
    return 0
