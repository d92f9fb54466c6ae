"""One game between people and the computer, or between two people at one screen:
the throws, the legal moves, what each move does in words, ranked hints and the
review at the end. The terminal game (tabula/play.py) and the web app
(tabula/web.py) both play through it, so they behave alike.

A game played for money with the doubling cube (Game.cube: games/cube.py) has one more
kind of decision: before a throw, the player on roll may double, and the other side
then takes or passes, as the game's cube rules say; a win scores what they say. Its
decisions are judged in points of equity at the cube's value (eval/equities.py), every
other game's in points of winning chance.

Seats: 0 is the side that throws first (Ur's light, Senet's white), 1 the other.
"""
import time
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from pathlib import Path
from typing import Callable

import numpy as np

from tabula.solver.bear_offs import with_bear_offs
from tabula.eval.equities import TIE, Equities, move_equities, won_points
from tabula.eval.measures import ERROR_THRESHOLD
from tabula.eval.players import SearchSpec, make_player
from tabula.eval.search import decision_form
from tabula.games import get_game, rule_sets
from tabula.games.cube import UNAVAILABLE
from tabula.games.game import OVER, move_dicts, move_worths
from tabula.games.state import (ACCEPT, ARRANGE, DOUBLE, MOVE, PASS, PLAY, ROLL, SETUP,
                                TAKE, THROW, Action, State, begin, may_double, step)
from tabula.games.state import OVER as ENDED
from tabula.infra.errors import TabulaError
from tabula.runtime.sampling import random_play_positions
from tabula.solver.setups import setup_game

# The Master's search without a table: simulations a move, leaves valued a network call
# (six times the simulations of one leaf a call in the same time: docs/BENCHMARKS.md),
# and a time limit that keeps a reply of the web app under 50 ms (bench_serve.py).
MASTER_SEARCH = SearchSpec(sims=5000, leaves=16, ms=20)   # its leaf: the network
REPLY_MS = 32    # all the computer's searches in one reply (Ur: a rosette throws again)
LEAST_MS = 2     # a search's time when the reply's is spent
# A person's decision by the winning chance it gave away, in points (best: none at all);
# the review states them on the page.
LABELS = (("inaccuracy", 0.0), ("mistake", 2.0), ("blunder", 5.0))
# ... and with the cube, in points of equity: the same 2 and 5 points of winning chance
# as equity (2 × chance - 1) counts them
CUBE_LABELS = (("inaccuracy", 0.0), ("mistake", 0.04), ("blunder", 0.10))


def label_ranges(labels=LABELS) -> str:
    """Labels in words: 'inaccuracy below 2, mistake 2 to 5, blunder 5 or more'."""
    return ", ".join(
        f"{name} below {labels[i + 1][1]:g}" if i == 0 else
        f"{name} {least:g} or more" if i == len(labels) - 1 else
        f"{name} {least:g} to {labels[i + 1][1]:g}"
        for i, (name, least) in enumerate(labels))


MASTER_PERFECT = "the table's perfect play"
MASTER_SEARCHES = (f"a tree search over the network of at most {MASTER_SEARCH.sims:,} "
                   f"simulations and {MASTER_SEARCH.ms} ms a move")
MASTER_LOOKS_AHEAD = ("the network looking one throw ahead by cubeless equity, the cube "
                      "by the network")
LEVELS = {"apprentice": "the hand-made heuristic",
          "journeyman": "the network",
          "master": f"{MASTER_PERFECT} (with a table), else {MASTER_SEARCHES} (backgammon: "
                    f"{MASTER_LOOKS_AHEAD})"}
MODELS = Path(__file__).parent / "models"   # models/ (a link in the repository)


def looks_ahead(game) -> bool:
    """Whether the Master without a table plays `game` by one throw of expectimax over
    the network's cubeless equity, the cube by the network: backgammon with contact,
    whose networks give the chances of gammons (the tree search knows no cube)."""
    return game.cube is not None and game.loss_size is not None


def levels_of(game, table=None, network: bool = True) -> list[str]:
    """The levels the computer plays `game` at, with `table` (or None) and a network
    (or none): the Apprentice always; the Journeyman with a network; the Master with a
    table (perfect play) or a network, but in a game played with the cube from a table
    alone (the tree search knows no cube), backgammon aside (looks_ahead)."""
    return [level for level in LEVELS if level == "apprentice" or
            (level == "master" and table is not None) or
            (network and (level == "journeyman" or game.cube is None or looks_ahead(game)))]


class SessionError(TabulaError):
    """A request the game cannot take now (a move before the throw, a finished game).
    A request that can never be right (an unknown level, a move number out of range)
    is a plain TabulaError."""


def _stem(name: str, rules: str | None) -> str:
    """The shipped networks' file names: NAMEPIECES.onnx under the game's first rule
    set, NAME-RULESPIECES.onnx under another."""
    return name if rules in (None, rule_sets(name)[0]) else f"{name}-{rules}"


def shipped_model(game) -> Path | None:
    """The shipped network of this variant (models/, see _stem), if there is one."""
    path = MODELS / f"{_stem(game.name, game.rules)}{game.pieces}.onnx"
    return path if path.is_file() else None


def shipped_pieces(name: str, rules: str | None = None) -> list[int]:
    """The piece counts of `name` under `rules` that a shipped network plays."""
    stem = _stem(name, rules)
    found = (p.stem[len(stem):] for p in MODELS.glob(f"{stem}*.onnx"))
    return sorted(int(s) for s in found if s.isdigit())


def playable_pieces(name: str, rules: str | None = None) -> int:
    """The pieces a side to play `name` with when none are named: the rule set's
    default, unless only another variant has a shipped network (then the largest)."""
    default = get_game(name, None, rules).pieces
    shipped = shipped_pieces(name, rules)
    return default if not shipped or default in shipped else shipped[-1]


@dataclass
class Judge:
    """Values for the player about to throw: exact from a table, or the network's
    estimate; a winning chance, and with the cube money equities (eval/equities.py)."""
    values: Callable      # codes -> values, in `names` order
    names: tuple          # solver/values.py: ("win",), or a race's chances and equities
    exact: bool           # exact for every decision the game has
    source: str           # where the values come from, in words
    outcomes: Callable | None = None   # (code, moves) -> each move's result to the mover
                                       # and the plies to the end (a win/loss/draw table)

    def equities(self, codes) -> Equities:
        return Equities(self.values(codes), self.names)

    def chances(self, codes) -> np.ndarray:
        """The cubeless winning chance of each code."""
        return self.equities(codes).chance()

    def worths(self, game, moves) -> np.ndarray:
        """The mover's winning chance after each of one decision's moves."""
        counts, next_codes, infos = decision_form(game, moves)
        live = np.arange(game.max_moves) < counts[:, None]
        return move_worths(next_codes, infos, live, self.chances)[0, :len(moves)]


def make_judge(game, table=None, model=None) -> Judge | None:
    """The judge of a session: the table, else the network. A winning chance alone
    judges a game played with the cube as if the cube were dead: an estimate."""
    if table is not None:
        if game.cube is not None and len(table.value_names) == 1:
            return Judge(table.values, table.value_names, False,
                         "the table's winning chances, the cube taken as dead (an estimate)")
        return Judge(table.values, table.value_names, True, "exact, from the table",
                     table.move_answers if game.capabilities.draws else None)
    if model is not None:
        return Judge(with_bear_offs(game, model.predict), model.value_names, False,
                     "the network's estimate")
    return None


class NoNetworkError(TabulaError):
    """A level that needs a network, for a variant none plays: said for the command
    line (the web app says it in the page's words, from `others`: the pieces a shipped
    network plays instead)."""

    def __init__(self, game, level: str, table=None):
        self.game, self.level = game, level
        self.others = [p for p in shipped_pieces(game.name, game.rules) if p != game.pieces]
        if table is not None:   # the table fixes the variant: its Master plays perfectly
            advice = "choose --level master (perfect play from the table) or apprentice, " \
                     "or give --model FILE.onnx"
        else:
            advice = (f"the shipped network plays {game.name} with {self.others[0]} pieces: "
                      f"add --pieces {self.others[0]}, " if self.others else "") + \
                "give --model FILE.onnx, or choose --level apprentice"
        super().__init__(f"level {level} needs a network for {game.describe()}: {advice}")


def warm_up(game, table=None, model_path=None, model=None, positions: int = 4):
    """Let every level `game` can be played at here choose on a few positions met in
    play, and its judge value them, so that numba compiles (or reads from its cache)
    the kernels and ONNX Runtime opens the network now, not during a person's first
    reply (a minute with an empty cache: docs/BENCHMARKS.md, "The web app")."""
    codes = random_play_positions(game, positions, 1)
    judge = make_judge(game, table, model)
    for level in levels_of(game, table, model_path is not None):
        player = computer_player(game, level, table, model_path, model)
        for code in codes:
            for throw in game.throws[:3]:
                moves = game.legal_moves(game.plain_code(code), int(throw))
                if len(moves) > 1:
                    player.choose(np.array([code]), *decision_form(game, moves),
                                  np.array([0.5]), seconds=LEAST_MS / 1000)
                    if judge is not None:
                        judge.worths(game, moves)


def computer_player(game, level: str, table=None, model_path=None, model=None):
    """The computer's player at `level` (see LEVELS); `model`: the network of
    model_path, if already opened."""
    if level not in LEVELS:
        raise TabulaError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    if level not in levels_of(game, table):
        raise TabulaError(f"{game.name} is played with the doubling cube: level master is "
                          "perfect play from a table (give one), the search knows no cube")
    if level == "apprentice":
        return make_player("heuristic", game)
    if level == "master" and table is not None:
        return make_player("perfect", game, table)
    if model_path is None:
        raise NoNetworkError(game, level, table)
    if level == "journeyman":
        return make_player(f"net:{model_path}", game, model=model)
    if looks_ahead(game):
        return make_player(f"net+search:{model_path}", game, model=model)
    return make_player(str(replace(MASTER_SEARCH, leaf=str(model_path))), game, model=model)


def start_session(game, level: str = "journeyman", side: str | None = None,
                  hotseat: bool = False, seed: int | None = None, table=None,
                  model_path=None, model=None, setup: str | None = None,
                  position: int | None = None, position_seat: int = 0) -> "Session":
    """A new game: a person plays `side` (the side that throws first if None) against
    the computer at `level`, or two people play (`hotseat`); judged by the table if
    given, else by the network `model`. `setup`: the person's arrangement of pieces
    ('312'), in a game whose sides arrange theirs (drawn at random if None); `position`:
    the code to start from instead of the game's start (a checkers endgame to play out),
    seen by `position_seat`, who is on roll in it."""
    seat = seat_of(game, side)
    computer = None if hotseat else computer_player(game, level, table, model_path, model)
    humans = {0, 1} if hotseat else {seat}
    setups = {} if setup is None else {seat: arrangement(game, setup)}
    mixes = {} if computer is None or game.setup is None or table is None else \
        {1 - seat: best_mixes(table)[1 - seat]}
    return Session(game, humans, computer, make_judge(game, table, model), seed,
                   None if hotseat else level, setups=setups, mixes=mixes, start=position,
                   start_seat=position_seat)


@cache
def best_mixes(table) -> tuple:
    """Each seat's best mixture of set-ups by the table (solver/setups.py: the set-up
    game solved by linear programming): the chance of each arrangement."""
    solved = setup_game(table)
    return solved.first_mix, solved.second_mix


def seat_of(game, side: str | None) -> int:
    """The seat of the side a person asked for (None: the side that throws first)."""
    sides = game.presentation.sides
    side = side or sides[0]
    if side not in sides:
        raise TabulaError(f"side for {game.name} is {sides[0]} or {sides[1]}, not {side!r}")
    return sides.index(side)


def arrangement(game, text: str) -> tuple:
    """A person's arrangement of pieces ('312'), in a game whose sides arrange theirs."""
    if game.setup is None:
        raise TabulaError(f"in {game.name} the sides do not arrange their pieces: no set-up")
    return game.setup.parse(text)


def outcome_words(said: dict, person: bool = False) -> str:
    """A move's result with best play, for the mover: 'a win in 7 plies', 'a draw'; said
    to the person who moves: 'you win in 7 plies'."""
    if said["result"] == "draw":
        return "a draw"
    if person:
        return f"you {'win' if said['result'] == 'win' else 'lose'} in {said['plies']} plies"
    return f"a {said['result']} in {said['plies']} plies"


@dataclass
class Decision:
    """A person's decision, judged: the position, the throw, the moves' worths."""
    seat: int
    turn: int
    code: int
    throw: int
    moves: list
    chosen: int
    worths: np.ndarray

    @property
    def loss(self) -> float:
        return float(self.worths.max() - self.worths[self.chosen])


@dataclass
class Session:
    game: object
    humans: set                   # seats played by people
    computer: object = None       # the player of the other seat
    judge: Judge | None = None
    seed: int | None = None
    level: str | None = None      # the computer's strength (None: two people)
    now: State = field(init=False)   # where the game stands (games/state.py)
    moves: list = field(default_factory=list)   # the throw's legal moves, for people
    turn: int = 0                 # throws so far
    decisions: list = field(default_factory=list)
    frames: list = field(default_factory=list)  # at every throw: its number, the seat, the
                                                # position, the throw and the move played
    setups: dict = field(default_factory=dict)  # seat -> its arrangement, where chosen
                                                # (games.game.Setup; others drawn)
    mixes: dict = field(default_factory=dict)   # seat -> the chances its arrangement is
                                                # drawn with (others: all alike)
    taken_back: list = field(default_factory=list)  # before each of a person's moves
                                                    # against the computer: how it stood
    cube_said: str | None = None  # the cube's action before the coming throw, for replay
    winning_piece: dict | None = None   # where a piece that won on the board stands
    start: int | None = None      # the position the game starts from (None: the game's)
    start_seat: int = 0           # ... and the seat on roll there

    UNDONE = ("now", "moves", "turn", "cube_said")  # what undo puts back

    def __post_init__(self):
        self.rng = np.random.default_rng(self.seed)
        self.now = begin(self.game, self.rng, self.start, self.start_seat)
        if self.now.phase == SETUP:   # a person's arrangement, or one drawn at random
            arrangements = self.game.setup.arrangements
            drawn = self.rng.integers(len(arrangements), size=2)
            for seat in (0, 1):
                if seat in self.mixes:
                    drawn[seat] = self.rng.choice(len(arrangements), p=self.mixes[seat])
                chosen = self.setups.get(seat, arrangements[drawn[seat]])
                self.now = step(self.game, self.now, Action(ARRANGE, chosen))
        self._throw_without_dice()

    # where the game stands, as the state says it
    code = property(lambda self: self.now.code)
    seat = property(lambda self: self.now.seat, doc="the player on roll: the position is "
                    "seen by this seat (at the end, by the one who would throw next)")
    throw = property(lambda self: self.now.throw, doc="the throw waiting for a move, if any")
    cube = property(lambda self: self.now.cube, doc="the cube, in a game played for money")
    winner = property(lambda self: self.now.winner)
    points = property(lambda self: self.now.points, doc="what the winner won, with the cube")
    phase = property(lambda self: self.now.phase, doc="throw, take, move or over")

    # how a decision's loss is counted: winning chance in percentage points, or with the
    # cube points of equity at the cube's value
    @property
    def labels(self) -> tuple:
        return LABELS if self.cube is None else CUBE_LABELS

    @property
    def loss_scale(self) -> tuple[float, int, str]:
        """(scale, digits, unit) of the losses the review states."""
        return (100.0, 2, "points of winning chance") if self.cube is None else \
            (1.0, 3, "points of equity at the cube's value")

    @property
    def level_words(self) -> str:
        """What the computer plays with, in words (the Master: the table or a search)."""
        if self.level != "master":
            return LEVELS[self.level]
        if self.computer.spec == "perfect":
            return MASTER_PERFECT
        return MASTER_LOOKS_AHEAD if looks_ahead(self.game) else MASTER_SEARCHES

    @property
    def over(self) -> bool:
        return self.now.phase == ENDED

    @property
    def drawn(self) -> bool:
        """Whether the game ended drawn, by its draw rule (Game.draw_rule)."""
        return self.over and self.now.winner is None

    def side(self, seat: int) -> str:
        return self.game.presentation.sides[seat]

    def says(self, seat: int, third: str, second: str) -> str:
        """Who does what, as the person at the screen reads it: 'light throws' between
        two people; 'you (light) throw' or 'the computer (dark) throws' against the
        computer."""
        side = self.side(seat)
        if self.level is None:
            return f"{side} {third}"
        return f"you ({side}) {second}" if seat in self.humans else \
            f"the computer ({side}) {third}"

    def _move_text(self, move) -> str:
        """A legal move of the seat to play, as people read it: 'from -> to', or the
        game's own notation where it has one (bear-offs: '6/2 5/off')."""
        presentation = self.game.presentation
        if presentation.notation is not None:
            return presentation.notation(self.code, move["position"], self.throw,
                                         seat=self.seat)
        label = presentation.square_label
        return f"{label(move['from'], self.seat)} -> {label(move['to'], self.seat)}"

    def throw_text(self, throw: int) -> str:
        return self.game.presentation.throw_text(throw)

    # -- the cube ---------------------------------------------------------------
    def cube_state(self, seat: int | None = None) -> str:
        """The cube as `seat` (the player on roll if None) sees it (games/cube.py)."""
        return self.game.cube.access(self.cube, self.seat if seat is None else seat)

    @property
    def can_double(self) -> bool:
        return may_double(self.game, self.now)

    def double(self) -> list[dict]:
        """The player on roll doubles; the computer answers at once, a person later
        (answer)."""
        if self.cube is None:
            raise TabulaError(f"{self.game.name} is played without the doubling cube")
        if not self.can_double:
            raise SessionError("no double now: " + (
                "the game is over" if self.over else "a double waits for its answer"
                if self.cube.offered else "the throw is made" if self.throw is not None
                else f"{self.side(1 - self.seat)} owns the cube"))
        self._judge_cube(self.seat, 1)
        self.now = step(self.game, self.now, Action(DOUBLE))
        events = [self._event("double", f"{self.says(self.seat, 'doubles', 'double')} "
                                        f"to {2 * self.cube.value}", cube=2 * self.cube.value)]
        if 1 - self.seat not in self.humans:
            events += self.answer(self.computer.takes(self.code))
        return events

    def answer(self, take: bool) -> list[dict]:
        """The side facing the double takes or passes."""
        if self.cube is None:
            raise TabulaError(f"{self.game.name} is played without the doubling cube")
        if self.phase != TAKE:
            raise SessionError("no double to answer")
        taker = 1 - self.seat
        self._judge_cube(taker, int(take))
        self.now = step(self.game, self.now, Action(ACCEPT if take else PASS))
        if take:
            text = f"{self.says(taker, 'takes', 'take')}: the cube is at {self.cube.value}"
            self.cube_said = f"{self.side(self.seat)} doubled to {self.cube.value}, " \
                             f"{self.side(taker)} took"
            return [self._event("take", text, cube=self.cube.value)]
        self.frames.append({"number": self.turn + 1, "seat": self.seat, "code": self.code,
                            "throw": None, "played": None,   # the replay's last step
                            "cube": f"{self.side(self.seat)} doubled to {2 * self.cube.value}, "
                                    f"{self.side(taker)} passed"})
        return [self._event("pass", f"{self.says(taker, 'passes', 'pass')}"),
                self._win_event()]

    def _judge_cube(self, seat, chosen: int):
        """Record `seat`'s choice of the cube decision at hand, if a person's."""
        if seat in self.humans and self.judge is not None:
            options, equities = self._cube_decision()
            self.decisions.append(Decision(seat, self.turn + 1, self.code, None,
                                           [{"text": o} for o in options], chosen,
                                           self.cube.value * equities))

    def _cube_decision(self) -> tuple[list[str], np.ndarray]:
        """The cube decision at hand and each choice's equity, per unit of cube: for the
        player on roll, not doubling and doubling (the other side then answering well);
        for the side facing a double, passing and taking."""
        e = self.judge.equities(np.array([self.code]))
        unavailable = e.no_double(UNAVAILABLE)[0]
        if self.cube.offered:
            return ["pass", "take"], np.array([-1.0, -2 * unavailable])
        return (["no double", f"double to {2 * self.cube.value}"],
                np.array([e.no_double(self.cube_state())[0], min(2 * unavailable, 1.0)]))

    # -- playing -------------------------------------------------------------
    def roll(self) -> list[dict]:
        """Throw for the seat to play; a throw without a legal move passes the turn."""
        if self.over:
            raise SessionError("the game is over")
        if self.phase == TAKE:
            raise SessionError(f"{self.side(1 - self.seat)} must first take or pass")
        if self.throw is not None:
            raise SessionError(f"{self.side(self.seat)} has thrown {self.throw} and must move")
        if self.can_double and self.seat in self.humans:   # rolling is not doubling
            self._judge_cube(self.seat, 0)
        throw, seat = int(self.rng.choice(self.game.throws, p=self.game.probs)), self.seat
        self.turn += 1
        self.frames.append({"number": self.turn, "seat": seat, "code": self.code,
                            "throw": throw, "played": None})
        if self.cube is not None:
            self.frames[-1]["cube"], self.cube_said = self.cube_said, None
        said = f"{self.says(seat, 'throws', 'throw')} {self.throw_text(throw)}" \
            if self.game.dice else self.says(seat, "moves", "move")
        events = [self._event("throw", said, throw=throw, number=self.turn)]
        self.now = step(self.game, self.now, Action(ROLL, throw))
        if self.phase != MOVE:
            events.append(self._event("pass", f"{self.says(seat, 'has', 'have')} no legal "
                                              "move: the turn passes", seat=seat))
            return events
        self.moves = [m | {"text": self._move_text(m)}
                      for m in move_dicts(self.now.next_codes, self.now.infos)]
        return events

    def _throw_without_dice(self) -> list[dict]:
        """In a game without dice (one throw: checkers) nobody throws: the turn's moves
        are there at once (the throw's event says whose turn it is)."""
        if self.game.dice or self.cube is not None or self.phase != THROW:
            return []
        return self.roll()

    def play(self, index: int) -> list[dict]:
        """Make move `index` of the current throw's legal moves."""
        if self.over:
            raise SessionError("the game is over")
        if self.throw is None:
            raise SessionError(f"{self.side(self.seat)} must throw first")
        if isinstance(index, bool) or not isinstance(index, int) or not (
                0 <= index < len(self.moves)):
            raise TabulaError(f"move must be a number from 0 to {len(self.moves) - 1}")
        move = self.moves[index]
        if self.seat in self.humans and self.level is not None:
            self.taken_back.append(self._standing())
        if self.seat in self.humans and self.judge is not None and len(self.moves) > 1:
            self.decisions.append(Decision(self.seat, self.turn, self.code, self.throw,
                                           self.moves, index, self._worths()))
        said = self.game.presentation.events(self.code, move)
        if move["over"]:
            said.append(self.game.presentation.win_words)
        elif move["again"]:
            said.append("throws again")
        moved, before = self._move_json(move), self.board()
        steps = self.game.presentation.steps
        if steps is not None:   # each checker's part of a bear-off's move
            cell = self.game.presentation.cell
            moved["steps"] = [{"from_cell": cell(self.seat, a), "to_cell": cell(self.seat, b)}
                              for a, b in steps(self.code, move["position"], self.throw)]
        self.frames[-1]["played"] = moved["text"]
        text = f"{self.says(self.seat, 'plays', 'play')} {moved['text']}"
        events = [self._event("move", text + (": " + ", ".join(said) if said else ""),
                              move=moved)]
        mover = self.seat
        self.now, self.moves = step(self.game, self.now, Action(PLAY, index)), []
        if self.over and moved["to_cell"] in self._cells:   # a winning piece on the board
            self.winning_piece = {"cell": moved["to_cell"], "seat": mover,
                                  "label": (before.get("labels") or {}).get(moved["from_cell"])}
        moved["sent"] = self._sent(1 - mover, before, self.board())
        if self.drawn:
            plies = self.game.draw_rule.plies
            events.append(self._event("draw", f"a draw: {plies // 2} moves each without a "
                                              "move that changes anything for good"))
        elif self.over:
            events.append(self._win_event())
        return events + self._throw_without_dice()

    @property
    def can_undo(self) -> bool:
        return bool(self.taken_back) and not self.over

    def undo(self) -> list[dict]:
        """Take back the person's last move, and the computer's turns after it: the
        position and throw it was made from, to move again (against the computer only;
        the throws to come are not replayed, so undoing cannot show them)."""
        if not self.can_undo:
            raise SessionError("nothing to take back: " + (
                "the game is over" if self.over else "no move of yours yet"))
        standing = self.taken_back.pop()
        decisions, frames = standing.pop("decisions"), standing.pop("frames")
        for name, value in standing.items():
            setattr(self, name, value)
        del self.decisions[decisions:], self.frames[frames:]
        self.frames[-1]["played"] = None
        return [self._event("undo", f"{self.says(self.seat, 'takes', 'take')} back the move "
                                    f"of throw {self.turn}")]

    def _standing(self) -> dict:
        return {name: getattr(self, name) for name in self.UNDONE} | {
            "decisions": len(self.decisions), "frames": len(self.frames)}

    def _legal(self):
        """The current moves as (next codes, overs, points a win scores per unit of
        cube)."""
        _, next_codes, infos = decision_form(self.game, self.moves)
        n = len(self.moves)
        overs = (infos[0, :n] & OVER) != 0
        return next_codes[0, :n], overs, won_points(self.game, self.cube, next_codes[0], overs)

    def _move_equities(self) -> np.ndarray:
        """The mover's equity after each current move, per unit of cube."""
        next_codes, overs, win = self._legal()
        return move_equities(self.judge.equities, next_codes, overs, self.cube_state(), win)

    def _worths(self) -> np.ndarray:
        """The current moves' worths for the mover, by which a person's move is judged:
        winning chances, or with the cube equities at the cube's value."""
        if self.cube is None:
            return self.judge.worths(self.game, self.moves)
        return self.cube.value * self._move_equities()

    def _win_event(self) -> dict:
        event = {"kind": "win", "seat": self.winner, "side": self.side(self.winner),
                 "text": f"{self.says(self.winner, 'wins', 'win')}"}
        if self.points is None:
            return event
        return event | {"points": self.points, "text": f"{event['text']} {self.points} "
                                                       f"point{'s' * (self.points != 1)}"}

    def computer_turns(self) -> list[dict]:
        """The computer's cube actions, throws and moves until a person is to act or the
        game ends. A computer that searches against the clock shares REPLY_MS among the
        searches of one reply, each at most its own limit."""
        events, limit = [], self.computer.seconds if self.computer else None
        deadline = None if limit is None else time.monotonic() + REPLY_MS / 1000
        while not self.over and self.seat not in self.humans and self.phase != TAKE:
            if self.can_double and self.computer.doubles(self.code, self.cube_state()):
                events += self.double()
                continue
            if self.throw is None:
                events += self.roll()
            if self.throw is not None:
                seconds = None if deadline is None else min(
                    limit, max(LEAST_MS / 1000, deadline - time.monotonic()))
                events += self.play(self.computer_choice(seconds))
        return events

    def computer_choice(self, seconds: float | None = None) -> int:
        """The computer's pick among the current moves; seconds: the time its search may
        take (None: its own limit, if any)."""
        if len(self.moves) == 1:
            return 0
        if self.cube is not None:
            _, next_codes, infos = decision_form(self.game, self.moves)
            n = len(self.moves)
            return self.computer.move_with_cube(self.code, next_codes[0, :n], infos[0, :n],
                                                self.cube, self.seat, self.rng.random,
                                                seconds)
        return int(self.computer.choose(np.array([self.code]),
                                        *decision_form(self.game, self.moves),
                                        np.array([self.rng.random()]), seconds=seconds)[0])

    def _event(self, kind, text, seat=None, **extra) -> dict:
        seat = self.seat if seat is None else seat
        return {"kind": kind, "seat": seat, "side": self.side(seat), "text": text, **extra}

    @staticmethod
    def _sent(seat: int, before: dict, after: dict) -> dict | None:
        """Where a move sent a piece of `seat`'s (the side that did not move), for the
        page to show it: {from_cell, to_cell} (to_cell a pool's cell, wait1 or off1,
        when it left the board), or None."""
        cells_before, cells_after = before["cells"], after["cells"]
        left = [c for c, s in cells_before.items() if s == seat and cells_after.get(c) != seat]
        if not left:
            return None
        came = [c for c, s in cells_after.items() if s == seat and cells_before.get(c) != seat]
        pools = [f"{name}{seat}" for name, key in (("wait", "waiting"), ("off", "off"))
                 if after[key][seat] > before[key][seat]]
        to = (came or pools or [None])[0]
        return {"from_cell": left[0], "to_cell": to} if to else None

    def _move_json(self, move) -> dict:
        cell = self.game.presentation.cell
        return {"from": move["from"], "to": move["to"], "text": move["text"],
                "from_cell": cell(self.seat, move["from"]), "to_cell": cell(self.seat, move["to"])}

    # -- what people see ----------------------------------------------------
    def legal_moves(self) -> list[dict]:
        """The legal moves for the page; where a move is tapped piece by piece (a play
        of backgammon's dice), each with its steps in every order the dice play it."""
        moves = [{"index": i, **self._move_json(m)} for i, m in enumerate(self.moves)]
        orders = self.game.presentation.orders
        if orders is not None:
            cell = self.game.presentation.cell
            for listed, move in zip(moves, self.moves):
                listed["orders"] = [[{"from_cell": cell(self.seat, a),
                                      "to_cell": cell(self.seat, b)} for a, b in steps]
                                    for steps in orders(self.code, move["position"], self.throw)]
        return moves

    @cached_property
    def _cells(self) -> set:
        """The board's squares (not the cells that show a pool, such as a tray)."""
        return {c["id"] for c in self.game.presentation.layout["cells"] if "pool" not in c}

    def board(self) -> dict:
        """Which seat has a piece on each cell, and the pools. A game won by reaching a
        square (EinStein's goal corner) takes the winning piece off the board in its
        code; the board people see shows it where it arrived."""
        view = self.game.presentation.board_view(self.code, first_to_throw=self.seat == 0)
        piece = self.winning_piece if self.over else None
        if piece is None:
            return view
        view = view | {"cells": view["cells"] | {piece["cell"]: piece["seat"]},
                       "off": [n - (seat == piece["seat"]) for seat, n in enumerate(view["off"])]}
        if piece["label"] is not None:
            view["labels"] = view["labels"] | {piece["cell"]: piece["label"]}
        return view

    def hint(self) -> dict:
        """The current moves ranked by the mover's winning chance, each with its loss
        against the best, in percentage points; with the cube, the cube's action (before
        a throw, or facing a double) or the moves, ranked by equity."""
        if self.judge is None:
            raise SessionError("no table or network to judge moves with")
        if self.cube is not None:
            return self._money_hint()
        if self.throw is None or not self.moves:
            raise SessionError("a hint needs a throw with legal moves: throw first")
        worths = self.judge.worths(self.game, self.moves)
        best = worths.max()
        ranked = sorted(range(len(self.moves)), key=lambda i: -worths[i])
        said = self.judge.outcomes(self.code, self.moves) if self.judge.outcomes else None
        return {"exact": self.judge.exact, "source": self.judge.source,
                "moves": [{"index": i, "text": self.moves[i]["text"],
                           "chance": float(worths[i]),
                           "loss_points": float(100 * (best - worths[i]))}
                          | ({"result": said[i]["result"], "plies": said[i]["plies"],
                              "said": outcome_words(said[i], person=True)}
                             if said else {}) for i in ranked]}

    def _money_hint(self) -> dict:
        if self.phase == MOVE and self.moves:
            options, equities = [m["text"] for m in self.moves], self._move_equities()
        elif self.phase == TAKE or self.can_double:
            options, equities = self._cube_decision()
        else:
            raise SessionError("nothing to decide: throw first")
        best = equities.max()
        ranked = sorted(range(len(options)), key=lambda i: -equities[i])
        return {"exact": self.judge.exact, "source": self.judge.source,
                "unit": "equity per unit of cube",
                "moves": [{"index": i, "text": options[i], "equity": float(equities[i]),
                           "loss": float(best - equities[i])} for i in ranked]}

    def review(self, seat: int) -> dict:
        """How `seat` played: what it gave away (in the loss_scale's unit), the error
        rate, the three worst decisions with the better choice, and its winning chance at
        every throw (and at the end, 1 or 0); with the cube, checker play and cube
        decisions counted apart too (parts)."""
        if self.judge is None:
            raise SessionError("no table or network to judge the game with")
        mine = [d for d in self.decisions if d.seat == seat]
        losses = np.array([d.loss for d in mine])
        worst = sorted(mine, key=lambda d: -d.loss)[:3]
        codes = self.game.codes([f["code"] for f in self.frames])
        values = self.judge.chances(codes) if len(codes) else np.empty(0)
        chances = [float(v if f["seat"] == seat else 1.0 - v)
                   for v, f in zip(values, self.frames)]
        if self.over:
            chances.append(0.5 if self.drawn else 1.0 if self.winner == seat else 0.0)
        scale, digits, unit = self.loss_scale
        review = {"side": self.side(seat), "seat": seat, "exact": self.judge.exact,
                  "source": self.judge.source, "decisions": len(mine),
                  "unit": unit, "digits": digits,
                  "points_given_away": float(scale * losses.sum()) if len(mine) else 0.0,
                  "error_rate": float((losses > ERROR_THRESHOLD).mean()) if len(mine) else 0.0,
                  "accuracy": float((losses <= ERROR_THRESHOLD).mean()) if len(mine) else 1.0,
                  "mean_loss_points": float(scale * losses.mean()) if len(mine) else 0.0,
                  "thresholds_points": dict(self.labels),
                  "thresholds_text": label_ranges(self.labels),
                  "judged": [self._judged(d) for d in mine],
                  "worst": [self._judged(d) for d in worst if d.loss > ERROR_THRESHOLD],
                  "chances": chances, "without_dice": not self.game.dice}
        if self.cube is None:
            return review
        parts = {}
        for kind, cube in (("checker", False), ("cube", True)):
            losses = [d.loss for d in mine if (d.throw is None) == cube]
            parts[kind] = {"decisions": len(losses), "wrong": sum(x > TIE for x in losses),
                           "points": float(sum(losses))}
        return review | {"parts": parts}

    def _judged(self, d: Decision) -> dict:
        points = self.loss_scale[0] * d.loss
        label = "best" if d.loss <= ERROR_THRESHOLD else \
            [name for name, least in self.labels if points >= least][-1]
        best = int(np.argmax(d.worths))
        played, better = d.moves[d.chosen]["text"], d.moves[best]["text"]
        if self.judge.outcomes is not None:   # what each led to, with best play
            said = self.judge.outcomes(d.code, [d.moves[d.chosen], d.moves[best]])
            played, better = (f"{text} ({outcome_words(s)})"
                              for text, s in zip((played, better), said))
        return {"turn": d.turn, "label": label, "loss_points": float(points),
                "throw": None if d.throw is None or not self.game.dice
                else self.throw_text(d.throw), "played": played, "better": better}

    def replay(self) -> list[dict]:
        """Every throw of the game so far, to step through: its frame (its number, who
        threw what, the move played: None for no legal move, and with the cube its
        action before the throw; a pass that ended the game is a last frame with no
        throw), with the side's name and the board before the move in place of the
        position."""
        return [{k: v for k, v in f.items() if k != "code"} | {
                    "side": self.side(f["seat"]),
                    "board": self.game.presentation.board_view(f["code"], f["seat"] == 0)}
                for f in self.frames]

    def state(self) -> dict:
        state = {"game": self.game.name, "rules": self.game.rules, "pieces": self.game.pieces,
                 "sides": self.game.presentation.sides,
                 "humans": sorted(self.humans), "phase": self.phase, "seat": self.seat,
                 "side": self.side(self.seat), "throw": self.throw,
                 "moves": self.legal_moves(), "board": self.board(), "winner": self.winner,
                 "turn": self.turn, "can_undo": self.can_undo}
        if self.cube is None:
            return state
        return state | {"cube": {"value": self.cube.value, "owner": self.cube.owner,
                                 "offered": self.cube.offered, "can_double": self.can_double},
                        "points": self.points}
