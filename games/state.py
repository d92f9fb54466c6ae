"""A game played one decision at a time, as a state machine: the phases a game passes
through, the actions each allows, and one step function (as OpenSpiel's states: a
double, a take and a set-up are actions of the game, like a move).

Phases, and the actions of each:
  SETUP  `seat` arranges its pieces (Game.setup), seat 0 then seat 1:
         Action(ARRANGE, arrangement)
  THROW  `seat`, on roll, throws: Action(ROLL, throw), the throw drawn with Game.probs
         (chance_outcomes); or, where the game's cube rules let it (Game.cube), doubles
         first: Action(DOUBLE)
  TAKE   the other side answers `seat`'s double: Action(TAKE) or Action(PASS)
  MOVE   `seat` plays one of the throw's legal moves: Action(MOVE, its index)
  OVER   the game is over: `winner`, and with the cube the `points` won; or drawn
         (`winner` None) by the game's draw rule (Game.draw_rule: so many moves in a row
         that change nothing for good, counted in `quiet`)

A throw without a legal move passes the turn at once (the next state is the other
side's THROW); a move goes through games/loop.advance, the compiled loops' step. The
session people play (tabula/session.py) and the cube's regret (eval/cube_regret.py)
step through here.
"""
from dataclasses import dataclass, replace

import numpy as np

from .cube import CubeState
from .game import PositionError
from .loop import advance

SETUP, THROW, TAKE, MOVE, OVER = "setup", "throw", "take", "move", "over"
ARRANGE, ROLL, DOUBLE, ACCEPT, PASS, PLAY = "arrange", "roll", "double", "take", "pass", \
    "move"


@dataclass(frozen=True)
class Action:
    kind: str               # ARRANGE, ROLL, DOUBLE, ACCEPT, PASS or PLAY
    value: object = None    # the arrangement, the throw, or the move's index


@dataclass(frozen=True, eq=False)
class State:
    """Where a game stands. The position is seen by `seat`: the player on roll, or in
    OVER whoever would throw next (the loser after a winning move, the doubler after a
    pass); in TAKE, the decision is the other side's."""
    phase: str
    seat: int = 0
    code: int | None = None          # None until both sides have set up
    cube: CubeState | None = None    # with the doubling cube
    throw: int | None = None         # in MOVE: the throw to move with
    next_codes: np.ndarray | None = None   # in MOVE: the legal moves' results, and their
    infos: np.ndarray | None = None        # packed infos (Game.moves)
    arranged: tuple = ()             # in SETUP: the arrangements chosen so far
    winner: int | None = None        # in OVER: the winning seat, None for a draw
    points: int | None = None        # with the cube: what the winner won
    quiet: int = 0                   # moves in a row that changed nothing for good

    @property
    def deciding(self) -> int:
        """The seat whose decision it is."""
        return 1 - self.seat if self.phase == TAKE else self.seat


def begin(game, rng, start=None, seat: int = 0) -> State:
    """The state before a game's first decision: its set-up, or the first throw from
    `start` or, in a game dealt at random (Game.deal: a bear-off's money game), from a
    start drawn with `rng`; or from the position `start` where one is given, `seat` on
    roll in it (the code seen by that seat)."""
    cube = None if game.cube is None else CubeState()
    if start is not None:
        return State(THROW, seat=seat, code=start, cube=cube)
    if game.setup is not None:
        return State(SETUP, cube=cube)
    return State(THROW, code=game.start if game.deal is None else game.deal(rng), cube=cube)


def may_double(game, state: State) -> bool:
    return state.phase == THROW and game.cube is not None and \
        game.cube.may_double(state.cube, state.seat)


def legal_actions(game, state: State) -> list[Action]:
    """The decisions open in `state` (ROLL stands for the throw, a chance action: its
    throws are chance_outcomes)."""
    if state.phase == SETUP:
        return [Action(ARRANGE, a) for a in game.setup.arrangements]
    if state.phase == THROW:
        return [Action(ROLL)] + [Action(DOUBLE)] * may_double(game, state)
    if state.phase == TAKE:
        return [Action(ACCEPT), Action(PASS)]
    if state.phase == MOVE:
        return [Action(PLAY, i) for i in range(len(state.infos))]
    return []


def chance_outcomes(game) -> list[tuple[int, float]]:
    """The throws and their probabilities."""
    return [(int(t), float(p)) for t, p in zip(game.throws, game.probs)]


def step(game, state: State, action: Action) -> State:
    """The state after `action`, which must be legal in `state` (else a PositionError)."""
    kind, rules = action.kind, game.cube
    if state.phase == SETUP and kind == ARRANGE and action.value in game.setup.arrangements:
        arranged = state.arranged + (action.value,)
        if len(arranged) == 1:
            return replace(state, seat=1, arranged=arranged)
        return replace(state, phase=THROW, seat=0, arranged=(),
                       code=game.setup.start(*arranged))
    if state.phase == THROW and kind == ROLL:
        game.check_throw(action.value)
        next_codes, infos = game.move_arrays(state.code, action.value)
        if len(infos) == 0:
            return replace(state, seat=1 - state.seat,
                           code=game.plain_code(game.mirror(game.code(state.code))))
        return replace(state, phase=MOVE, throw=int(action.value), next_codes=next_codes,
                       infos=infos)
    if kind == DOUBLE and may_double(game, state):
        return replace(state, phase=TAKE, cube=rules.doubled(state.cube))
    if state.phase == TAKE and kind == ACCEPT:
        return replace(state, phase=THROW, cube=rules.taken(state.cube, 1 - state.seat))
    if state.phase == TAKE and kind == PASS:
        return replace(state, phase=OVER, winner=state.seat, points=rules.passed(state.cube))
    if state.phase == MOVE and kind == PLAY and isinstance(action.value, int) and \
            0 <= action.value < len(state.infos):
        code, passes, over = advance(game.mirror, state.code, len(state.infos),
                                     state.next_codes, state.infos, action.value)
        moved = replace(state, phase=THROW, code=game.plain_code(code), throw=None,
                        next_codes=None, infos=None)
        if over:   # the position after the move is the loser's to see
            return replace(moved, phase=OVER, seat=1 - state.seat, winner=state.seat,
                           points=None if rules is None
                           else rules.points(state.cube, game.points_won(code)))
        moved = replace(moved, seat=1 - state.seat) if passes else moved
        draw = game.draw_rule
        if draw is None:
            return moved
        chosen = state.next_codes[action.value]
        quiet = draw.quiet_after(state.quiet, state.code, chosen)
        return replace(moved, quiet=quiet, phase=OVER if quiet >= draw.plies else THROW)
    said = kind if action.value is None else f"{kind} {action.value}"
    raise PositionError(f"{said} is no legal action in the {state.phase} phase")
