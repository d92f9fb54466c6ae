"""tabula value: a position's exact value from a solved table."""
import json

from tabula.games import PositionError
from tabula.solver.setups import setup_game

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
    p.add_argument("--setups", action="store_true",
                   help="games whose sides arrange their pieces first (einstein): the value "
                        "of every pair of set-ups, and of the game when both sides choose "
                        "theirs at once (a matrix game, solved by linear programming)")
    p.add_argument("--json", action="store_true", help='print {"value": v}')
    p.set_defaults(run=run)


PRINTED_ARRANGEMENTS = 6   # the matrix of set-ups is printed up to this size (--json: all)


def print_setups(game, setups):
    first, second = game.presentation.sides
    labels = [game.setup.label(a) for a in setups.arrangements]
    print(f"{game.describe()}: {first} throws first. A set-up is written as "
          f"{game.setup.written}.")
    if len(labels) <= PRINTED_ARRANGEMENTS:
        print(f"{first}'s winning chance, {first}'s set-up by row, {second}'s by column:")
        print("       " + " ".join(f"{label:>8}" for label in labels))
        for label, row in zip(labels, setups.values):
            print(f"  {label:>4} " + " ".join(f"{v:8.5f}" for v in row))
    mixes = setups.to_json()
    for side, key in ((first, "first_mix"), (second, "second_mix")):
        mix = ", ".join(f"{label} {p:.1%}" for label, p in mixes[key].items())
        print(f"{side}'s best mixture of set-ups: {mix}")
    print(f"{first}'s winning chance when both choose best: {setups.value:.9f}")
    print(f"{first}'s winning chance with set-ups drawn at random: "
          f"{setups.random_value():.9f}")


def run(args):
    table = open_table(args)
    game = table.game
    if args.setups:
        if args.position is not None or args.input:
            raise UsageError("--setups takes no --position or --input")
        setups = setup_game(table)
        if args.json:
            print(json.dumps(setups.to_json()))
        else:
            print_setups(game, setups)
        return 0
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
        raise UsageError("give --position (JSON or 'start'), --input FILE.jsonl or --setups")
    code = parse_position(game, args.position)
    print(json.dumps(table.answer(code)) if args.json else table.answer_text(code))
    return 0
