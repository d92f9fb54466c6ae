"""GNU Backgammon as a player: `gnubg:N`, each legal move's resulting position
evaluated by gnubg's own networks at N plies (0, 1 or 2) through its Python module
(PyPI `gnubg`), the move of best cubeless equity chosen. Checker play only, without
the cube.

At 0 plies this is gnubg's own choice (its findbestmove evaluates every move at 0
plies: tests/test_gnubg_player.py checks the two agree); at more plies gnubg prunes
the moves first with its move filters, and this player evaluates every move in full.

A game that GNU Backgammon's evaluator plays declares `gnubg_board` (standard
backgammon); for others the spec is refused.
"""
import numpy as np

from tabula.infra.errors import TabulaError
from tabula.solver.contact import cubeless_equity

from .equities import cubeless_chooser

MAX_PLIES = 2


class GnubgError(TabulaError):
    """gnubg cannot play this game, or its module is missing."""


def _module():
    try:
        import gnubg
    except ImportError:
        raise GnubgError("player gnubg:N needs GNU Backgammon's Python module: pip install "
                         "gnubg") from None
    return gnubg


def gnubg_evaluator(game, plies: int):
    """codes -> each position's cubeless equity for the side on roll, by gnubg at
    `plies` plies."""
    if game.gnubg_board is None:
        raise GnubgError(f"gnubg does not play {game.describe()}: its players take "
                         "standard backgammon (backgammon(rules=standard))")
    gnubg = _module()
    context = gnubg.evalcontext(0, plies, 1, 0, 0.0)   # cubeless, deterministic
    cube = gnubg.cubeinfo()

    def equities(codes) -> np.ndarray:   # evaluate: the five chances, then an equity
        return np.array([cubeless_equity(*gnubg.evaluate(game.gnubg_board(code), cube,
                                                         context)[:5]) for code in codes])
    return equities


def gnubg_player(spec: str, game, plies: int):
    """The player `spec` (gnubg:PLIES)."""
    from .players import Player
    return Player(spec, game, cubeless_chooser(game, gnubg_evaluator(game, plies)))
