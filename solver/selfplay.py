"""Games of the perfect player against itself, with exploration, compiled.

Game g of a run with seed s draws everything from its own random stream
(infra.rng), so its positions do not depend on threads or on which other games
run beside it. Every position met by a player about to throw is recorded.
"""
import numpy as np
from numba import njit, prange

from tabula.games.game import OVER
from tabula.games.loop import advance
from tabula.infra.rng import below, draw_throw, stream_key, uniform
from tabula.solver.bellman import best_move


@njit(cache=True)
def best_by_chance(layer_of, rank, loss_size, pieces, flat, offsets, next_codes, infos, n):
    """The perfect player of a layered table (bellman.best_move), as play_games asks a
    chooser: the table's values in `flat`; loss_size and pieces are for the choosers of
    games with gammons (solver/contact.py: best_cubeless_move)."""
    return best_move(layer_of, rank, flat, offsets, next_codes, infos, n)


@njit(cache=True)
def single_loss(code, pieces):
    """loss_size for games without gammons: every game is won single."""
    return 1


@njit(parallel=True, cache=True)
def play_games(moves, mirror, layer_of, rank, loss_size, pieces, throws, cum_probs, max_moves,
               choose, values, offsets, starts, seed, first_game, explore, alternatives,
               capacity, out, kinds):
    """Play games first_game .. first_game + n - 1 (n = len(out) // capacity); game i
    starts from starts[i], writes its positions to out[i * capacity:] and returns
    its count in counts[i] (-1 if it met more than `capacity` positions). Each game
    explores with its own rate explore * u, u uniform in [0, 1): at a decision with
    two or more moves it plays a uniformly random one with that probability,
    otherwise the best by choose(layer_of, rank, loss_size, pieces, values, offsets,
    next_codes, infos, n), the table's values in `values` (best_by_chance for a layered
    table).
    kinds[k] is 0 for a position met; with `alternatives`, the positions the other
    moves of each decision would have led to (the game not ended) follow with 2."""
    n_games = len(out) // capacity
    counts = np.zeros(n_games, dtype=np.int64)
    for i in prange(n_games):
        key = stream_key(seed, first_game + i)
        next_codes = np.empty(max_moves, dtype=out.dtype)
        infos = np.empty(max_moves, dtype=np.int64)
        rate = explore * uniform(key, 0)
        counter = 1
        code = starts[i]
        n = 0
        while True:
            if n == capacity:
                n = -1
                break
            out[i * capacity + n] = code
            kinds[i * capacity + n] = 0
            n += 1
            k = moves(code, draw_throw(throws, cum_probs, key, counter), next_codes, infos)
            counter += 1
            j = 0
            if k > 0:
                if k > 1 and uniform(key, counter) < rate:
                    j = below(key, counter + 1, k)
                else:
                    j = choose(layer_of, rank, loss_size, pieces, values, offsets,
                               next_codes, infos, k)
                counter += 2
            if alternatives and k > 1:
                for m in range(k):
                    if m == j or infos[m] & OVER:
                        continue
                    if n == capacity:
                        break
                    out[i * capacity + n] = next_codes[m]
                    kinds[i * capacity + n] = 2
                    n += 1
            code, _, over = advance(mirror, code, k, next_codes, infos, j)
            if over:
                break
        counts[i] = n
    return counts
