"""The Royal Game of Ur on Bell's path, plain Python, straight from shared/rules/ur.md
(Finkel's rules by default; the switches of other rule sets as arguments).

A state is (me, me_waiting, opp, opp_waiting) with me/opp frozensets of track
squares 1..14, seen by the player about to throw.
"""
ROSETTES = {4, 8, 14}
SHARED = set(range(5, 13))


def legal_moves(state, throw, safe_rosettes=True, again_on_rosette=True,
                again_on_capture=False):
    """List of (next_state, again, over); next_state seen by whoever throws next."""
    me, me_waiting, opp, opp_waiting = state
    if throw == 0:
        return []
    sources = sorted(me) + ([0] if me_waiting > 0 else [])
    result = []
    for a in sources:
        d = a + throw
        if d > 15:
            continue
        if d <= 14 and d in me:
            continue
        captured = False
        if d in SHARED and d in opp:
            if d == 8 and safe_rosettes:
                continue
            captured = True
        new_me = set(me)
        new_me_waiting = me_waiting
        if a == 0:
            new_me_waiting -= 1
        else:
            new_me.remove(a)
        if d <= 14:
            new_me.add(d)
        new_opp = set(opp)
        new_opp_waiting = opp_waiting
        if captured:
            new_opp.remove(d)
            new_opp_waiting += 1
        again = (again_on_rosette and d in ROSETTES) or (again_on_capture and captured)
        over = d == 15 and not new_me and new_me_waiting == 0
        mine = (frozenset(new_me), new_me_waiting)
        theirs = (frozenset(new_opp), new_opp_waiting)
        if again:
            next_state = mine + theirs
        else:
            next_state = theirs + mine
        result.append((next_state, again, over))
    return result
