"""Backgammon with contact, rule set `hyper` (docs/rules/backgammon.md): hypergammon,
1 to 3 checkers a side starting on the side's 24-, 23- and 22-points (the first N, as
GNU Backgammon plays it), the full rules (games/backgammon_rules.py), gammons and
backgammons, and the doubling cube.

Packed code (int64), seen by the player about to throw:
  bits  0..14  mover's checkers: 5 bits each, the place of each checker (0 borne
               off, 1..24 its point in its own numbering, 25 the bar), highest first
  bits 15..29  opponent's checkers, the same way in its own numbering
Layer (a, b) = checkers still in play (not borne off) of mover and opponent. Inside a
layer, positions are ordered by k, the number of points the mover holds; then by the
colex rank of those k points, times C(a, k) arrangements of the mover's other a - k
checkers over those points and the bar (a multiset); then by the opponent's b
checkers over the 25 - k places left to it (its bar and the points the mover does not
hold), a multiset. A multiset's rank is the colex rank of {c_i + i} for its sorted bin
numbers c_i. A throw is two dice written as one number, the higher die first (6-1 is
61).
"""
# (The docstring above is the rule set's code layout, which shipped models carry. The
# game's other rule set, `standard`, fifteen checkers a side, is
# games/backgammon_standard.py; both read positions in the JSON form and gnubg's
# position IDs here, counts_of_json, and score a loss by loss_of.)
from functools import partial

import numpy as np
from numba import njit

from .backgammon_rules import BAR, BOARD, HOME, OFF, PLACES, PROBS, THEM, THROWS, plays
from .combinatorics import BINOM, colex_rank, colex_unrank, popcount
from .cube import Cube
from .backgammon_shots import double_hit_chance, hit_chances, shot_tables
from .features import concat, field, one_hot
from .gnubg_id import board_of_id, position_id
from .game import (LAYER_STRIDE, OVER, Capabilities, Encoding, Flag, Game,
                   PositionError, bear_off_successors, check_json_object)
from .heuristic import TEMPO, logistic

NAME = "backgammon"
RULES = "hyper"
RULE_SETS = {"hyper": "hyper", "standard": "standard"}   # (games/backgammon_standard.py)
FLAGS = (Flag("checkers", "pieces", "checkers a side (backgammon: hypergammon's 1..3; the "
                                    "standard game's 15)"),)
SLOTS = 3              # hypergammon's checkers a side, at most
MAX_PIECES = 15        # the standard game's
DEFAULT_PIECES = 3
POINTS = 24
SLOT_BITS = 5
SLOT_MASK = (1 << SLOT_BITS) - 1
SIDE_BITS = SLOT_BITS * SLOTS
SIDE_MASK = (1 << SIDE_BITS) - 1
START_POINTS = (24, 23, 22)
MAX_MOVES = 64         # distinct results of one roll with 3 checkers (the tests check)
SCRATCH = 64           # boards kept at one step of a roll's play (3 checkers: < 50)
CAPABILITIES = Capabilities(has_gammons=True)


# ---------------------------------------------------------------- codes and boards

@njit(cache=True)
def mirror(code):
    return (code >> SIDE_BITS) | ((code & SIDE_MASK) << SIDE_BITS)


@njit(cache=True)
def checkers_in_play(side):
    n = 0
    for i in range(SLOTS):
        if (side >> (SLOT_BITS * i)) & SLOT_MASK:
            n += 1
    return n


@njit(cache=True)
def layer_of(code):
    return checkers_in_play(code & SIDE_MASK) * LAYER_STRIDE + checkers_in_play(code >> SIDE_BITS)


@njit(cache=True)
def side_counts_into(side, board, first):
    """Add a packed side's checkers to board[first + place] (its 26 places)."""
    for i in range(SLOTS):
        place = (side >> (SLOT_BITS * i)) & SLOT_MASK
        if place:
            board[first + place] += 1


@njit(cache=True)
def side_of_counts(board, first):
    """The packed side of board[first:first + 26] (its checkers off are not stored)."""
    side = 0
    slot = 0
    for place in range(BAR, 0, -1):
        for _ in range(board[first + place]):
            side |= place << (SLOT_BITS * slot)
            slot += 1
    return side


@njit(cache=True)
def board_of_code(code, board):
    board[:] = 0
    side_counts_into(code & SIDE_MASK, board, 0)
    side_counts_into(code >> SIDE_BITS, board, THEM)


@njit(cache=True)
def code_of_board(board):
    """The code of a board seen by its side on roll."""
    return side_of_counts(board, 0) | (side_of_counts(board, THEM) << SIDE_BITS)


@njit(cache=True)
def label(board, after):
    """from = the highest place that lost a checker, to = the lowest that gained one
    (0: off): only a label for people, the move is its resulting position."""
    frm = 0
    to = 0
    for p in range(BAR, 0, -1):
        if after[p] < board[p]:
            frm = p
            break
    for p in range(0, BAR + 1):
        if after[p] > board[p]:
            to = p
            break
    return frm | (to << 5)


@njit(cache=True)
def plays_and_infos(board, throw, rows, out_info):
    """(boards, n): the n distinct plays of `throw` from the mover's `board` (the first
    n rows of boards), each play's info written to out_info: what `moves` of either
    rule set encodes. rows: room for the boards of one step of a roll's play."""
    room = np.empty((4, rows, BOARD), dtype=np.int8)   # the plays, then room to work
    keys = np.empty((4, rows), dtype=np.int64)
    n = plays(board, throw // 10, throw % 10, room[0], room[1:], keys)
    if n > len(out_info):
        raise ValueError("more plays than the room given to a roll's moves")
    in_play = 0
    for place in range(1, PLACES):
        in_play += board[place]
    for i in range(n):
        out_info[i] = label(board, room[0, i])
        if room[0, i, OFF] - board[OFF] == in_play:
            out_info[i] |= OVER
    return room[0], n


@njit(cache=True)
def moves(code, throw, out_codes, out_info):
    board = np.zeros(BOARD, dtype=np.int8)
    board_of_code(code, board)
    after, n = plays_and_infos(board, throw, SCRATCH, out_info)
    for i in range(n):
        out_codes[i] = mirror(code_of_board(after[i]))
    return n


# ------------------------------------------------------------ ranks inside a layer

@njit(cache=True)
def multisets(bins, items):
    """Multisets of `items` over `bins`: C(bins + items - 1, items)."""
    if items == 0:
        return 1
    return BINOM[bins + items - 1, items]


@njit(cache=True)
def _multiset_unrank(r, m, bins, out):
    """The m sorted bin numbers of the multiset of rank r over `bins` bins."""
    mask = colex_unrank(r, m, bins + m - 1)
    i = 0
    for cell in range(bins + m - 1):
        if (mask >> cell) & 1:
            out[i] = cell - i
            i += 1


@njit(cache=True)
def _block(k, a, b):
    """Positions of layer (a, b) where the mover holds exactly k points."""
    return BINOM[POINTS, k] * BINOM[a, k] * multisets(POINTS + 1 - k, b)


@njit(cache=True)
def rank(code):
    """The rank inside the layer (see the top), read from the code's slots, which hold
    each side's places highest first: the first checker on a point holds it, the others
    there and those on the bar are the mover's multiset; the multisets' bins come out
    highest first, so the i-th from the top of m goes to cell bin + m - 1 - i."""
    me = code & SIDE_MASK
    opp = code >> SIDE_BITS
    a = checkers_in_play(me)
    b = checkers_in_play(opp)
    held = 0
    for i in range(a):
        place = (me >> (SLOT_BITS * i)) & SLOT_MASK
        if place < BAR:
            held |= 1 << (place - 1)
    k = popcount(held)
    extra = 0                    # the mover's multiset: a - k checkers over k points + bar
    seen = 0
    previous = 0
    for i in range(a):
        place = (me >> (SLOT_BITS * i)) & SLOT_MASK
        if place == BAR or place == previous:
            point_bin = k if place == BAR else popcount(held & ((1 << (place - 1)) - 1))
            extra |= 1 << (point_bin + a - k - 1 - seen)
            seen += 1
        previous = place
    theirs = 0                   # the opponent's over its free points, then its bar
    for i in range(b):
        q = (opp >> (SLOT_BITS * i)) & SLOT_MASK
        free_bin = POINTS - k if q == BAR else (q - 1) - popcount(held >> (BAR - q))
        theirs |= 1 << (free_bin + b - 1 - i)
    r = 0
    for j in range(k):
        r += _block(j, a, b)
    inner = colex_rank(held) * BINOM[a, k] + colex_rank(extra)
    return r + inner * multisets(POINTS + 1 - k, b) + colex_rank(theirs)


@njit(cache=True)
def unrank(layer, r):
    a = layer // LAYER_STRIDE
    b = layer % LAYER_STRIDE
    k = 0
    while r >= _block(k, a, b):
        r -= _block(k, a, b)
        k += 1
    n_opp = multisets(POINTS + 1 - k, b)
    inner, r_opp = r // n_opp, r % n_opp
    held = colex_unrank(inner // BINOM[a, k], k, POINTS)
    board = np.zeros(BOARD, dtype=np.int8)
    points = np.empty(POINTS + 1, dtype=np.int64)
    j = 0
    for p in range(1, POINTS + 1):
        if (held >> (p - 1)) & 1:
            board[p] = 1
            points[j] = p
            j += 1
    points[k] = BAR
    bins = np.empty(SLOTS, dtype=np.int64)
    _multiset_unrank(inner % BINOM[a, k], a - k, k + 1, bins)
    for i in range(a - k):
        board[points[bins[i]]] += 1
    free = np.empty(POINTS + 1, dtype=np.int64)
    f = 0
    for q in range(1, POINTS + 1):
        if not (held >> (POINTS - q)) & 1:
            free[f] = q
            f += 1
    free[f] = BAR
    _multiset_unrank(r_opp, b, f + 1, bins)
    for i in range(b):
        board[THEM + free[bins[i]]] += 1
    return code_of_board(board)


def layer_size(a: int, b: int) -> int:
    return int(sum(_block(k, a, b) for k in range(min(a, POINTS) + 1)))


# ------------------------------------------------------- scores, progress, heuristic

@njit(cache=True)
def pips(side):
    """Pips to go of a packed side (the bar is 25)."""
    total = 0
    for i in range(SLOTS):
        total += (side >> (SLOT_BITS * i)) & SLOT_MASK
    return total


@njit(cache=True)
def progress(code):
    """Pips already gone of both sides (hits set a side back, so it is only the sweep
    order of a cyclic game)."""
    return 2 * SLOTS * BAR - pips(code & SIDE_MASK) - pips(code >> SIDE_BITS)


@njit(cache=True)
def heuristic(code):
    """The hand-made evaluation (games/heuristic.py): the race in pips."""
    return logistic(pips(code >> SIDE_BITS) - pips(code & SIDE_MASK) + TEMPO)


@njit(cache=True)
def loss_of(in_play, pieces, farthest):
    """What a side loses (a unit of the cube) when the other has just borne off its last
    checker, from its checkers in play and the highest place among them (25: the bar):
    3 when it has borne off none and has a checker on the bar or in the winner's home
    board (its points 19..24), 2 when it has borne off none, else 1."""
    if in_play < pieces:
        return 1
    return 3 if farthest > POINTS - HOME else 2


@njit(cache=True)
def loss_size(code, pieces):
    """What the player on roll in `code` loses when the other side has just won
    (loss_of); the first slot holds its farthest checker."""
    side = code & SIDE_MASK
    return loss_of(checkers_in_play(side), pieces, side & SLOT_MASK)


def win_size(code: int, pieces: int) -> int:
    """What the player on roll scores (a unit of the cube) by bearing off now."""
    return int(loss_size(mirror(np.int64(code)), pieces))


# ------------------------------------------------------------------- for people

def _place_text(place: int):
    return "bar" if place == BAR else place


def json_of_board(board) -> dict:
    """{"me": [24, 23, "bar"], "opp": [...]}: each side's checkers in play by the point
    they stand on in the side's own numbering, or "bar", highest first."""
    return {key: [_place_text(p) for p in range(BAR, 0, -1) for _ in range(board[first + p])]
            for key, first in (("me", 0), ("opp", THEM))}


def to_json(code: int) -> dict:
    return json_of_board(board_of(code))


def counts_of_json(obj, pieces: int) -> np.ndarray:
    """The board of {"me": [...], "opp": [...]} (json_of_board's form), or of gnubg's
    position ID, {"gnubg_id": "4HPwATDgc/ABMA"}; a PositionError saying what is wrong."""
    if isinstance(obj, dict) and set(obj) == {"gnubg_id"}:
        on_roll, other = board_of_id(obj["gnubg_id"])
        obj = {key: [BAR if p == PLACES - 1 else p for p in range(PLACES - 1, 0, -1)
                     for _ in range(side[p - 1])]
               for key, side in (("me", on_roll), ("opp", other))}
    check_json_object(obj, ("me", "opp"), "a backgammon position",
                      '{"me": [24, 23, "bar"], "opp": [6, 5]} (each checker in play by its '
                      "point in its own side's numbering, or \"bar\"), or "
                      '{"gnubg_id": "..."}')
    counts = np.zeros(BOARD, dtype=np.int8)
    for key, first in (("me", 0), ("opp", THEM)):
        places = obj[key]
        if not isinstance(places, list):
            raise PositionError(f'"{key}" must be a list of points 1..24 or "bar"')
        if not 1 <= len(places) <= pieces:
            raise PositionError(f'"{key}" has {len(places)} checkers in play; a game in '
                                f"progress has 1..{pieces} (checkers={pieces})")
        for place in places:
            if place == "bar":
                place = BAR
            if isinstance(place, bool) or not isinstance(place, int) or not 1 <= place <= BAR:
                raise PositionError(f'{str(place)[:20]!r} in "{key}" is not a point 1..24 '
                                    'or "bar"')
            counts[first + place] += 1
        counts[first + OFF] = pieces - len(places)
    for p in range(1, POINTS + 1):
        if counts[p] and counts[THEM + BAR - p]:
            raise PositionError(f"both sides on one point: the mover's {p}, the "
                                f"opponent's {BAR - p}")
    return counts


def from_json(obj, pieces: int) -> int:
    return int(code_of_board(counts_of_json(obj, pieces)))


def board_of(code: int) -> np.ndarray:
    """The board (games/backgammon_rules.py) of a position, seen by the player on roll."""
    board = np.zeros(BOARD, dtype=np.int8)
    board_of_code(np.int64(code), board)
    return board


def gnubg_sides(board) -> tuple[list, list]:
    """GNU Backgammon's board of a board (backgammon_rules; the player on roll's view):
    the other side's counts on its points 1..24 and the bar, then the player on roll's."""
    return [int(c) for c in board[THEM + 1:]], [int(c) for c in board[1:PLACES]]


def gnubg_id(board) -> str:
    """gnubg's position ID of a board (the player on roll's view)."""
    other, on_roll = gnubg_sides(board)
    return position_id(on_roll, other)


def _start(pieces: int) -> int:
    side = sum(p << (SLOT_BITS * i) for i, p in enumerate(START_POINTS[:pieces]))
    return side | (side << SIDE_BITS)


# ------------------------------------------------------------------ the variant

def make(pieces: int | None = None, rules: str = RULES) -> Game:
    """The variant of rule set `rules` (hyper, the default, or standard) with `pieces`
    checkers a side (the rule set's own where None)."""
    if rules == "standard":
        if pieces not in (None, MAX_PIECES):
            raise PositionError(f"backgammon (standard) takes {MAX_PIECES} checkers a side, "
                                f"not {pieces}")
        from . import backgammon_standard
        return backgammon_standard.make()
    pieces = DEFAULT_PIECES if pieces is None else pieces
    if not 1 <= pieces <= SLOTS:
        raise PositionError(f"backgammon (hyper) takes checkers 1..{SLOTS}, not {pieces}")
    layers = tuple((a, b) for a in range(1, pieces + 1) for b in range(1, pieces + 1))
    from . import backgammon_view as shown
    return Game(name=NAME, rules=RULES, pieces=pieces, throws=THROWS, probs=PROBS,
                max_moves=MAX_MOVES, layers=layers, layer_size=layer_size, start=_start(pieces),
                moves=moves, mirror=mirror, layer_of=layer_of, rank=rank, unrank=unrank,
                progress=progress, to_json=to_json, from_json=from_json, heuristic=heuristic,
                successor_layers=bear_off_successors(4), capabilities=CAPABILITIES,
                cube=Cube(), win_size=partial(win_size, pieces=pieces), loss_size=loss_size,
                encoding=Encoding(partial(features, pieces=pieces), n_features(pieces)),
                presentation=shown.presentation(pieces, __doc__.strip(), board_of))


def _shot_chances() -> list[float]:
    """For d = 0..24 pips, the share of the 36 rolls that can carry a checker exactly d
    pips (one die, both, or a double's steps), as if no point were blocked on the way."""
    chances = [0.0] * (BAR)
    for a in range(1, 7):
        for b in range(1, 7):
            reach = {a * k for k in range(1, 5)} if a == b else {a, b, a + b}
            for d in reach:
                if d < BAR:
                    chances[d] += 1 / 36
    return chances


SHOT_CHANCES = _shot_chances()


def checker_places(codes):
    """(mover's, opponent's) checkers of a batch of codes (torch int64) as (n, 3) places,
    each in its own numbering (0: borne off, 25: the bar)."""
    return tuple(concat([field(codes, first_bit + SLOT_BITS * i, SLOT_BITS).unsqueeze(1)
                         for i in range(SLOTS)]) for first_bit in (0, SIDE_BITS))


def features(codes, pieces: int):
    """Network input of a batch of codes (torch int64): for each side (mover first), for
    each of its 25 places (points 1..24, the bar) whether it holds at least 1 and at
    least 2 checkers, whether it holds 3 on one place (which: the place holding 2),
    its pips to go / 75 and its checkers borne off (0..pieces) one-hot; then for each
    of its checkers (slot by slot) the chance that the other side can hit it, the
    chance that the other side can hit at least one and that it can hit two in one
    play (games/backgammon_shots.py); then whether the sides are still in contact (a
    checker of one has yet to pass one of the other):
    2 * (50 + 1 + 1 + pieces + 1 + 3 + 1 + 1) + 1 inputs."""
    mine, theirs = checker_places(codes)   # (a few tensor operations, so that the
    parts = []                             # exported graph stays small and fast)
    for side in (mine, theirs):
        counts = sum(one_hot(side[:, i], PLACES) for i in range(SLOTS))
        in_play = counts[:, 1:]
        parts += [(in_play >= 1).float(), (in_play >= 2).float(),
                  (in_play >= 3).float().amax(dim=1, keepdim=True),
                  side.sum(dim=1, keepdim=True).float() / (SLOTS * BAR),
                  one_hot((pieces - in_play.sum(dim=1)).long(), pieces + 1)]
    tables = shot_tables(codes)
    for side, other in ((mine, theirs), (theirs, mine)):
        parts += [*hit_chances(side, other, tables), double_hit_chance(side, other, tables)]
    meets = (mine.unsqueeze(2) >= 1) & (theirs.unsqueeze(1) >= 1) & \
        (mine.unsqueeze(2) + theirs.unsqueeze(1) > BAR)
    parts.append((meets.long().sum(dim=(1, 2)) >= 1).float().unsqueeze(1))
    return concat(parts)


def n_features(pieces: int) -> int:
    return 2 * (2 * BAR + 1 + 1 + pieces + 1 + SLOTS + 1 + 1) + 1
