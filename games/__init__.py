"""Rules of the games tabula solves: the only package that knows them."""
from . import numba_cache  # noqa: F401 - before any cache index is read
from . import senet, ur
from .game import Game, PositionError, TabulaError

GAMES = {"ur": ur, "senet": senet}


def get_game(name: str, pieces: int | None = None) -> Game:
    """The game `name` ('ur' or 'senet') with `pieces` a side (its default if None)."""
    module = GAMES.get(name)
    if module is None:
        raise PositionError(f"unknown game {name!r}; games are {', '.join(sorted(GAMES))}")
    return module.make(module.DEFAULT_PIECES if pieces is None else pieces)


__all__ = ["GAMES", "Game", "PositionError", "TabulaError", "get_game"]
