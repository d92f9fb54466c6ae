"""The `tabula` command: one parser, one subcommand module each.

Every user error (bad position, bad throw, unknown game, unreadable file) ends
as one line on stderr and exit status 2.
"""
import argparse
import os
import sys

from tabula.infra import __version__
from tabula.infra.errors import OneLineErrors
from tabula.games import rules_help
from tabula.commands import (datagen, distill, eval, export, moves, pipeline, play, serve, solve,
                             table, td, train, value, verify)


class OneLineParser(OneLineErrors, argparse.ArgumentParser):
    """argparse's parser, with tabula's one-line errors."""


COMMANDS = [moves, solve, value, table, datagen, train, td, export, eval, pipeline, distill,
            play, serve, verify]


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="tabula",
        description="Solve dice games exactly, distil the solutions into small networks "
                    "and measure any player against them. Games and their rule sets: "
                    f"{rules_help()}.")
    parser.add_argument("--version", action="version", version=f"tabula {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    for module in COMMANDS:
        module.add_parser(sub)
    return parser


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["train"]:   # LightningCLI parses its own arguments
        return guarded("tabula train", lambda: train.run(argv[1:]))
    args = build_parser().parse_args(argv)

    def run():
        from tabula.commands.common import read_variant
        read_variant(args)
        return args.run(args) or 0
    return guarded(f"tabula {args.command}", run)


def guarded(name, work) -> int:
    """Run work() and return its exit status; a bad input (TabulaError, a usage error,
    a file that cannot be read) is one line on stderr, NAME: error: ..., and status 2.
    The benchmark scripts run through it too (benchmarks/common.py)."""
    from tabula.infra.errors import TabulaError
    from tabula.commands.common import UsageError
    try:
        return work()
    except BrokenPipeError:   # the reader went away (tabula ... | head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (TabulaError, UsageError, OSError) as err:
        print(f"{name}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
