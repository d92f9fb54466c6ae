"""Reading games, positions and throws from the command line and JSON lines."""
import json

from games import GAMES, PositionError, get_game


def add_game_arguments(parser):
    parser.add_argument("game", metavar="GAME", help=f"one of: {', '.join(sorted(GAMES))}")
    parser.add_argument("--pieces", type=int, default=None,
                        help="pieces a side (ur 1..7, default 7; senet 1..5, default 5)")


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
    if value not in game.throws:
        raise PositionError(f"throw {value} is impossible in {game.name}: throws are "
                            f"{', '.join(str(int(t)) for t in game.throws)}")
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
