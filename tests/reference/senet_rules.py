"""Senet (kendall), plain Python, straight from shared/rules/senet.md.

A state is (me, opp), frozensets of squares 1..30, seen by the player about to throw.
"""


def _protected(square, opp):
    return square in opp and (square - 1 in opp or square + 1 in opp)


def _blockade_squares(opp):
    squares = set()
    for s in opp:
        if s + 1 in opp and s + 2 in opp:
            squares |= {s, s + 1, s + 2}
    return squares


def _passes_blockade(lo, hi, opp):
    return any(s in _blockade_squares(opp) for s in range(lo + 1, hi))


def _land(me, opp, a, d):
    """Rules 7-9 for a piece from a to square d; None if illegal."""
    if d in me:
        return None
    if d in opp:
        if _protected(d, opp):
            return None
        return (me - {a}) | {d}, (opp - {d}) | {a}
    return (me - {a}) | {d}, opp


def _forward(me, opp, a, t):
    if a in (28, 29, 30):
        if a + t == 31:
            return me - {a}, opp
        return None
    d = a + t
    if a < 26 and d > 26:
        return None
    if _passes_blockade(a, d, opp):
        return None
    if d == 31:
        return me - {a}, opp
    if d == 27:
        target = 15
        while target in me or target in opp:
            target -= 1
        return (me - {a}) | {target}, opp
    return _land(me, opp, a, d)


def _backward(me, opp, a, t):
    if a > 26:
        return None
    d = a - t
    if d < 1 or _passes_blockade(d, a, opp):
        return None
    return _land(me, opp, a, d)


def legal_moves(state, throw):
    """List of (next_state, again, over); next_state seen by whoever throws next."""
    me, opp = state
    results = [r for a in sorted(me) if (r := _forward(me, opp, a, throw)) is not None]
    if not results:
        results = [r for a in sorted(me) if (r := _backward(me, opp, a, throw)) is not None]
    moves = []
    for new_me, new_opp in results:
        over = not new_me
        again = throw in (1, 4, 5) and not over
        if again:
            next_state = (frozenset(new_me), frozenset(new_opp))
        else:
            next_state = (frozenset(new_opp), frozenset(new_me))
        moves.append((next_state, again, over))
    return moves
