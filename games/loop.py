"""The game loop, one step at a time: the one place that says what happens after a
throw and a choice. No legal move: the same board passes to the other side. A move
that won: the game is over. Otherwise the turn passes unless the mover throws again.

`advance` is used by every loop that plays games: random play (runtime/sampling.py),
the perfect player's self-play (solver/selfplay.py), the lockstep engine (eval, through
`advance_many`), tree search's playouts (eval/mcts.py), money games scored with the
cube (eval/cube_regret.py) and the session people play; `start_positions` says where
the games of self-play and the engine begin. (A race table's self-play moves sides,
not positions: solver/race_selfplay.py.)
"""
import numpy as np
from numba import njit, prange

from tabula.infra.rng import below, stream_key

from .game import AGAIN, OVER

SETUP_STREAMS = 1 << 40   # the random set-ups draw from streams of their own


def start_positions(game, seed: int, games) -> np.ndarray:
    """Where each game (by number: a duplicate pair shares its number) begins:
    game.start, or, in a game whose sides arrange their pieces first (game.setup), a
    pair of arrangements drawn at random, every pair alike (the rules' random set-up),
    the same for a game's number and seed wherever it is played."""
    games = np.asarray(games, dtype=np.int64)
    if game.setup is None:
        return np.full(len(games), game.start, dtype=game.code_dtype)
    arrangements = game.setup.arrangements
    starts = np.empty(len(games), dtype=game.code_dtype)
    for i, number in enumerate(games):
        key = np.uint64(stream_key(seed, SETUP_STREAMS + number))
        first, second = (below(key, c, len(arrangements)) for c in (0, 1))
        starts[i] = game.setup.start(arrangements[first], arrangements[second])
    return starts


@njit(cache=True)
def advance(mirror, code, n, next_codes, infos, j):
    """The position after move j of the n legal moves (next_codes, infos) of `code`
    (no move when n == 0), seen by whoever throws next; whether the turn passed to
    the other side; whether the game is over."""
    if n == 0:
        return mirror(code), True, False
    info = infos[j]
    over = (info & OVER) != 0
    return next_codes[j], not over and (info & AGAIN) == 0, over


@njit(parallel=True, cache=True)
def advance_many(mirror, codes, counts, next_codes, infos, chosen):
    """`advance` for a batch of games (moves in rows of next_codes and infos)."""
    n = len(codes)
    out = np.empty(n, dtype=codes.dtype)
    passes = np.empty(n, dtype=np.bool_)
    over = np.empty(n, dtype=np.bool_)
    for i in prange(n):
        out[i], passes[i], over[i] = advance(mirror, codes[i], counts[i], next_codes[i],
                                             infos[i], chosen[i])
    return out, passes, over
