"""The chance of a hit, for the hypergammon network's inputs (games/backgammon.py
features): for each blot of a side, the share of the 36 rolls with which the other
side, on roll, can hit it, and the share with which it can hit at least one, with the
point the blots' side holds in the way and the bar entered first. Whether another play
would have to use more dice is not asked (a hit that rule forbids is rare: 22 of
20,000 uniform positions).

Written with tensor methods only, as games/features.py asks, so that the exported
graph computes it from the codes. A roll set is a 21-bit mask (bit r: ROLLS[r]); what a
hitter can do is looked up in two constant tables built here from the rules, and a
test compares the result with a plain search over every order of the dice
(tests/reference/backgammon_rules.py hit_chances).
"""
from .backgammon_rules import BAR, PROBS, THROWS
from .features import bit_planes, weighted_sum

ROLLS = [(int(throw) // 10, int(throw) % 10) for throw in THROWS]   # (high, low)
ALL_ROLLS = (1 << len(ROLLS)) - 1
# A checker's ways to go with a roll, in classes: one die of two different dice, the
# higher or the lower; both of them; a double's die once, twice, three or four times.
# For a given distance, a roll hits in one class at most, so a hitter's rolls are the
# sum of its classes' masks.
HIGH_DIE, LOW_DIE, BOTH_DICE, DOUBLE_STEPS = 0, 1, 2, 3
CLASSES = 7
PLACES_AND_NONE = BAR + 1   # a distance or a held point's pips: 1..25, 0 for none


def _class_paths(cls, high, low):
    """The paths of a class with a roll, each as the pips gone after each step."""
    if high == low:
        return [[high * k for k in range(1, cls - DOUBLE_STEPS + 2)]] \
            if cls >= DOUBLE_STEPS else []
    return {HIGH_DIE: [[high]], LOW_DIE: [[low]],
            BOTH_DICE: [[high, high + low], [low, high + low]]}.get(cls, [])


def _rolls(keep) -> int:
    """The mask of the rolls for which keep(high, low) holds."""
    return sum(1 << r for r, (high, low) in enumerate(ROLLS) if keep(high, low))


def _hit_rolls(cls, distance, held):
    """The rolls with which a checker hits one `distance` pips away by a path of class
    cls, when a point `held` pips away (0: none) stops the paths that land on it."""
    return _rolls(lambda high, low: any(path[-1] == distance and held not in path[:-1]
                                        for path in _class_paths(cls, high, low)))


def _bar_first(on_bar, bar_count, cls, held):
    """The rolls with which a hitter may go a path of class cls when its side has
    bar_count checkers on the bar (on_bar: the hitter is one of them) and the point
    `held` pips from the bar (0: none) is closed to an entering checker. A double
    enters every checker on the bar, one step each, and the steps left move anyone;
    two different dice enter two checkers, or one checker with one die while the
    other die moves any checker."""
    if bar_count == 0:
        return ALL_ROLLS
    if cls >= DOUBLE_STEPS:
        steps = cls - DOUBLE_STEPS + 1
        return _rolls(lambda high, low: high != held) if steps <= 4 - bar_count + on_bar \
            else 0
    if on_bar:
        return ALL_ROLLS if bar_count == 1 or cls != BOTH_DICE else 0
    if bar_count > 1 or cls == BOTH_DICE:
        return 0
    # one checker on the bar enters with the other die
    return _rolls(lambda high, low: (low if cls == HIGH_DIE else high) != held)


HIT_ROLLS = [[[_hit_rolls(cls, distance, held) for held in range(PLACES_AND_NONE)]
              for distance in range(PLACES_AND_NONE)] for cls in range(CLASSES)]
BAR_FIRST = [[[[_bar_first(on_bar, bar_count, cls, held) for held in range(PLACES_AND_NONE)]
               for cls in range(CLASSES)] for bar_count in range(4)] for on_bar in (0, 1)]


def shot_tables(codes):
    """HIT_ROLLS and BAR_FIRST as flat int32 tensors beside codes (made once per batch,
    so that the graph holds each once)."""
    return (codes.new_tensor(HIT_ROLLS).int().flatten(),
            codes.new_tensor(BAR_FIRST).int().flatten())


def chance_of(masks):
    """The chance of a roll in each mask: masks (...) to floats (...)."""
    return weighted_sum(bit_planes(masks, 0, len(ROLLS)), PROBS.tolist()).squeeze(-1)


def hit_chances(side, other, tables):
    """For checkers `side` and hitters `other`, (n, 3) places each in its own numbering
    (0: borne off; 25: the bar): the chance that the other side, on roll, can hit each
    of side's checkers ((n, 3); 0 where it is not a blot on a point) and at least one
    of them ((n, 1)). tables: shot_tables. With three checkers, a side with a blot holds
    one point at most: the only one in the way."""
    hit_rolls, bar_first = tables
    alone = (side.unsqueeze(2) == side.unsqueeze(1)).long().sum(dim=2) == 1
    on_point = (side >= 1) & (side < BAR)
    blot = alone & on_point
    held = (side * (~alone & on_point).long()).amax(dim=1, keepdim=True)    # 0: none
    on_bar = (other == BAR).long()
    kind = on_bar * 4 + on_bar.sum(dim=1, keepdim=True)                    # (n, hitters)
    classes = side.new_tensor(list(range(CLASSES)))
    allowed = bar_first[(kind.unsqueeze(2) * CLASSES + classes) * PLACES_AND_NONE
                        + held.unsqueeze(2)]                        # (n, hitters, classes)
    stop = (other + held - BAR).clamp(min=0) * (held > 0).long()   # pips to the held point
    distance = other.unsqueeze(2) + side.unsqueeze(1) - BAR        # (n, hitters, checkers)
    reach = (distance >= 1) & blot.unsqueeze(1) & (other >= 1).unsqueeze(2)
    index = (classes * PLACES_AND_NONE + distance.clamp(min=0).unsqueeze(3)) \
        * PLACES_AND_NONE + stop.view(-1, 3, 1, 1)
    rolls = hit_rolls[index].bitwise_and(allowed.unsqueeze(2)).sum(dim=3) * reach.int()
    each = rolls[:, 0].bitwise_or(rolls[:, 1]).bitwise_or(rolls[:, 2])    # (n, checkers)
    any_hit = each[:, 0].bitwise_or(each[:, 1]).bitwise_or(each[:, 2])
    return chance_of(each), chance_of(any_hit).unsqueeze(1)
