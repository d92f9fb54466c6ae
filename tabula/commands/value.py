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
    answer = getattr(table, "answer", None)   # race tables: equities and the cube
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
        if answer is not None:
            for code in codes:
                print(json.dumps(answer(code)))
            return 0
        for v in table.values(codes):
            print(json.dumps({"value": float(v)}))
        return 0
    if args.position is None:
        raise UsageError("give --position (JSON or 'start') or --input FILE.jsonl")
    code = parse_position(game, args.position)
    if answer is not None:
        print(json.dumps(answer(code)) if args.json else _race_text(game, code, answer(code)))
        return 0
    v = table.value(code)
    if args.json:
        print(json.dumps({"value": v}))
    else:
        print(f"{game.name} position {json.dumps(game.to_json(code))}: the player to throw "
              f"wins with probability {v:.7f} ({100 * v:.4f}%)")
    return 0


def _race_text(game, code, a) -> str:
    eq, nd = a["equity"], a["equity_no_double"]
    return "\n".join([
        f"{game.name} position {json.dumps(game.to_json(code))}, the player on roll:",
        f"  cubeless: wins {a['win']:.6f} (gammon {a['win_gammon']:.6f}), loses a gammon "
        f"{a['lose_gammon']:.6f}, equity {eq['cubeless']:+.6f}",
        f"  cube centred: {a['cube']}; equity {eq['centered']:+.6f} "
        f"(not doubling now: {nd['centered']:+.6f})",
        f"  cube owned: equity {eq['owned']:+.6f} (not doubling now: {nd['owned']:+.6f})",
        f"  cube on the other side: equity {eq['unavailable']:+.6f}",
        "  (equities in points per unit of cube value)"])
