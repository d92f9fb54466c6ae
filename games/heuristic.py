"""What the hand-made evaluations of the games share: a score in pips (the race,
the risk of being hit, the chances to hit) mapped to a winning chance.

The evaluations themselves (each game module's `heuristic`) are deliberately
simple (a strong club player's rules of thumb, no tuning against the table), to
give the players `heuristic` and `expectimax` something to search over.
"""
import numpy as np
from numba import njit

PIP_SCALE = 0.08          # logistic slope per pip of advantage
TEMPO = 2.0               # pips the player about to throw is ahead by throwing first


@njit(cache=True)
def logistic(score):
    return 1.0 / (1.0 + np.exp(-PIP_SCALE * score))
