"""Hand-made evaluations: a position's winning chance for the player about to throw,
guessed from the race, the risk of being hit and the chances to hit.

These are deliberately simple (a strong club player's rules of thumb, no tuning
against the table), to give the players `heuristic` and `expectimax` something
to search over. Each maps a score in pips to a probability with a logistic.
"""
import numpy as np
from numba import njit, prange

from games import senet, ur

PIP_SCALE = 0.08          # logistic slope per pip of advantage
TEMPO = 2.0               # pips the player about to throw is ahead by throwing first
THROW_P = np.array([0.0, 4 / 16, 6 / 16, 4 / 16, 1 / 16, 1 / 16])  # P(exactly d), Senet
UR_THROW_P = np.array([0.0, 4 / 16, 6 / 16, 4 / 16, 1 / 16])       # P(exactly d), Ur d>0
UR_ROSETTE_BONUS = 4.0    # pips a piece on the central rosette (square 8) is worth


@njit(cache=True)
def _logistic(score):
    return 1.0 / (1.0 + np.exp(-PIP_SCALE * score))


@njit(cache=True)
def _ur_pips(track, waiting):
    total = 15 * waiting
    for s in range(1, 15):
        if (track >> (s - 1)) & 1:
            total += 15 - s
    return total


@njit(cache=True)
def _ur_exposure(target, attackers, attackers_waiting, probs):
    """Expected pips `target`'s side loses to one throw of the attacking side: a piece
    on a shared square other than 8 is sent home by an attacker 1..4 squares behind."""
    loss = 0.0
    for d in range(5, 13):
        if d == 8 or not (target >> (d - 1)) & 1:
            continue
        miss = 1.0
        for k in range(1, 5):
            s = d - k
            if s == 0:
                hit = attackers_waiting > 0
            else:
                hit = (attackers >> (s - 1)) & 1
            if hit:
                miss *= 1.0 - probs[k]
        loss += (1.0 - miss) * d
    return loss


@njit(cache=True)
def ur_heuristic(code):
    me = code & 0x3FFF
    opp = (code >> 14) & 0x3FFF
    me_waiting = (code >> 28) & 7
    opp_waiting = (code >> 31) & 7
    score = _ur_pips(opp, opp_waiting) - _ur_pips(me, me_waiting) + TEMPO
    score += _ur_exposure(opp, me, me_waiting, UR_THROW_P)        # I throw next
    score -= 0.5 * _ur_exposure(me, opp, opp_waiting, UR_THROW_P)  # they throw after
    if (me >> 7) & 1:
        score += UR_ROSETTE_BONUS
    if (opp >> 7) & 1:
        score -= UR_ROSETTE_BONUS
    return _logistic(score)


@njit(cache=True)
def _senet_pips(board):
    total = 0
    for s in range(1, 31):
        if (board >> (s - 1)) & 1:
            total += 31 - s
    return total


@njit(cache=True)
def _senet_exposure(target, attackers, probs):
    """Expected pips lost to one throw: an unprotected piece below 26 is swapped back
    by an attacker 1..5 squares behind it."""
    protected = target & ((target << 1) | (target >> 1))
    loss = 0.0
    for d in range(2, 26):
        if not (target >> (d - 1)) & 1 or (protected >> (d - 1)) & 1:
            continue
        miss = 1.0
        for k in range(1, 6):
            s = d - k
            if s >= 1 and (attackers >> (s - 1)) & 1:
                miss *= 1.0 - probs[k]
        loss += (1.0 - miss) * k_distance(d, attackers)
    return loss


@njit(cache=True)
def k_distance(d, attackers):
    """Pips a piece on d loses when swapped with the nearest attacker behind it."""
    for k in range(1, 6):
        if d - k >= 1 and (attackers >> (d - k - 1)) & 1:
            return k
    return 0


@njit(cache=True)
def senet_heuristic(code):
    me = code & 0x3FFFFFFF
    opp = (code >> 30) & 0x3FFFFFFF
    score = _senet_pips(opp) - _senet_pips(me) + TEMPO
    score += _senet_exposure(opp, me, THROW_P)
    score -= 0.5 * _senet_exposure(me, opp, THROW_P)
    return _logistic(score)


HEURISTICS = {ur.NAME: ur_heuristic, senet.NAME: senet_heuristic}


@njit(parallel=True, cache=True)
def evaluate_many(heuristic, codes):
    out = np.empty(len(codes))
    for i in prange(len(codes)):
        out[i] = heuristic(codes[i])
    return out
