"""Games of races whose sides never meet (race tables), compiled: each game starts
from a random position with `pieces` checkers a side (each side a composition drawn
uniformly) and both sides play the move with the best cubeless winning chance, or,
at rate explore * u_g, a random one. Game g draws from its own stream (infra.rng),
as in selfplay.py."""
import numpy as np
from numba import njit, prange

from tabula.infra.rng import below, draw_throw, stream_key, uniform


@njit(parallel=True, cache=True)
def play_race_games(side_moves, side_index, side_of_index, side_bits, first_side, n_sides,
                    win, throws, cum_probs, max_moves, seed, first_game, explore, capacity,
                    out):
    """Like selfplay.play_games: game i writes the positions met to out[i * capacity:]
    and returns their count (-1 if more than `capacity`). win[i, j]: the cubeless
    winning chance of side index i on roll against j."""
    n_games = len(out) // capacity
    counts = np.zeros(n_games, dtype=np.int64)
    for g in prange(n_games):
        key = stream_key(seed, first_game + g)
        after = np.empty(max_moves, dtype=np.int64)
        rate = explore * uniform(key, 0)
        me = side_of_index(first_side + below(key, 1, n_sides - first_side))
        opp = side_of_index(first_side + below(key, 2, n_sides - first_side))
        counter = 3
        n = 0
        while True:
            if n == capacity:
                n = -1
                break
            out[g * capacity + n] = me | (opp << side_bits)
            n += 1
            k = side_moves(me, draw_throw(throws, cum_probs, key, counter), after)
            if k > 1 and uniform(key, counter + 1) < rate:
                j = below(key, counter + 2, k)
            else:
                j = 0
                best = -1.0
                o = side_index(opp)
                for m in range(k):
                    chance = 1.0 if after[m] == 0 else 1.0 - win[o, side_index(after[m])]
                    if chance > best:
                        best, j = chance, m
            counter += 3
            if after[j] == 0:
                break
            me, opp = opp, after[j]
        counts[g] = n
    return counts
