"""Legal plays of a backgammon board by GNU Backgammon (the `gnubg` Python module), and
boards to try them on.

gnubg's `findbestmoves(board, cubeinfo, evalcontext, dice)` lists every distinct play
of a roll, each as the (from, to) of its dice in order (1-based points, 25 the bar).
The module ends a play's tuple at its first checker borne off ("to" is gnubg's -1, its
end mark), so a play that bears off before its last die is known only up to there:
such a play is checked to have at least one completion among ours. Every other play is
applied step by step to give the resulting board.
"""
from itertools import permutations

import numpy as np

from tabula.games import get_game
from tabula.games import backgammon_standard
from tabula.games.backgammon import board_of, json_of_board
from tabula.games.backgammon_rules import (BOARD, MAX_BOARDS, PLACES, THEM, plays,
                                           standard_start, workspace)
from tests.reference.backgammon_rules import BAR, single_moves, step

ROLLS = [(high, low) for high in range(1, 7) for low in range(1, high + 1)]
gnubg = None


def _gnubg():
    global gnubg
    if gnubg is None:
        import gnubg as module
        gnubg = module
    return gnubg


def gnubg_board(me, opp):
    """gnubg's board of a state: (the opponent's, the mover's) counts on points 1..24
    and the bar, each in its own numbering."""
    return (list(opp[1:]), list(me[1:]))


def _dice_of(frm, to, roll):
    """The dice a step may have used (a checker borne off from below a die)."""
    if to:
        return [frm - to]
    return sorted({d for d in roll if d == frm or d > frm})


def _completions(me, opp, dice):
    """States after playing `dice` in any order as far as each order goes."""
    found = set()
    for order in set(permutations(dice)):
        frontier = {(me, opp)}
        for d in order:
            frontier = {nxt for s in frontier
                        for nxt in ([step(*s, frm, to) for frm, to in single_moves(*s, d)]
                                    or [s])}
        found |= frontier
    return found


def gnubg_plays(me, opp, high, low):
    """(complete, partial) of gnubg's plays of the roll: the resulting states of plays
    known in full, and for each play that may have been cut at a checker borne off
    (its tuple ends there before every die of the roll is used), the set of states its
    continuations may reach."""
    module = _gnubg()
    roll = [high] * 4 if high == low else [high, low]
    listed = module.findbestmoves(gnubg_board(me, opp), module.cubeinfo(),
                                  module.evalcontext(), (high, low))
    complete, partial = [], []
    for m in listed:
        move = m["move"]
        steps = list(zip(move[0::2], move[1::2])) + ([(move[-1], 0)] if len(move) % 2 else [])
        state = (tuple(me), tuple(opp))
        dice_left = [list(roll)]
        for frm, to in steps:
            state = step(*state, frm, to)
            dice_left = [left[:i] + left[i + 1:] for left in dice_left
                         for d in _dice_of(frm, to, roll) if d in left
                         for i in [left.index(d)]]
        if len(move) % 2 == 0 or len(steps) == len(roll):
            complete.append(state)
        else:
            partial.append(set().union(*(_completions(*state, left) for left in dice_left)))
    return complete, partial


def tabula_plays(me, opp, high, low):
    """The compiled generator's plays, as reference states."""
    board = np.array(list(me) + list(opp), dtype=np.int8)
    out = np.empty((MAX_BOARDS, BOARD), dtype=np.int8)
    n = plays(board, high, low, out, *workspace())
    return {(tuple(int(c) for c in b[:PLACES]), tuple(int(c) for c in b[THEM:]))
            for b in out[:n]}


def game_plays(me, opp, high, low):
    """The plays of the game of the contract (`backgammon` under the rule set that has
    this many checkers: Game.legal_moves on its codes), as reference states."""
    checkers = sum(me)
    game = get_game("backgammon", rules="standard") if checkers == 15 else \
        get_game("backgammon", checkers)
    read = backgammon_standard.board_of if checkers == 15 else board_of
    code = game.position_from_json(json_of_board(np.array(me + opp)))
    found = set()
    for move in game.legal_moves(code, 10 * high + low):
        seen = read(move["position"])            # the opponent's view: swap the sides
        after = [tuple(int(c) for c in seen[first:first + PLACES]) for first in (THEM, 0)]
        found.add(tuple((checkers - sum(side[1:]),) + side[1:] for side in after))
    return found


def agrees_with_gnubg(me, opp, high, low) -> str | None:
    """None when the game's plays of the roll (game_plays) are gnubg's, else what
    differs."""
    ours = game_plays(me, opp, high, low)
    complete, partial = gnubg_plays(me, opp, high, low)
    if len(complete) + len(partial) != len(ours):
        return f"{len(ours)} plays, gnubg {len(complete) + len(partial)}"
    if len(set(complete)) != len(complete):
        return "gnubg lists a resulting position twice"
    missing = [s for s in complete if s not in ours]
    if missing:
        return f"gnubg's play to {missing[0]} is not ours"
    if any(not (reach & ours) for reach in partial):
        return "a play of gnubg's that bears off has no completion among ours"
    return None


def random_side(rng, checkers, places=PLACES):
    """A side's `checkers` on the 26 places (off included), a multiset drawn uniformly."""
    cuts = np.sort(rng.choice(checkers + places - 1, size=places - 1, replace=False))
    counts = np.diff(np.concatenate([[-1], cuts, [checkers + places - 1]])) - 1
    return tuple(int(c) for c in counts)


def uniform_states(rng, checkers, n):
    """n legal states with `checkers` a side, each side's multiset drawn uniformly, pairs
    that share a point or have a side all borne off thrown away."""
    found = []
    while len(found) < n:
        me, opp = random_side(rng, checkers), random_side(rng, checkers)
        if me[0] < checkers and opp[0] < checkers and \
                not any(me[p] and opp[BAR - p] for p in range(1, 25)):
            found.append((me, opp))
    return found


def start_state(checkers):
    """Where a game with `checkers` a side begins, as a state (15: the standard game)."""
    board = (standard_start() if checkers == 15
             else board_of(get_game("backgammon", checkers).start))
    return tuple(int(c) for c in board[:PLACES]), tuple(int(c) for c in board[THEM:])


def sample_states(checkers, n, seed):
    """n states with `checkers` a side: half drawn uniformly, half met in random play."""
    rng = np.random.default_rng(seed)
    return uniform_states(rng, checkers, n // 2) + played_states(rng, start_state(checkers),
                                                               n - n // 2)


def played_states(rng, start, n):
    """n states met in random play from `start` (a new game from the start when one
    ends), every one with the side on roll to move."""
    found = []
    state = start
    while len(found) < n:
        found.append(state)
        high, low = sorted(rng.integers(1, 7, size=2), reverse=True)
        options = sorted(tabula_plays(*state, int(high), int(low)))
        if options:
            me, opp = options[rng.integers(len(options))]
        else:
            me, opp = state
        state = (opp, me) if me[0] < sum(me) else start
    return found
