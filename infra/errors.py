"""The one error type for a user's mistake."""


class TabulaError(ValueError):
    """A mistake in what a user asked for or gave (position, file, setting): the
    command line prints it as one line and exits with status 2."""
