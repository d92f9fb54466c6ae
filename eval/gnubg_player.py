"""GNU Backgammon as a player and as a referee, through its Python module (PyPI
`gnubg`): checker play without the cube (money play with the cube:
eval/gnubg_money.py).

`gnubg:N` plays gnubg's own choice at N plies (0, 1 or 2): its findbestmove, which at
more than 0 plies prunes the moves with its move filters first, as GNU Backgammon
itself chooses. findbestmove needs the dice, which players are not told (a player is
given a decision's resulting positions); the dice are the throw whose legal moves are
exactly those positions (throws with the same moves give gnubg the same choice).
The module's move stops at the first checker borne off (`(6, 3, 3)` for 6/3 3/off and
what follows); there the choice is, among the results the known steps can lead to, the best
by gnubg's evaluation at the same plies (in full: the filters may rank otherwise).

`gnubg_evaluator` values positions by gnubg at N plies, every position in full: the
referee's evaluation (eval/referee.py).

A game that GNU Backgammon's evaluator plays declares `gnubg_board` (standard
backgammon); for others the spec is refused.
"""
import numpy as np

from tabula.infra.errors import TabulaError
from tabula.solver.contact import cubeless_equity

from .equities import cubeless_move_equities

MAX_PLIES = 2
OFF = 0   # gnubg's move tuples: points 1..24, the bar 25, off 0


class GnubgError(TabulaError):
    """gnubg cannot play this game, or its module is missing."""


def _module(game):
    if game.gnubg_board is None:
        raise GnubgError(f"gnubg does not play {game.describe()}: its players take "
                         "standard backgammon (backgammon(rules=standard))")
    try:
        import gnubg
    except ImportError:
        raise GnubgError("player gnubg:N needs GNU Backgammon's Python module: pip install "
                         "gnubg") from None
    return gnubg


def gnubg_evaluator(game, plies: int):
    """codes -> each position's cubeless equity for the side on roll, by gnubg at
    `plies` plies."""
    gnubg = _module(game)
    context = gnubg.evalcontext(0, plies, 1, 0, 0.0)   # cubeless, deterministic
    cube = gnubg.cubeinfo()

    def equities(codes) -> np.ndarray:   # evaluate: the five chances, then an equity
        return np.array([cubeless_equity(*gnubg.evaluate(game.gnubg_board(code), cube,
                                                         context)[:5]) for code in codes])
    return equities


def throw_of(game, code, results) -> int:
    """The throw whose legal moves from `code` lead to exactly `results`."""
    wanted = set(game.codes(results).tolist())
    for throw in game.throws:
        moves, _ = game.move_arrays(code, int(throw))
        if len(moves) == len(wanted) and set(moves.tolist()) == wanted:
            return int(throw)
    raise GnubgError("no throw has these moves: not a decision of this position")


def played(board, play) -> tuple[list, list]:
    """gnubg's board (the other side's, then the mover's) after the mover plays `play`
    (findbestmove's flat (from, to, from, to, ...) points, where an odd last point is
    a checker borne off), seen by the next mover."""
    other, mover = (list(side) for side in board)
    steps = list(play) + [OFF] * (len(play) % 2)
    for source, target in zip(steps[::2], steps[1::2]):
        mover[source - 1] -= 1            # index 24 is the bar (point 25)
        if target != OFF:
            mover[target - 1] += 1
            if other[24 - target] == 1:   # a blot on the mover's point `target`: hit
                other[24 - target] = 0
                other[24] += 1
    return mover, other


def can_follow(mover, before) -> bool:
    """Whether the mover's checkers `mover` (gnubg's side, the bar last) can follow
    `before` by moves down the board and off: never more checkers at or above a point."""
    return bool((np.cumsum(mover[::-1]) <= np.cumsum(before[::-1])).all())


def gnubg_chooser(game, plies: int):
    """A player's choose (eval/players.py): gnubg's findbestmove at `plies` plies."""
    gnubg = _module(game)
    context = gnubg.evalcontext(0, plies, 1, 0, 0.0)
    cube = gnubg.cubeinfo()
    equity_of = gnubg_evaluator(game, plies)

    def completed(code, results, infos, partial):
        """The index of the best result that can follow a move cut short at a
        checker borne off (`partial`: gnubg's board after its known steps). A
        result's gnubg board is seen by the next mover: the mover's side first."""
        fits = np.array([j for j, result in enumerate(results)
                         if can_follow(np.array(game.gnubg_board(result)[0]),
                                       np.array(partial[0]))])
        worth = cubeless_move_equities(game, game.codes([code]), [len(fits)],
                                       results[fits][None], infos[fits][None], equity_of)
        return fits[int(np.argmax(worth))]

    def choose(codes, counts, next_codes, infos, rand, seconds=None):
        chosen = np.zeros(len(counts), dtype=np.int64)
        for i, (code, n) in enumerate(zip(codes, counts)):
            if n < 2:
                continue
            results = next_codes[i, :n]
            board = game.gnubg_board(code)
            play = gnubg.findbestmove(board, cube, context,
                                      divmod(throw_of(game, code, results), 10))
            after = played(board, play)
            if len(play) % 2:
                chosen[i] = completed(code, results, infos[i, :n], after)
            else:
                chosen[i] = next(j for j, result in enumerate(results)
                                 if tuple(game.gnubg_board(result)) == after)
        return chosen
    return choose


def gnubg_player(spec: str, game, plies: int):
    """The player `spec` (gnubg:PLIES)."""
    from .gnubg_money import GnubgMoney
    from .players import Player
    return Player(spec, game, gnubg_chooser(game, plies), money=GnubgMoney(game, plies))
