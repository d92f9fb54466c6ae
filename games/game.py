"""The game contract: what every game offers, and the errors it raises.

A game is a set of numba-compiled functions on packed integer position codes
(always seen by the player about to throw), the capabilities it declares, and two
objects beside its rules: its encoding (the networks' input) and its presentation
(board drawing, names, move labels, rules text). Generic code (solver, data
generation, players, commands) takes a `Game`, passes its compiled functions into
its own compiled kernels and reads its capabilities; nothing outside games/ looks
at a game's name. docs/ADDING_A_GAME.md walks through a new game;
tests/test_conformance.py checks every registered game against this contract.

A code is one number: an int64 for every game whose positions fit in 64 bits, else a
complex128 holding two whole numbers below 2^53 as its two parts (standard
backgammon: games/backgammon_standard.py), which numba and numpy store, compare, sort
and hash as one value as well. Game.code_dtype says which; generic code makes its
code arrays of that type (Game.codes, or an existing code array's dtype in compiled
loops) and never does arithmetic on a code.

Compiled functions of every game:
  moves(code, throw, out_codes, out_info) -> n
      Writes the n legal moves for `throw`; moves are told apart by their result.
      out_codes[i] is the resulting position seen by whoever throws next (the
      mover if they throw again, otherwise the opponent; also the opponent's
      view when the game is over). out_info[i] packs
      from | to << 5 | AGAIN | OVER (from and to only label the move for people).
      n == 0 means the throw has no legal move: the turn passes.
  mirror(code) -> code     the same board with the other side to throw
  layer_of(code) -> id     layer id = a * LAYER_STRIDE + b, a and b the pieces still
                           in play (not borne off, not removed) of the mover and the
                           opponent
  rank(code) -> int        dense, gap-free index inside the layer
  unrank(layer_id, rank) -> code
  progress(code) -> int    how far both sides have come (solver sweep order)
  heuristic(code) -> float a hand-made winning chance (players heuristic, expectimax)

Not compiled: successor_layers(a, b) -> the layers one move from layer (a, b) can
reach where the game goes on (the solver orders and loads layers by it: races lose
only the mover's pieces as they bear off, capture games may remove either side's
pieces for good).
"""
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol

import numpy as np
from numba import njit

from tabula.infra.errors import TabulaError
from tabula.infra.numbers import whole_number

from .cube import Cube

LAYER_STRIDE = 16  # layer id = a * LAYER_STRIDE + b: up to 15 pieces a side
N_LAYER_IDS = LAYER_STRIDE * LAYER_STRIDE
AGAIN = 1 << 10   # move info flag: the mover throws again
OVER = 1 << 11    # move info flag: the move won the game
# the built-in games' rules for people: docs/rules/, which is tabula/rules in the
# repository (a link) and in the installed package alike
RULES_DOCS = Path(__file__).parent.parent / "rules"


class PositionError(TabulaError):
    """A position (or throw) that cannot occur under the game's rules."""


def check_json_object(obj, keys: tuple, what: str, shape: str):
    """A position's JSON must be an object with exactly `keys` (what: "a Senet
    position"; shape: how it is written, for the message)."""
    if not isinstance(obj, dict):
        raise PositionError(f"{what} is a JSON object {shape}")
    unknown = sorted(set(obj) - set(keys))
    if unknown:
        raise PositionError(f"unknown key(s) {', '.join(unknown)} in {what}; keys are "
                            f"{', '.join(keys)}")
    missing = [k for k in keys if k not in obj]
    if missing:
        raise PositionError(f"{what} lacks key(s) {', '.join(missing)}")


def whole_numbers(value) -> bool:
    """A JSON list of whole numbers (not true/false, not 2.5)."""
    return isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value)


def square_list(obj: dict, side: str, last: int, place: str) -> list:
    """A position's obj[side]: a list of distinct square numbers 1..last, else a
    PositionError naming the side (place: "track" or "board", for the message)."""
    squares = obj[side]
    if not whole_numbers(squares):
        raise PositionError(f'"{side}" must be a list of square numbers 1..{last}')
    bad = [s for s in squares if not 1 <= s <= last]
    if bad:
        raise PositionError(f'square {bad[0]} in "{side}" is off the {place} (squares 1..{last})')
    if len(set(squares)) != len(squares):
        raise PositionError(f'two pieces of "{side}" on one square')
    return squares


@njit(cache=True)
def worth(info, value):
    """The mover's winning chance after a move with packed `info`, given `value`, the
    winning chance of whoever throws next in the resulting position: 1 if the move
    won the game, `value` if the mover throws again, 1 - `value` if the turn passes.
    The one definition of a move's worth (numba); `worths` is its numpy form and
    training.model the torch form, pinned to it by tests/test_conformance.py."""
    if info & OVER:
        return 1.0
    return value if info & AGAIN else 1.0 - value


def worths(infos, values):
    """`worth` over arrays of packed infos and next-position values."""
    return np.where((infos & OVER) != 0, 1.0,
                    np.where((infos & AGAIN) != 0, values, 1.0 - values))


def move_worths(next_codes, infos, live, values_of_next):
    """The mover's winning chance after each live move (others -inf), by `worths`;
    values_of_next is asked only for moves that did not win."""
    need = live & ~((infos & OVER) != 0)
    v = np.zeros(next_codes.shape)
    v[need] = values_of_next(next_codes[need])
    return np.where(live, worths(infos, v), -np.inf)


def unpack_info(info: int) -> dict:
    return {"from": info & 31, "to": (info >> 5) & 31,
            "again": bool(info & AGAIN), "over": bool(info & OVER)}


def move_dicts(next_codes, infos) -> list[dict]:
    """Moves as dicts for people: unpack_info's keys, the resulting position and info."""
    return [dict(unpack_info(int(info)), position=code.item(), info=int(info))
            for code, info in zip(next_codes, infos)]


def layer_id(a: int, b: int) -> int:
    return a * LAYER_STRIDE + b


def layer_pair(layer: int) -> tuple[int, int]:
    return divmod(layer, LAYER_STRIDE)


class Moves(Protocol):
    """moves(code, throw, out_codes, out_info) -> n (see the top)."""
    def __call__(self, code: int, throw: int, out_codes: np.ndarray,
                 out_info: np.ndarray) -> int: ...


class CodeToInt(Protocol):
    """mirror, layer_of, rank and progress: a code to a code or a number."""
    def __call__(self, code: int) -> int: ...


class Unrank(Protocol):
    def __call__(self, layer_id: int, rank: int) -> int: ...


class CodeToFloat(Protocol):
    """heuristic: a code to a hand-made winning chance."""
    def __call__(self, code: int) -> float: ...


@dataclass(frozen=True)
class Variant:
    """A variant of a game as one value, written as one string:
    ur(rules=masters,pieces=7). games.parse_variant reads it back."""
    game: str
    rules: str
    pieces: int

    def __str__(self) -> str:
        return f"{self.game}(rules={self.rules},pieces={self.pieces})"


@dataclass(frozen=True)
class Parameter:
    """A parameter of a game, as OpenSpiel's parameter specification gives one: its
    name, type, range (a whole number) or choices (a name), default and meaning. The
    command line, the variant strings and the web API's game list read a game's
    parameters (games.parameters) and nothing else of its settings."""
    game: str                  # the game's name, for messages
    name: str
    type: type                 # int or str
    default: object
    help: str
    least: int | None = None   # int: the range
    most: int | None = None
    choices: tuple = ()        # str: the values it takes
    flags: tuple = ()          # the game's other names for it on the command line (Flag)

    def check(self, value):
        """`value` if the parameter takes it, else a PositionError saying what it takes."""
        if self.type is int:
            if isinstance(value, bool) or not isinstance(value, int) or \
                    not self.least <= value <= self.most:
                raise PositionError(f"{self.game} takes {self.name} {self.least}..{self.most}, "
                                    f"not {str(value)[:20]!r}")
        elif value not in self.choices:
            raise PositionError(f"{self.game} has no {self.help} {str(value)[:40]!r}; its "
                                f"{self.help}s are {', '.join(self.choices)}")
        return value

    def read(self, text: str):
        """The value `text` writes, else a PositionError saying what it may be."""
        if self.type is int:
            number = whole_number(text, self.least, self.most)
            return self.check(text if number is None else number)
        return self.check(text)

    def to_json(self) -> dict:
        spec = {"name": self.name, "type": self.type.__name__, "default": self.default,
                "help": self.help, "flags": list(self.flags)}
        return spec | ({"least": self.least, "most": self.most} if self.type is int
                       else {"choices": list(self.choices)})


@dataclass(frozen=True)
class Flag:
    """Another name a game gives one of its parameters on the command line (a module's
    FLAGS): --NAME stands for --pieces where the game calls its pieces so (checkers,
    cubes), or reads its value into another parameter (EinStein's --board 3 is
    --rules 3x3). The commands build their flags from these: no game's flag is written
    outside games/."""
    name: str
    parameter: str                     # "pieces" or "rules"
    help: str
    metavar: str = "N"
    to_value: Callable | None = None   # text -> the parameter's value, else a
                                       # PositionError (None: read as the parameter is)


@dataclass(frozen=True)
class Capabilities:
    """What a game can do, declared so that generic code reads this and never a game's
    name or class (as OpenSpiel's GameType declares a game's dynamics and utility)."""
    acyclic: bool = False        # every move inside a layer adds progress: no position
                                 # repeats, so the solver needs one pass, not sweeps
    has_gammons: bool = False    # a game can be won double
    removes_for_good: bool = False    # a move may take a piece of either side out of the
                                      # game; a side with no piece left has lost
    pieces_in_all: bool = False  # `pieces` counts both sides' pieces together, at most
                                 # so many on the board (checkers endgames), not a side's
    draws: bool = False          # no dice, and play may go on forever: a position is won,
                                 # lost or drawn, solved by retrograde analysis into
                                 # win/loss/draw databases (solver/retrograde.py)


def bear_off_successors(max_off: int) -> Callable:
    """successor_layers of a game where only the mover's pieces leave play, at most
    max_off of them a move: the layer itself (throwing again), its mirror (the turn
    passes) and those with up to max_off mover's pieces fewer, seen by either side."""
    def successor_layers(a: int, b: int) -> tuple:
        return tuple(dict.fromkeys((a2, b) if again else (b, a2)
                                   for a2 in range(a, max(a - max_off, 0) - 1, -1)
                                   for again in (True, False)))
    return successor_layers


def capture_successors(a: int, b: int) -> tuple:
    """successor_layers of a game where a move removes at most one piece of either side
    and the turn always passes (EinStein würfelt nicht!): the mirror layer, with one
    piece fewer on one side or neither."""
    return tuple(dict.fromkeys(((b, a), (b - 1, a), (b, a - 1))))


@dataclass(frozen=True)
class BearOffs:
    """How a game with contact meets the race of its bear-offs (standard backgammon),
    whose tables value its positions where both sides bear off (solver/bear_offs.py)."""
    home_sides: Callable   # codes -> (both sides have every checker home (n,), each
                           # side as a side of the race game (n, 2), the mover's first)
    race: Callable         # pieces -> the race game (a Game with a Race) of such sides


def single_win(code: int) -> int:
    """win_size of a game without gammons: every win is single."""
    return 1


@dataclass(frozen=True)
class Race:
    """What a game whose two sides never meet (a pure race, such as a bear-off) also
    offers: each side moves on its own, so a position is a pair of sides, code =
    mover's side | opponent's side << side_bits, and a throw's moves are those of the
    mover's side alone. solver/two_sided.py solves such games in one pass over the
    pips to go, with outcomes worth more than one point and the doubling cube."""
    side_bits: int
    side_moves: Callable      # (side, throw, out_sides) -> n distinct sides after the throw
    side_index: Callable      # side -> dense index, fewer pieces first (0: no piece left)
    side_of_index: Callable   # its inverse
    n_sides: Callable         # pieces -> number of sides with 0..pieces pieces left
    side_pips: Callable       # side -> pips to go (every move lowers it)
    side_checkers: Callable   # side -> pieces left
    gammon_checkers: int      # a loser with this many pieces left loses double

    def win_points(self, code: int) -> int:
        """Points (per unit of cube) the player on roll in `code` wins by bearing off
        now: 2 when the opponent still has gammon_checkers left (a gammon), else 1."""
        return 2 if self.side_checkers(int(code) >> self.side_bits) == self.gammon_checkers \
            else 1

    def deal(self, pieces: int, rng) -> int:
        """A start drawn at random: each side's `pieces` checkers on a composition drawn
        uniformly (a money game of a bear-off starts so)."""
        first = self.n_sides(pieces - 1)
        sides = rng.integers(first, self.n_sides(pieces), size=2)
        return int(self.side_of_index(sides[0])) | (int(self.side_of_index(sides[1]))
                                                    << self.side_bits)


@dataclass(frozen=True)
class Setup:
    """What a game whose sides arrange their pieces before play (EinStein) also
    offers: the arrangements a side may choose (the same for both sides), and the
    start position of each pair, the side that throws first to throw."""
    arrangements: tuple       # each a tuple of small numbers (EinStein: the pieces'
                              # numbers on the start squares, in order)
    start: Callable           # (first side's arrangement, the other's) -> code
    written: str = "the pieces' numbers on the start squares, in order"   # how people
                                                       # write one, for messages

    def starts(self, pairs=None) -> list[int]:
        """The start of every pair of arrangements, the first side's by row; or of the
        pairs numbered so (first * arrangements + second) in `pairs`."""
        n = len(self.arrangements)
        return [self.start(self.arrangements[i // n], self.arrangements[i % n])
                for i in (range(n * n) if pairs is None else pairs)]

    @staticmethod
    def label(arrangement: tuple) -> str:
        """An arrangement as people write it: its numbers one after the other, '312'."""
        return "".join(str(number) for number in arrangement)

    def parse(self, text: str) -> tuple:
        """The arrangement people wrote as `text` ('312'), else a PositionError."""
        for arrangement in self.arrangements:
            if self.label(arrangement) == text:
                return arrangement
        raise PositionError(f"a set-up is written as {self.written} (e.g. "
                            f"{self.label(self.arrangements[-1])}), not {str(text)[:20]!r}")


@dataclass(frozen=True)
class DrawRule:
    """How a game that may go on forever ends in play (checkers: each side's 40 moves
    without a capture or a man's step): drawn after `plies` moves in a row that
    `irreversible` does not mark. The databases know no such rule: a drawn position
    is one from which neither side can force a win."""
    plies: int
    irreversible: Callable     # (code, next code) -> whether the move can never be undone

    def quiet_after(self, quiet: int, code, next_code) -> int:
        """The moves in a row that changed nothing for good, after the move from `code`
        to `next_code` (`quiet` before it); the game is drawn when it reaches `plies`."""
        return 0 if self.irreversible(code, next_code) else quiet + 1


@dataclass(frozen=True)
class Encoding:
    """How a network sees a position: features(codes) -> float32 (n, n_features), of a
    torch int64 batch of codes (games/features.py)."""
    features: Callable
    n_features: int
    description: str | None = None   # what the inputs are, where not the function's doc

    def doc(self) -> str:
        """What the network's inputs are, in one paragraph."""
        text = self.description or getattr(self.features, "func", self.features).__doc__
        return " ".join(text.split())


@dataclass(frozen=True)
class Presentation:
    """What people see of a variant: the board drawn and laid out, square and side
    names, what a move does in words, the rules text."""
    sides: tuple                 # names of the side that throws first, and the other
    square_names: dict           # square -> its label in a move ("enter", "off")
    layout: dict                 # the board for drawing: rows, cols, cells, pools, dice
    draw: Callable               # (code, first_to_throw=) -> the board as text
    view: Callable               # (code, first_to_throw=) -> pieces on cells, pools
                                 # (both with the variant's pieces bound: functools.partial)
    cell: Callable               # (seat, square) -> the cell of a seat's square
    events: Callable             # (code, move) -> what the move does, in words
    code_layout: str             # the packed code's bits, for people and manifests
    rules_file: Path             # the rules for people (Markdown)
    position_kinds: Callable | None = None   # code -> names of what marks the position
                                             # (for decision sets: datagen/decision_set.py)
    win_words: str = "bears off the last piece and wins"   # what a winning move does
    named_by_board: bool = False  # a seat's squares are named by the board's cells, the
                                  # same for both seats (EinStein), not by its own track
    notation: Callable | None = None   # (code, next code, throw, seat=0) -> a move as the
                                       # game's players write it (bear-offs: '6/2 5/off';
                                       # checkers names squares by the seat moving)
    throw_text: Callable = str         # a throw as people read it (bear-offs: '6-2')
    steps: Callable | None = None      # (code, next code, throw) -> [(from, to)]: each
                                       # piece's part of a move that moves several, in
                                       # order, for the page to show one by one
    seat_to_move: Callable | None = None   # obj -> the seat on roll in a position people
                                       # wrote as JSON, for games that name it (checkers'
                                       # "turn"); None: the side that throws first
    from_view: Callable | None = None  # (cells {cell: seat}, labels {cell: label}, seat to
                                       # move) -> the code of a position a person set up on
                                       # the board, with the piece kinds the layout's
                                       # "setup" lists (checkers); a PositionError if none
    orders: Callable | None = None     # (code, next code, throw) -> [[(from, to)]]:
                                       # a move's steps in each order of the dice that
                                       # plays it, for a person to tap piece by piece

    def square_label(self, square: int, seat: int = 0) -> str:
        """A square's name in a move of `seat` (0: the side that throws first)."""
        if self.named_by_board:
            return self._cell_labels()[self.cell(seat, square)]
        return self.square_names.get(square, str(square))

    def _cell_labels(self) -> dict:
        return {c["id"]: c["label"] for c in self.layout["cells"]}

    def board(self, code: int, first_to_throw: bool) -> str:
        """The board in plain text; first_to_throw: whether the player about to throw
        is the side that threw first (so colours stay put)."""
        return self.draw(code, first_to_throw=first_to_throw)

    def board_view(self, code: int, first_to_throw: bool) -> dict:
        """Which seat (0: the side that threw first) has a piece on each cell, and each
        seat's waiting and borne-off counts."""
        return self.view(code, first_to_throw=first_to_throw)

    def rules_text(self) -> str:
        """The rules for people (docs/rules/NAME.md for the built-in games)."""
        if not self.rules_file.is_file():
            raise PositionError(f"no rules text: {self.rules_file} is missing")
        return self.rules_file.read_text(encoding="utf-8")


@dataclass(frozen=True)
class Game:
    """A variant of a game: its rules (the compiled functions, the throws, the layers,
    what it can do), with how networks see it (encoding) and people (presentation)."""
    name: str
    rules: str                   # the rule set's name
    pieces: int
    throws: np.ndarray           # the possible throws
    probs: np.ndarray            # their probabilities (float64, sum 1)
    max_moves: int               # upper bound on legal moves for one throw
    layers: tuple                # (a, b) pairs of this variant, in-play counts
    layer_size: Callable         # (a, b) -> number of positions in the layer
    start: int                   # code of the start position
    moves: Moves                 # the compiled functions (numba dispatchers; see the top)
    mirror: CodeToInt
    layer_of: CodeToInt
    rank: CodeToInt
    unrank: Unrank
    progress: CodeToInt
    to_json: Callable            # code -> dict
    from_json: Callable          # (dict, pieces) -> code, raises PositionError
    heuristic: CodeToFloat       # code -> a hand-made winning chance (compiled)
    encoding: Encoding
    presentation: Presentation
    successor_layers: Callable = bear_off_successors(1)   # (a, b) -> layers one move
                                                          # reaches (see the top)
    capabilities: Capabilities = Capabilities()
    race: "Race | None" = None   # for games whose sides never meet (solver/two_sided.py)
    setup: "Setup | None" = None  # for games whose sides arrange their pieces first
    cube: Cube | None = None     # played for money with the doubling cube (games/cube.py)
    win_size: Callable = single_win   # code -> what the player on roll in code wins by
                                      # winning now: 1, 2 a gammon, 3 a backgammon (a
                                      # move's own win: points_won, after the move)
    loss_size: Callable | None = None  # compiled (code, pieces) -> what the player on roll
                                       # in code loses when the other side has just won
                                       # (games with contact and gammons: solver/contact.py)
    bear_offs: "BearOffs | None" = None   # where both sides bear off (solver/bear_offs.py)
    deal: Callable | None = None  # rng -> a start drawn at random, for games played from
                                  # one (a bear-off's money game); None: from `start`
                                  # (where a game begins: games/state.begin)
    gnubg_board: Callable | None = None   # code -> GNU Backgammon's board of it (the other
                                  # side's 25 counts, then the player on roll's), for a
                                  # game gnubg's evaluator plays (eval/gnubg_player.py)
    draw_rule: DrawRule | None = None   # how a game that may go on forever ends drawn in
                                  # play (games/state.py, eval/engine.py)
    code_dtype: np.dtype = np.dtype(np.int64)   # codes' type: int64, or complex128 for a
                                  # game whose positions need more than 64 bits (two
                                  # whole numbers below 2^53 as one value: see the top)

    @property
    def dice(self) -> bool:
        """Whether anything is thrown: a game without dice (checkers) has one throw, of
        probability 1, that nobody sees."""
        return len(self.throws) > 1

    @property
    def variant(self) -> Variant:
        return Variant(self.name, self.rules, self.pieces)

    def describe(self) -> str:
        """'ur(rules=finkel,pieces=7)': the variant, as messages name it."""
        return str(self.variant)

    def differs_from(self, name: str | None = None, pieces: int | None = None,
                     rules: str | None = None) -> str | None:
        """Where this variant is not the one asked for (None: anything goes), in words
        ('not of pieces=7'), or None when it is."""
        for asked, mine, said in ((name, self.name, name), (rules, self.rules, f"{rules} rules"),
                                  (pieces, self.pieces, f"pieces={pieces}")):
            if asked is not None and asked != mine:
                return f"not of {said}"
        return None

    def position_from_json(self, obj) -> int:
        return self.from_json(obj, self.pieces)

    def position_in_play(self, obj) -> int:
        """The code of a position people wrote (JSON), refused where the game is over."""
        return self.in_play(self.position_from_json(obj))

    def start_from(self, obj) -> tuple[int, int]:
        """A position people wrote (JSON) to start a game from: its code (refused where
        the game is over) and the seat on roll in it (presentation.seat_to_move, else the
        side that throws first)."""
        to_move = self.presentation.seat_to_move
        return self.position_in_play(obj), (to_move(obj) if to_move else 0)

    def in_play(self, code) -> int:
        """`code`, refused where the game is over in it."""
        if 0 in layer_pair(self.layer_of(code)):
            raise PositionError("the game is over in this position: a side has no piece in "
                                "play (borne off every one)")
        return code

    def check_throw(self, throw: int):
        if throw not in self.throws:
            raise PositionError(
                f"throw {throw} is impossible in {self.name}: throws are "
                f"{', '.join(str(int(t)) for t in self.throws)}")

    def code(self, value):
        """A code as the compiled functions take it (a numpy scalar of code_dtype)."""
        return self.code_dtype.type(value)

    def points_won(self, after) -> int:
        """What the move to `after` wins when it ends the game (`after`: the position it
        leads to, the loser's to see): win_size seen from after the move, so that a
        checker hit on the way to bearing off the last one makes a backgammon."""
        return int(self.win_size(self.mirror(self.code(after))))

    def plain_code(self, code):
        """A code as a plain Python number (int, or complex for two-part codes)."""
        return self.code(code).item()

    def codes(self, values) -> np.ndarray:
        """Codes as an array of code_dtype."""
        return np.asarray(values, dtype=self.code_dtype)

    def move_arrays(self, code: int, throw: int) -> tuple[np.ndarray, np.ndarray]:
        """The legal moves of `code` for `throw`: their resulting codes and packed infos."""
        out_codes = np.zeros(self.max_moves, dtype=self.code_dtype)
        out_info = np.zeros(self.max_moves, dtype=np.int64)
        n = self.moves(self.code(code), np.int64(throw), out_codes, out_info)
        return out_codes[:n], out_info[:n]

    def legal_moves(self, code: int, throw: int) -> list[dict]:
        """The legal moves of `code` for `throw`, as dicts (slow path, for people)."""
        self.check_throw(throw)
        return move_dicts(*self.move_arrays(code, throw))

    def solved_layers(self, max_total: int | None = None) -> list:
        """The layers a solve computes: both sides with a piece in play (and at most
        max_total pieces in play in all, if given)."""
        return [(a, b) for a, b in self.layers
                if a > 0 and b > 0 and (max_total is None or a + b <= max_total)]

    def are_positions(self, codes) -> np.ndarray:
        """Whether each code is a position of this variant (infra/batch.positions_of)."""
        from tabula.infra.batch import positions_of
        sizes = np.zeros(N_LAYER_IDS, dtype=np.int64)
        for a, b in self.layers:
            sizes[layer_id(a, b)] = self.layer_size(a, b)
        return positions_of(self.layer_of, self.rank, self.unrank, sizes,
                            self.codes(codes))

    def total_positions(self) -> int:
        return sum(self.layer_size(a, b) for a, b in self.layers)
