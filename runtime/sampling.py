"""Random positions of a game: uniform within layers, and met in random play.

Used by the rules checks and the benchmarks; both run compiled.
"""
import numpy as np
from numba import njit

from tabula.games.game import layer_id
from tabula.games.loop import advance
from tabula.infra.batch import unrank_many


def uniform_positions(game, n: int, seed: int, layers=None) -> np.ndarray:
    """n codes: a layer chosen uniformly (among non-terminal layers unless given),
    then a position uniformly inside it."""
    rng = np.random.default_rng(seed)
    if layers is None:
        layers = game.solved_layers()
    ids = np.array([layer_id(a, b) for a, b in layers], dtype=np.int64)
    sizes = np.array([game.layer_size(a, b) for a, b in layers], dtype=np.int64)
    pick = rng.integers(0, len(layers), size=n)
    ranks = (rng.random(n) * sizes[pick]).astype(np.int64)
    return unrank_many(game.unrank, ids[pick], ranks, game.code_dtype)


@njit(cache=True)
def _random_play(moves, mirror, throws, cum_probs, start, seed, out, codes):
    """Fill `out` with the positions met (codes: room for one throw's moves)."""
    np.random.seed(seed)
    n = len(out)
    info = np.empty(len(codes), dtype=np.int64)
    code = start
    for i in range(n):
        out[i] = code
        throw = throws[np.searchsorted(cum_probs, np.random.random(), side="right")]
        k = moves(code, throw, codes, info)
        j = np.random.randint(k) if k > 0 else 0
        code, _, over = advance(mirror, code, k, codes, info, j)
        if over:
            code = start   # a new game after a win
    return out


def random_play_positions(game, n: int, seed: int) -> np.ndarray:
    """n positions met, one after another, in games between two random movers."""
    cum_probs = np.cumsum(game.probs)
    cum_probs[-1] = 1.0
    return _random_play(game.moves, game.mirror, game.throws, cum_probs,
                        game.code(game.start), seed, np.empty(n, dtype=game.code_dtype),
                        np.empty(game.max_moves, dtype=game.code_dtype))
