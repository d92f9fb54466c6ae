"""The chance of a hit, for the hypergammon network's inputs (games/backgammon.py
features): for each blot of a side, the share of the 36 rolls with which the other
side, on roll, can hit it, the share with which it can hit at least one, and the share
with which it can hit two in one play, with the point the blots' side holds in the way
and the bar entered first. Whether another play would have to use more dice is not
asked (a hit that rule forbids is rare: 22 of 20,000 uniform positions).

Written with tensor methods only, as games/features.py asks, so that the exported
graph computes it from the codes. A roll set is a 21-bit mask (bit r: ROLLS[r]); what a
hitter can do is looked up in constant tables built here from the rules, and a test
compares the result with a plain search over every order of the dice
(tests/reference/backgammon_rules.py hit_chances, double_hit_chance).
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
PAIRS = [(i, j) for i in range(3) for j in range(3) if i != j]   # two of three, in order
FIRST, SECOND = [i for i, _ in PAIRS], [j for _, j in PAIRS]


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


# PAIR_ROLLS[a][b]: the roll of two different dice a and b (0: none); DOUBLES_ENTER[held]:
# the doubles whose die enters from the bar past a point `held` pips from it (0: none).
PAIR_ROLLS = [[_rolls(lambda high, low: {high, low} == {a, b}) if a != b else 0
               for b in range(PLACES_AND_NONE)] for a in range(PLACES_AND_NONE)]
DOUBLES_ENTER = [_rolls(lambda high, low: high == low and high != held)
                 for held in range(PLACES_AND_NONE)]


def shot_tables(codes):
    """HIT_ROLLS, BAR_FIRST, PAIR_ROLLS and DOUBLES_ENTER as flat int32 tensors beside
    codes (made once per batch, so that the graph holds each once)."""
    return tuple(codes.new_tensor(table).int().flatten()
                 for table in (HIT_ROLLS, BAR_FIRST, PAIR_ROLLS, DOUBLES_ENTER))


def chance_of(masks):
    """The chance of a roll in each mask: masks (...) to floats (...)."""
    return weighted_sum(bit_planes(masks, 0, len(ROLLS)), PROBS.tolist()).squeeze(-1)


def hit_chances(side, other, tables):
    """For checkers `side` and hitters `other`, (n, 3) places each in its own numbering
    (0: borne off; 25: the bar): the chance that the other side, on roll, can hit each
    of side's checkers ((n, 3); 0 where it is not a blot on a point) and at least one
    of them ((n, 1)). tables: shot_tables. With three checkers, a side with a blot holds
    one point at most: the only one in the way."""
    hit_rolls, bar_first = tables[:2]
    blot, held = _blots(side)
    on_bar = (other == BAR).long()
    kind = on_bar * 4 + on_bar.sum(dim=1, keepdim=True)                    # (n, hitters)
    classes = side.new_tensor(list(range(CLASSES)))
    allowed = _look(bar_first, (kind.unsqueeze(2) * CLASSES + classes) * PLACES_AND_NONE
                    + held.unsqueeze(2))                            # (n, hitters, classes)
    distance, reach, stop = _paths(side, other, blot, held)
    rolls = _class_rolls(hit_rolls, classes, distance, stop) \
        .bitwise_and(allowed.unsqueeze(2)).sum(dim=3) * reach.int()
    each = _or(rolls, 1)                                                  # (n, checkers)
    return chance_of(each), chance_of(_or(each, 1)).unsqueeze(1)


def double_hit_chance(side, other, tables):
    """The chance that the other side, on roll, can hit two of side's checkers in one
    play ((n, 1)), arguments as hit_chances. Two blots fall to two different checkers
    (one die each, or a double's steps shared out) or to one checker that hits the
    first on its way to the second; checkers on the bar enter first, a double's step
    each (the point the blots' side holds may close the entry to all of them)."""
    import torch  # only when features are computed: the rules need no torch
    hit_rolls, _, pair_rolls, doubles_enter = tables
    blot, held = _blots(side)
    distance, reach, stop = _paths(side, other, blot, held)
    gone = distance.clamp(min=0)                                  # (n, hitter X, blot A)
    steps = (_class_rolls(hit_rolls, side.new_tensor([DOUBLE_STEPS + k for k in range(4)]),
                          distance, stop) * reach.int().unsqueeze(3)).unbind(3)   # k + 1 steps
    on_bar = (other == BAR).long()
    bar_count = on_bar.sum(dim=1, keepdim=True)
    entry = _look(doubles_enter, held)                            # (n, 1)
    first, second = side.new_tensor(FIRST), side.new_tensor(SECOND)

    # two checkers X != Y hit blots A != B: (n, pairs of hitters, pairs of blots)
    def of_pairs(t, which):
        return t.index_select(1, which).index_select(2, which)
    entering = (on_bar.index_select(1, first)
                + on_bar.index_select(1, second)).unsqueeze(2)   # (n, hitter pairs, 1)
    others = bar_count.unsqueeze(2) - entering                    # the bar's others enter first
    reach_both = of_pairs(reach, first) & of_pairs(reach, second)
    dice = _look(pair_rolls, of_pairs(gone, first) * PLACES_AND_NONE + of_pairs(gone, second)) \
        * (reach_both & (entering >= bar_count.clamp(max=2).unsqueeze(2))).int()
    within = [torch.zeros_like(steps[0])]                         # within[k]: k steps or fewer
    for k in range(3):
        within.append(within[-1].bitwise_or(steps[k]))
    within_second = torch.stack([of_pairs(w, second) for w in within], dim=3)
    doubled = 0
    for k in range(1, 4):      # X goes k steps, Y what the budget leaves
        left = (4 - others - k).clamp(min=0, max=3).expand(-1, -1, len(FIRST)).unsqueeze(3)
        doubled = of_pairs(steps[k - 1], first).bitwise_and(
            within_second.gather(3, left).squeeze(3)).bitwise_or(doubled)
    doubled = doubled.bitwise_and(torch.where(others > 0, entry.unsqueeze(2), ALL_ROLLS))
    hits = _or(_or(dice.bitwise_or(doubled), 2), 1)

    # one checker X hits A on its way to B: (n, X, pairs of blots)
    to_a, to_b = gone.index_select(2, first), gone.index_select(2, second)
    moves_alone = (bar_count == 0) | ((bar_count == 1) & (on_bar == 1))   # (n, X)
    path = _look(pair_rolls, to_a * PLACES_AND_NONE + (to_b - to_a).clamp(min=0, max=BAR)) \
        * (reach.index_select(2, first) & reach.index_select(2, second) & (to_b > to_a)
           & moves_alone.unsqueeze(2)).int()
    own = bar_count - on_bar                                      # (n, X) others on the bar
    own_entry = torch.where(own > 0, entry, ALL_ROLLS).unsqueeze(2)
    to_a_steps = [s.index_select(2, first) for s in steps]        # (n, X, pairs of blots)
    to_b_steps = [s.index_select(2, second) for s in steps]
    for k_a in range(1, 4):
        for k_b in range(k_a + 1, 5):
            ways = to_a_steps[k_a - 1].bitwise_and(to_b_steps[k_b - 1])
            path = path.bitwise_or(ways.bitwise_and(own_entry)
                                   * (own <= 4 - k_b).int().unsqueeze(2))
    return chance_of(hits.bitwise_or(_or(_or(path, 2), 1))).unsqueeze(1)


def _blots(side):
    """Which of side's checkers (n, 3) are blots on a point, and the point it holds
    ((n, 1), 0 for none): with three checkers, a side with a blot holds one point at
    most."""
    alone = (side.unsqueeze(2) == side.unsqueeze(1)).long().sum(dim=2) == 1
    on_point = (side >= 1) & (side < BAR)
    held = (side * (~alone & on_point).long()).amax(dim=1, keepdim=True)    # 0: none
    return alone & on_point, held


def _paths(side, other, blot, held):
    """From each hitter to each of side's checkers (n, hitters, checkers): the pips
    between them, whether the hitter is in play and the checker a blot ahead of it,
    and (n, hitters) the pips from the hitter to the held point (0: none or behind)."""
    stop = (other + held - BAR).clamp(min=0) * (held > 0).long()
    distance = other.unsqueeze(2) + side.unsqueeze(1) - BAR
    reach = (distance >= 1) & blot.unsqueeze(1) & (other >= 1).unsqueeze(2)
    return distance, reach, stop


def _class_rolls(hit_rolls, classes, distance, stop):
    """HIT_ROLLS of each class in `classes` for each hitter and checker: (n, hitters,
    checkers, classes); distance and stop as _paths gives them."""
    return _look(hit_rolls, (classes * PLACES_AND_NONE + distance.clamp(min=0).unsqueeze(3))
                 * PLACES_AND_NONE + stop.view(-1, 3, 1, 1))


def _look(table, index):
    """table[index] for a flat constant table (a gather, faster than indexing)."""
    return table.index_select(0, index.reshape(-1)).view(index.shape)


def _or(masks, dim):
    """The bitwise or of roll masks along a dimension."""
    parts = masks.unbind(dim)
    result = parts[0]
    for part in parts[1:]:
        result = result.bitwise_or(part)
    return result
