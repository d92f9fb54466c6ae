"""What the subcommands share: games, positions, throws, tables, JSON lines."""
import json

from games import GAMES, PositionError, get_game, pieces_help


class UsageError(Exception):
    """A mistake in how a command was called; printed as one line, exit status 2."""


def add_game_arguments(parser):
    parser.add_argument("game", metavar="GAME", help=f"one of: {', '.join(sorted(GAMES))}")
    parser.add_argument("--pieces", type=int, default=None,
                        help=f"pieces a side ({pieces_help()})")


def game_from_args(args):
    return get_game(args.game, args.pieces)


def parse_position(game, text_or_obj):
    """A position from its JSON text, an already parsed object, or 'start'."""
    if text_or_obj == "start":
        return game.start
    if isinstance(text_or_obj, str):
        try:
            text_or_obj = json.loads(text_or_obj)
        except json.JSONDecodeError as err:
            raise PositionError(f"position is not valid JSON ({err.msg}): {text_or_obj!r}")
    return game.position_from_json(text_or_obj)


def parse_throw(game, value):
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = int(value)
        except (TypeError, ValueError):
            raise PositionError(f"throw must be a whole number, not {value!r}")
    game.check_throw(value)
    return value


def read_jsonl(path):
    """Yield (line number, object) for each non-blank line of a JSON-lines file."""
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as err:
                raise PositionError(f"{path} line {number}: not valid JSON ({err.msg})")


def add_table_argument(parser, required):
    parser.add_argument("--table", metavar="FILE", required=required,
                        help="a solved table (tabula solve)")


def open_table(args):
    """The table of --table, checked against GAME and --pieces; None without --table."""
    if not getattr(args, "table", None):
        return None
    from solver.table import Table
    if args.game not in GAMES:
        get_game(args.game)  # raises the unknown-game message
    return Table(args.table, game=args.game, pieces=args.pieces)


def check_output(path, force: bool):
    """Refuse an output path whose folder is missing, or that exists without --force."""
    if path.exists() and not force:
        raise UsageError(f"{path} exists; use --force to overwrite it")
    if not path.parent.is_dir():
        raise UsageError(f"no directory {path.parent} for --out")


def print_json_or_text(args, answer: dict, text: str):
    print(json.dumps(answer) if args.json else text)
