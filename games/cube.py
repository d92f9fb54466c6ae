"""The doubling cube as rules a game declares (Game.cube): who may double, what a take
and a pass do, and what a win scores. Any game with two sides may be played for money
with it; the session, the players and the judge read these rules and nothing else.

The cube starts centred at 1. Before throwing, the player on roll may double while the
cube is centred or theirs; the other side then takes (the cube's value doubles and the
taker owns it) or passes (and loses the cube's value). A win scores its size (1, or 2
for a gammon, 3 for a backgammon: Game.win_size) times the cube's value; under the
Jacoby rule a gammon or backgammon counts single while the cube is centred.
"""
from dataclasses import dataclass, replace

# The cube as the player on roll sees it: theirs to turn while centred or owned, the
# other side's to turn when unavailable.
CENTERED, OWNED, UNAVAILABLE = "centered", "owned", "unavailable"
FLIP = {CENTERED: CENTERED, OWNED: UNAVAILABLE, UNAVAILABLE: OWNED}   # the other's view


@dataclass(frozen=True)
class CubeState:
    """Where the cube stands: its value, its owner (a seat; None: centred) and whether
    the player on roll has doubled and waits for the answer."""
    value: int = 1
    owner: int | None = None
    offered: bool = False


@dataclass(frozen=True)
class Cube:
    """The doubling cube's rules (money play)."""
    jacoby: bool = False    # gammons and backgammons count single while the cube is centred

    @staticmethod
    def access(state: CubeState, seat: int) -> str:
        """The cube as `seat` sees it: CENTERED, OWNED or UNAVAILABLE."""
        return CENTERED if state.owner is None else OWNED if state.owner == seat \
            else UNAVAILABLE

    def may_double(self, state: CubeState, seat: int) -> bool:
        """Whether `seat`, on roll and before throwing, may double now."""
        return not state.offered and self.access(state, seat) != UNAVAILABLE

    @staticmethod
    def doubled(state: CubeState) -> CubeState:
        return replace(state, offered=True)

    @staticmethod
    def taken(state: CubeState, taker: int) -> CubeState:
        """The cube after `taker` takes: twice the value, the taker's."""
        return CubeState(2 * state.value, taker)

    @staticmethod
    def passed(state: CubeState) -> int:
        """What the doubler wins when the double is passed: the value before it."""
        return state.value

    def points_a_unit(self, state: CubeState, size: int) -> int:
        """What a win of `size` (1 single, 2 gammon, 3 backgammon) scores for each unit
        of the cube's value (the unit equities are counted in)."""
        return 1 if self.jacoby and state.owner is None else size

    def points(self, state: CubeState, size: int) -> int:
        """What a win of `size` scores."""
        return self.points_a_unit(state, size) * state.value
