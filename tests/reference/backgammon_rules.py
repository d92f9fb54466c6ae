"""Backgammon's checker play, plain Python, straight from shared/rules/backgammon.md.

A state is (me, opp): two tuples of 26 counts (0 borne off, 1..24 the side's points in
its own numbering, 25 the bar), seen by the side on roll. Every order of the dice is
tried in full, one checker at a time, and the rules on how many dice to play are
applied to the finished plays (a different algorithm from games/backgammon_rules.py,
which keeps distinct boards after every die).
"""
from itertools import permutations

BAR = 25


def step(me, opp, frm, to):
    """The state after moving one checker from `frm` to `to` (0: off), hitting a lone
    opposing checker there."""
    me, opp = list(me), list(opp)
    me[frm] -= 1
    me[to] += 1
    if to and opp[BAR - to] == 1:
        opp[BAR - to] = 0
        opp[BAR] += 1
    return tuple(me), tuple(opp)


def single_moves(me, opp, die):
    """Every (frm, to) one checker may play with one die."""
    found = []
    sources = [BAR] if me[BAR] else [p for p in range(1, 25) if me[p]]
    home = not any(me[7:])
    for frm in sources:
        to = frm - die
        if to >= 1:
            if opp[BAR - to] < 2:
                found.append((frm, to))
        elif home and (to == 0 or not any(me[frm + 1:25])):
            found.append((frm, 0))
    return found


def _paths(me, opp, dice, played):
    """(dice played, first die, final state) of every way to play `dice` in order as
    far as it goes."""
    moves = single_moves(me, opp, dice[0]) if dice else []
    if not moves:
        return [(len(played), played[0] if played else None, (me, opp))]
    out = []
    for frm, to in moves:
        out += _paths(*step(me, opp, frm, to), dice[1:], played + [dice[0]])
    return out


def plays(me, opp, high, low):
    """The distinct states the roll high-low leads to (empty: the side passes)."""
    orders = [(high,) * 4] if high == low else set(permutations((high, low)))
    paths = [p for order in orders for p in _paths(tuple(me), tuple(opp), list(order), [])]
    most = max(n for n, _, _ in paths)
    if most == 0:
        return set()
    best = [p for p in paths if p[0] == most]
    if most == 1 and high != low and any(first == high for _, first, _ in best):
        best = [p for p in best if p[1] == high]
    return {state for _, _, state in best}


def _reached(me, opp, dice):
    """Every state met while playing `dice` in order, one checker at a time, stopping
    anywhere (how many dice must be played is not asked)."""
    found = [(me, opp)]
    for frm, to in single_moves(me, opp, dice[0]) if dice else []:
        found += _reached(*step(me, opp, frm, to), dice[1:])
    return found


def reached_by_roll(me, opp):
    """For each of the 36 rolls (a non-double twice, once in each order), every state
    me, on roll, meets in some part of a play of it (_reached, in both orders)."""
    for high in range(1, 7):
        for low in range(1, 7):
            orders = [(high,) * 4] if high == low else [(high, low), (low, high)]
            yield [s for order in orders for s in _reached(tuple(me), tuple(opp), order)]


def hit_chances(me, opp):
    """({point: chance} for each of opp's blots, the chance of hitting any): the share
    of the 36 rolls with which me, on roll, can hit it in some part of a play."""
    blots = [p for p in range(1, BAR) if opp[p] == 1]
    chances, any_hit = dict.fromkeys(blots, 0.0), 0.0
    for reached in reached_by_roll(me, opp):
        hit = [p for p in blots if any(after[p] == 0 for _, after in reached)]
        for p in hit:
            chances[p] += 1 / 36
        any_hit += bool(hit) / 36
    return chances, any_hit


def double_hit_chance(me, opp):
    """The share of the 36 rolls with which me, on roll, can hit two of opp's checkers
    in some part of a play (as hit_chances: how many dice must be played not asked)."""
    return sum(any(after[BAR] - opp[BAR] >= 2 for _, after in reached)
               for reached in reached_by_roll(me, opp)) / 36


def best_hit_pips(me, opp):
    """The pips me, on roll, sends opp's checkers back by its best hit (the most among
    the states met in some part of a play), averaged over the 36 rolls: a checker hit
    on opp's point p goes back 25 - p pips."""
    return sum(max(sum((BAR - p) * max(opp[p] - after[p], 0) for p in range(1, BAR))
                   for _, after in reached) for reached in reached_by_roll(me, opp)) / 36


def point_on_blot_chance(me, opp):
    """The share of the 36 rolls with which me, on roll, can hit one of opp's blots and
    end with two or more checkers on its point (in some part of a play, as
    hit_chances): a hit with no return shot at the checker that made it."""
    blots = [p for p in range(1, BAR) if opp[p] == 1]
    return sum(any(after[p] == 0 and mine[BAR - p] >= 2 for mine, after in reached
                   for p in blots) for reached in reached_by_roll(me, opp)) / 36
