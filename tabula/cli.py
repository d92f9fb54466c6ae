"""The `tabula` command: one parser, one subcommand module each.

Every user error (bad position, bad throw, unknown game, unreadable file) ends
as one line on stderr and exit status 2.
"""
import argparse
import sys

from tabula import __version__
from tabula.commands import datagen, moves, solve, table, value


class OneLineParser(argparse.ArgumentParser):
    def error(self, message):
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


COMMANDS = [moves, solve, value, table, datagen]


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="tabula",
        description="Solve dice games (Royal Game of Ur, Senet) exactly, distil the "
                    "solutions into small networks and measure any player against them.")
    parser.add_argument("--version", action="version", version=f"tabula {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    for module in COMMANDS:
        module.add_parser(sub)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    from games import TabulaError
    from tabula.commands.common import UsageError
    try:
        return args.run(args) or 0
    except (TabulaError, UsageError, OSError) as err:
        print(f"tabula {args.command}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"tabula {args.command}: interrupted", file=sys.stderr)
        return 130
