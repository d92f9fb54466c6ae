"""What the subcommands share: games, positions, throws, tables, JSON lines."""
import argparse
import json

from tabula.games import (GAMES, PositionError, game_flags, get_game, parse_variant,
                          pieces_help, rules_help)
from tabula.infra.settings import MAX_SEED


class UsageError(Exception):
    """A mistake in how a command was called; printed as one line, exit status 2."""


MAX_JSON_TEXT = 100_000   # characters of one position or query


def seed(text: str) -> int:
    """argparse type of --seed: a whole number from 0 to 2**64 - 1, in plain digits."""
    if not (text.isascii() and text.lstrip("-").isdigit() and len(text) <= 25):
        raise argparse.ArgumentTypeError(f"a seed is a whole number, not {text[:30]!r}")
    value = int(text)
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"a seed lies between 0 and 2**64 - 1, not {text[:30]}")
    return value


def sample_size(text: str) -> int:
    """argparse type of --sample: positions checked per layer, a whole number >= 1."""
    if not (text.isascii() and text.isdigit() and len(text) <= 12 and int(text) >= 1):
        raise argparse.ArgumentTypeError(f"a sample is a whole number of positions >= 1, "
                                         f"not {text[:30]!r}")
    return int(text)


def load_json(text: str, what: str):
    """Parse JSON typed or read by a user, refusing what Python's parser would choke on
    (deep nesting, huge numbers) with one line, and NaN or Infinity."""
    if len(text) > MAX_JSON_TEXT:
        raise PositionError(f"{what} is too long ({len(text):,} characters)")

    def refuse(constant):
        raise ValueError(f"{constant} is not a number JSON allows")
    try:
        return json.loads(text, parse_constant=refuse)
    except RecursionError:
        raise PositionError(f"{what} is nested too deeply") from None
    except json.JSONDecodeError as err:
        raise PositionError(f"{what} is not valid JSON ({err.msg})") from None
    except ValueError as err:   # a number of thousands of digits, NaN, Infinity
        raise PositionError(f"{what} is not valid JSON ({str(err).splitlines()[0]})") from None


def _flag_type(to_value):
    """argparse's type of a game's flag: its value, or its PositionError as the line."""
    def read(text: str):
        try:
            return to_value(text)
        except PositionError as err:
            raise argparse.ArgumentTypeError(str(err)) from None
    return read


def add_game_arguments(parser, default_of=None):
    """GAME, --pieces, --rules and the flags the games declare (games.game_flags: other
    names of the pieces, --board); default_of(name, rules): the pieces used when none
    are named, where not the rule set's default (see games.pieces_help): the help then
    says where the other commands' defaults differ."""
    parser.add_argument("game", metavar="GAME", help=f"one of: {', '.join(sorted(GAMES))}; "
                        "or a variant in one string, ur(rules=masters,pieces=7)")
    flags = game_flags()
    names = [f for f in flags.values() if f.parameter == "pieces" and f.to_value is None]
    differ = [f"{name} {get_game(name).pieces}" for name in sorted(GAMES)
              if default_of is not None and default_of(name, None) != get_game(name).pieces]
    parser.add_argument("--pieces", *(f"--{f.name}" for f in names), type=int, default=None,
                        dest="pieces", help=f"pieces ({', '.join(f.name for f in names)}) a "
                                            f"side, or on the board in all where said "
                                            f"({pieces_help(default_of)})" + (
                            f"; the defaults are the pieces a shipped network plays, where "
                            f"the other commands default to the rule set's own "
                            f"({', '.join(differ)})" if differ else ""))
    parser.add_argument("--rules", metavar="NAME", default=None,
                        help=f"the rule set, the game's first by default ({rules_help()})")
    for flag in flags.values():
        if flag not in names:
            parser.add_argument(f"--{flag.name}", metavar=flag.metavar, dest=flag.parameter,
                                type=_flag_type(flag.to_value), help=flag.help)


def game_from_args(args):
    return get_game(args.game, args.pieces, args.rules)


def read_variant(args):
    """GAME written as a variant, ur(rules=masters,pieces=7) (games.parse_variant): its
    rule set and pieces fill --rules and --pieces, which may only agree with them."""
    if "(" not in (getattr(args, "game", None) or ""):
        return
    game = parse_variant(args.game)
    for key, value in (("rules", game.rules), ("pieces", game.pieces)):
        if getattr(args, key, None) not in (None, value):
            raise UsageError(f"{args.game[:60]} names {key}={value}, but --{key} says "
                             f"{getattr(args, key)}")
    args.game, args.rules, args.pieces = game.name, game.rules, game.pieces


def parse_position(game, text_or_obj):
    """A position from its JSON text, an already parsed object, or 'start'."""
    if text_or_obj == "start":
        return game.start
    if isinstance(text_or_obj, str):
        text_or_obj = load_json(text_or_obj, "the position")
    return game.position_in_play(text_or_obj)


def throw_text(text: str) -> int:
    """argparse type of --throw: the text of a whole number."""
    text = text.strip()
    if not (text.isascii() and text.lstrip("-").isdigit() and len(text) < 20):
        raise argparse.ArgumentTypeError(f"a throw is a whole number, not {text[:30]!r}")
    return int(text)


def parse_throw(game, value):
    """A throw of the game: a whole number (from JSON: not 2.5, not true, not "2")."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise PositionError(f"a throw is a whole number, not {str(value)[:30]!r}")
    game.check_throw(value)
    return value


def read_jsonl(path):
    """Yield (line number, object) for each non-blank line of a JSON-lines file."""
    with open(path, encoding="utf-8") as handle:
        try:
            for number, line in enumerate(handle, 1):
                if line.strip():
                    yield number, load_json(line, f"{path} line {number}")
        except UnicodeDecodeError:
            raise PositionError(f"{path} is not UTF-8 text") from None


def add_table_argument(parser, required):
    parser.add_argument("--table", metavar="FILE", required=required,
                        help="a solved table (tabula solve)")


def open_table(args):
    """The solution of --table, checked against GAME, --pieces and --rules; None without
    --table."""
    if not getattr(args, "table", None):
        return None
    from tabula.solver.solution import open_solution
    if args.game not in GAMES:
        get_game(args.game)  # raises the unknown-game message
    return open_solution(args.table, game=args.game, pieces=args.pieces, rules=args.rules)


def check_output(path, force: bool):
    """Refuse an output path whose folder is missing, that is a folder, or that exists
    without --force."""
    if path.is_dir():
        raise UsageError(f"{path} is a folder: give a file name for --out")
    if path.exists() and not force:
        raise UsageError(f"{path} exists; use --force to overwrite it")
    if not path.parent.is_dir():
        raise UsageError(f"no directory {path.parent} for --out")


def print_json_or_text(args, answer: dict, text: str):
    print(json.dumps(answer) if args.json else text)


def add_cluster_argument(parser, default="local", where_else=" (default local)"):
    parser.add_argument("--cluster", default=default, metavar="WHERE",
                        help=f"where the work runs{where_else}: local (this process) or "
                             "ray[:ADDRESS], a Ray cluster (ray: one started on this "
                             "machine for the run; ray:auto: the one `ray start` made; "
                             "ray:HOST:PORT). The result is the same bytes wherever its "
                             "units run; docs/CLUSTER.md")


def cluster_from_args(args):
    """The cluster --cluster names, connected for the command and closed after it."""
    from tabula.infra.cluster import cluster_named
    return cluster_named(args.cluster)


def cluster_over_recipe(args, recipe: dict):
    """--cluster, where given, in place of a recipe's or config's `cluster:` key."""
    if args.cluster is not None:
        from tabula.infra.cluster import cluster_address
        cluster_address(args.cluster)
        recipe["cluster"] = args.cluster
