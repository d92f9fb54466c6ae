"""The Royal Game of Ur, plain Python, straight from shared/rules/ur.md (Finkel's rules
by default; the path and the switches of other rule sets as arguments).

A state is (me, me_waiting, opp, opp_waiting) with me/opp frozensets of track
squares 1..T, seen by the player about to throw.

The paths, written out by hand from royalur's path pairs: each side's track, its
squares shared with the other side's track (with the other track's number of the
same tile) and its rosettes.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Path:
    track: int
    other_square: dict     # shared square -> the other track's square on that tile
    rosettes: frozenset


BELL = Path(14, {s: s for s in range(5, 13)}, frozenset({4, 8, 14}))
# Masters': 1..4 own row, 5..11 the middle row, 12, 13 the other side's row, 14 the
# middle row's last tile, 15, 16 back on the own row (the other side's 13, 12)
MASTERS = Path(16, {**{s: s for s in range(5, 12)}, 12: 16, 13: 15, 14: 14, 15: 13, 16: 12},
               frozenset({4, 8, 12, 16}))
PATHS = {"bell": BELL, "masters": MASTERS}


def legal_moves(state, throw, path="bell", safe_rosettes=True, again_on_rosette=True,
                again_on_capture=False):
    """List of (next_state, again, over); next_state seen by whoever throws next."""
    path = PATHS[path]
    off = path.track + 1
    me, me_waiting, opp, opp_waiting = state
    if throw == 0:
        return []
    sources = sorted(me) + ([0] if me_waiting > 0 else [])
    result = []
    for a in sources:
        d = a + throw
        if d > off:
            continue
        if d < off and d in me:
            continue
        hit = path.other_square.get(d)
        captured = hit in opp
        if captured and d in path.rosettes and safe_rosettes:
            continue
        new_me = set(me)
        new_me_waiting = me_waiting
        if a == 0:
            new_me_waiting -= 1
        else:
            new_me.remove(a)
        if d < off:
            new_me.add(d)
        new_opp = set(opp)
        new_opp_waiting = opp_waiting
        if captured:
            new_opp.remove(hit)
            new_opp_waiting += 1
        again = (again_on_rosette and d in path.rosettes) or (again_on_capture and captured)
        over = d == off and not new_me and new_me_waiting == 0
        mine = (frozenset(new_me), new_me_waiting)
        theirs = (frozenset(new_opp), new_opp_waiting)
        if again:
            next_state = mine + theirs
        else:
            next_state = theirs + mine
        result.append((next_state, again, over))
    return result


def rule_switches(rules) -> dict:
    """The keyword arguments of legal_moves for a rule set (games/ur.py's UrRules)."""
    return {"path": rules.path, "safe_rosettes": rules.safe_rosettes,
            "again_on_rosette": rules.again_on_rosette, "again_on_capture": rules.again_on_capture}
