"""A money game of a race with the doubling cube (a bear-off), between a person and the
computer or two people at one screen: Session's throws, moves, undo and replay, and
the cube. Before a throw, the player on roll may double while the cube is centred or
theirs; the other side takes (the cube's value doubles and it passes to the taker) or
passes (and loses the cube's value). Winning scores the cube's value, twice that for
a gammon. The terminal (tabula/cube_play.py) and the web app both play through it.

Every figure is in points of equity at the cube's value of the moment, from cubeful
equities (eval/cube_regret.py): the table's exact ones, or a network's estimate."""
from dataclasses import dataclass

import numpy as np

from tabula.eval.cube_regret import (CENTERED, OWNED, TIE, UNAVAILABLE, CubePlayer,
                                     move_equities, net_player, random_start, table_player)
from tabula.eval.search import decision_form
from tabula.games.game import OVER
from tabula.infra.errors import TabulaError

from .session import Decision, Judge, Session, SessionError, seat_of

# A decision's loss in points of equity: LABELS' 2 and 5 points of winning chance, as
# equity (2 × chance - 1) counts them
CUBE_LABELS = (("inaccuracy", 0.0), ("mistake", 0.04), ("blunder", 0.10))
CUBE_LEVELS = ("journeyman", "master")   # the network, the table's perfect play


def cube_levels(table) -> tuple:
    """The levels the computer plays a game with the cube at: master only with a table."""
    return CUBE_LEVELS if table is not None else CUBE_LEVELS[:1]


@dataclass
class CubeJudge(Judge):
    """Cubeful equities of a table or a network (`player`); `values`: the cubeless
    winning chance, for the review's chart."""
    player: CubePlayer = None


def cube_judge(player: CubePlayer | None, exact: bool) -> CubeJudge | None:
    if player is None:
        return None
    return CubeJudge(lambda codes: player.values_of(codes).chance(), exact, player)


def start_cube_session(game, level: str = "journeyman", side: str | None = None,
                       hotseat: bool = False, seed: int | None = None, table=None,
                       model=None) -> "CubeSession":
    """A money game from a random start: a person plays `side` against the computer at
    `level` (journeyman: the network `model`; master: the table's perfect play), or
    two people play; judged by the table if given, else by the network."""
    seat = seat_of(game, side)
    perfect = table_player(table) if table is not None else None
    network = net_player(model) if model is not None else None
    computer = None
    if not hotseat:
        if level not in cube_levels(table):
            raise TabulaError(f"{game.name} is played at level journeyman (the network) or "
                              "master (perfect play: give a table), not at level "
                              f"{level}{' without a table' * (level == 'master')}")
        computer = perfect if level == "master" else network
        if computer is None:
            raise TabulaError(f"no network plays {game.name} with {game.pieces} checkers: "
                              "give a network, or a table for level master")
    judge = cube_judge(perfect, True) or cube_judge(network, False)
    humans = {0, 1} if hotseat else {seat}
    return CubeSession(game, humans, computer, judge, seed, None if hotseat else level)


@dataclass
class CubeSession(Session):
    cube: int = 1                 # the cube's value
    owner: int | None = None      # the seat that owns it (None: centred)
    offered: bool = False         # the player on roll has doubled: the other must answer
    points: int | None = None     # what the winner won

    LABELS = CUBE_LABELS
    LOSS_SCALE, LOSS_DIGITS, LOSS_UNIT = 1.0, 3, "points of equity at the cube's value"
    UNDONE = Session.UNDONE + ("cube", "owner", "offered", "cube_said")

    def __post_init__(self):
        super().__post_init__()
        self.code = random_start(self.game, self.rng)
        self.cube_said = None     # the cube's action before the coming throw, for replay

    @property
    def phase(self) -> str:
        return "take" if self.offered and not self.over else super().phase

    def cube_state(self, seat: int | None = None) -> str:
        """The cube as `seat` (the player on roll if None) sees it."""
        seat = self.seat if seat is None else seat
        return CENTERED if self.owner is None else OWNED if self.owner == seat else UNAVAILABLE

    @property
    def can_double(self) -> bool:
        return self.phase == "throw" and self.cube_state() != UNAVAILABLE

    # -- the cube -------------------------------------------------------------
    def double(self) -> list[dict]:
        """The player on roll doubles; the computer answers at once, a person later
        (answer)."""
        if not self.can_double:
            raise SessionError("no double now: " + (
                "the game is over" if self.over else "a double waits for its answer"
                if self.offered else "the throw is made" if self.throw is not None
                else f"{self.side(1 - self.seat)} owns the cube"))
        self._judge_cube(self.seat, 1)
        self.offered = True
        events = [self._event("double", f"{self.says(self.seat, 'doubles', 'double')} "
                                        f"to {2 * self.cube}", cube=2 * self.cube)]
        if 1 - self.seat not in self.humans:
            events += self.answer(self.computer.takes(self.code))
        return events

    def answer(self, take: bool) -> list[dict]:
        """The side facing the double takes or passes."""
        if self.phase != "take":
            raise SessionError("no double to answer")
        taker = 1 - self.seat
        self._judge_cube(taker, int(take))
        self.offered = False
        if take:
            self.cube, self.owner = 2 * self.cube, taker
            text = f"{self.says(taker, 'takes', 'take')}: the cube is at {self.cube}"
            self.cube_said = f"{self.side(self.seat)} doubled to {self.cube}, " \
                             f"{self.side(taker)} took"
            return [self._event("take", text, cube=self.cube)]
        self.winner, self.points = self.seat, self.cube
        return [self._event("pass", f"{self.says(taker, 'passes', 'pass')}"),
                self._win_event()]

    def _judge_cube(self, seat, chosen: int):
        """Record `seat`'s choice of the cube decision at hand, if a person's."""
        if seat in self.humans and self.judge is not None:
            options, equities = self._cube_decision()
            self.decisions.append(Decision(seat, self.turn + 1, self.code, None,
                                           [{"text": o} for o in options], chosen,
                                           self.cube * equities))

    def _cube_decision(self) -> tuple[list[str], np.ndarray]:
        """The cube decision at hand and each choice's equity, per unit of cube: for the
        player on roll, not doubling and doubling (the other side then answering well);
        for the side facing a double, passing and taking."""
        e = self.judge.player.values_of(np.array([self.code]))
        unavailable = e.no_double(UNAVAILABLE)[0]
        if self.offered:
            return ["pass", "take"], np.array([-1.0, -2 * unavailable])
        return (["no double", f"double to {2 * self.cube}"],
                np.array([e.no_double(self.cube_state())[0], min(2 * unavailable, 1.0)]))

    # -- the throws and moves (Session's, scored with the cube) ---------------
    def roll(self) -> list[dict]:
        if self.offered:
            raise SessionError(f"{self.side(1 - self.seat)} must first take or pass")
        if self.can_double and self.seat in self.humans:   # rolling is not doubling
            self._judge_cube(self.seat, 0)
        events = super().roll()
        self.frames[-1]["cube"], self.cube_said = self.cube_said, None
        return events

    def _legal(self):
        """The current moves as (next codes, overs, win points)."""
        _, next_codes, infos = decision_form(self.game, self.moves)
        n = len(self.moves)
        return (next_codes[0, :n], (infos[0, :n] & OVER) != 0,
                np.full(n, float(self.game.race.win_points(self.code))))

    def _move_equities(self) -> np.ndarray:
        """The mover's equity after each current move, per unit of cube."""
        next_codes, overs, win = self._legal()
        return move_equities(self.judge.player.values_of, next_codes, overs,
                             self.cube_state(), win)

    def _worths(self) -> np.ndarray:
        return self.cube * self._move_equities()

    def computer_choice(self) -> int:
        if len(self.moves) == 1:
            return 0
        next_codes, overs, win = self._legal()
        return self.computer.move(next_codes, overs, self.cube_state(), win)

    def computer_turns(self) -> list[dict]:
        """The computer's cube actions, throws and moves until a person is to act."""
        events = []
        while not self.over and self.seat not in self.humans and not self.offered:
            if self.can_double and self.computer.doubles(self.code, self.cube_state()):
                events += self.double()
                continue
            events += self.roll()
            if self.throw is not None:
                events += self.play(self.computer_choice())
        return events

    def _advance(self, index: int):
        win = self.game.race.win_points(self.code)
        super()._advance(index)
        if self.over:
            self.points = win * self.cube

    def _win_event(self) -> dict:
        points = f"{self.points} point{'s' * (self.points != 1)}"
        return super()._win_event() | {"points": self.points,
                                       "text": f"{self.says(self.winner, 'wins', 'win')} {points}"}

    # -- what people see ------------------------------------------------------
    def hint(self) -> dict:
        """The cube action (before a throw, or facing a double) or the moves, ranked by
        equity, each with its loss against the best."""
        if self.judge is None:
            raise SessionError("no table or network to judge with")
        if self.phase == "move" and self.moves:
            options, equities = [m["text"] for m in self.moves], self._move_equities()
        elif self.phase == "take" or self.can_double:
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
        """Session's review, with checker play and cube decisions counted apart."""
        review = super().review(seat)
        parts = {}
        for kind, cube in (("checker", False), ("cube", True)):
            losses = [d.loss for d in self.decisions if d.seat == seat and
                      (d.throw is None) == cube]
            parts[kind] = {"decisions": len(losses), "wrong": sum(x > TIE for x in losses),
                           "points": float(sum(losses))}
        return review | {"parts": parts}

    def state(self) -> dict:
        return super().state() | {
            "cube": {"value": self.cube, "owner": self.owner, "offered": self.offered,
                     "can_double": self.can_double},
            "points": self.points}
