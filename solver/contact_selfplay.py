"""Games of a contact table's cubeless perfect player against itself, with exploration,
compiled: what solver/selfplay.py does for layered tables, the best move chosen as the
contact solve chooses it (solver/contact.py: better_cubeless) from the table's nine
values a position. Game g draws from its own stream (infra.rng), so its positions do not
depend on threads or on which other games run beside it."""
import numpy as np
from numba import njit, prange

from tabula.games.game import OVER
from tabula.games.loop import advance
from tabula.infra.rng import below, draw_throw, stream_key, uniform

from .contact import better_cubeless


@njit(cache=True)
def best_cubeless_move(layer_of, rank, loss_size, pieces, values, offsets, next_codes,
                       infos, n):
    """Index of the best of the first n moves by the table's cubeless chances."""
    best_j, best_cubeless, best_win = 0, -np.inf, -1.0
    for j in range(n):
        after = next_codes[j]
        if infos[j] & OVER:
            size = loss_size(after, pieces)
            win, cubeless = 1.0, float(size)
        else:   # the opponent is on roll: their chances, turned round
            v = values[offsets[layer_of(after)] + rank(after)]
            win = 1.0 - v[0]
            cubeless = -(2.0 * v[0] - 1.0 + v[1] + v[2] - v[3] - v[4])
        if better_cubeless(cubeless, win, best_cubeless, best_win):
            best_j, best_cubeless, best_win = j, max(cubeless, best_cubeless), win
    return best_j


@njit(parallel=True, cache=True)
def play_contact_games(moves, mirror, layer_of, rank, loss_size, pieces, throws, cum_probs,
                       max_moves, values, offsets, start, seed, first_game, explore,
                       alternatives, capacity, out, kinds):
    """Games first_game .. first_game + n - 1 (n = len(out) // capacity) from `start`,
    laid out as solver/selfplay.play_games lays them: game i's positions in
    out[i * capacity:], its count returned (-1 if more than `capacity`), kinds 0 for a
    position met and 2 for the result of a move not chosen (with `alternatives`). Each
    game explores at its own rate explore * u, u uniform in [0, 1)."""
    n_games = len(out) // capacity
    counts = np.zeros(n_games, dtype=np.int64)
    for i in prange(n_games):
        key = stream_key(seed, first_game + i)
        next_codes = np.empty(max_moves, dtype=np.int64)
        infos = np.empty(max_moves, dtype=np.int64)
        rate = explore * uniform(key, 0)
        counter = 1
        code = start
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
                    j = best_cubeless_move(layer_of, rank, loss_size, pieces, values,
                                           offsets, next_codes, infos, k)
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
