"""The one error type for a user's mistake, and the one way a parser reports one."""
import sys


class TabulaError(ValueError):
    """A mistake in what a user asked for or gave (position, file, setting): the
    command line prints it as one line and exits with status 2."""


class OneLineErrors:
    """A parser mix-in (argparse's, or jsonargparse's for tabula train): a mistake in
    the arguments or a config is one line on stderr and exit status 2, like every
    other user error."""

    def error(self, message, ex=None):
        # jsonargparse puts the reason on the lines after 'Parser key "...":'
        line = " ".join(str(message).split()) or "bad arguments"
        print(f"{self.prog}: error: {line} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)
