"""`tabula play` for races with the doubling cube (bear-offs): a money game in the
terminal against the computer, the cube offered to the person before each of their
rolls and answered by the computer. Moves in backgammon notation (6/2 5/off), pip
counts on the board; hints and the review at the end from the table's equities when a
table is given, else from the network's. The computer plays eval/cube_regret.py's
CubePlayer: the table's perfect play, or a network's values."""
import numpy as np

from tabula.eval.cube_regret import (CENTERED, OWNED, TIE, UNAVAILABLE, CubePlayer,
                                     double_loss, move_equities, random_start, take_loss)
from tabula.games.game import OVER
from tabula.infra.markdown import to_text
from tabula.solver.two_sided import doubles, takes

from .play import Console


class CubeGame:
    """One money game from a random start; seat 0 rolls first."""

    def __init__(self, game, seed=None):
        self.game, self.rng = game, np.random.default_rng(seed)
        self.code = random_start(game, self.rng)
        self.cube, self.owner, self.seat = 1, None, 0
        self.result = None           # (winning seat, points) when over

    def state(self) -> str:
        if self.owner is None:
            return CENTERED
        return OWNED if self.owner == self.seat else UNAVAILABLE

    def cube_text(self) -> str:
        sides = self.game.presentation.sides
        where = "centred" if self.owner is None else f"owned by {sides[self.owner]}"
        return f"cube at {self.cube}, {where}"

    def double(self, taken: bool):
        if taken:
            self.cube, self.owner = 2 * self.cube, 1 - self.seat
        else:
            self.result = (self.seat, self.cube)

    def roll(self):
        """The throw and its moves: (throw, next codes, overs, win points)."""
        g = self.game
        throw = int(self.rng.choice(g.throws, p=g.probs))
        codes = np.zeros(g.max_moves, dtype=np.int64)
        infos = np.zeros(g.max_moves, dtype=np.int64)
        n = g.moves(np.int64(self.code), np.int64(throw), codes, infos)
        return (throw, codes[:n], (infos[:n] & OVER) != 0,
                np.full(n, float(g.race.win_points(self.code))))

    def play(self, next_code, over, win):
        if over:
            self.result = (self.seat, int(win) * self.cube)
        else:
            self.code, self.seat = int(next_code), 1 - self.seat


def _dice(throw: int) -> str:
    return f"{throw // 10}-{throw % 10}"


def play_cube_game(game, computer: CubePlayer, judge: CubePlayer | None, console: Console,
                   human: int = 0, seed=None):
    """Play one game; returns (winning seat, points), or None when the person quits.
    judge: the table's player (exact hints and review), else the computer's network
    judges."""
    state = CubeGame(game, seed)
    exact = judge is not None
    judge = judge or computer
    source = "exact, from the table" if exact else "the network's estimate"
    losses = {"checker": [], "cube": []}   # the person's decisions: equity given away
    names = game.presentation.sides
    console.say(f"{game.name} with up to {game.pieces} checkers a side, money play with the "
                f"doubling cube: you play {names[human]} against the computer "
                f"({computer.name}); {names[0]} rolls first. Type 'rules' for the rules.")
    while state.result is None:
        console.say()
        console.say(game.presentation.board(state.code, first_to_throw=state.seat == 0))
        console.say(f"  {state.cube_text()}; {names[state.seat]} to roll")
        mine = state.seat == human
        if state.state() != UNAVAILABLE:
            if mine:
                answer = _ask(console, "d to double, r to roll, ? for the cube hint, "
                              "rules, q to quit: ", ("d", "r"), judge, state, source)
                if answer is None:
                    return None
                losses["cube"].append(_double_loss(judge, state, answer == "d"))
                if answer == "d":
                    taken = computer.takes(state.code)
                    console.say(f"  you double; the computer {'takes' if taken else 'passes'}")
                    state.double(taken)
            elif computer.doubles(state.code, state.state()):
                console.say(f"  the computer doubles to {2 * state.cube}")
                answer = _ask(console, "t to take, p to pass, ? for the hint, q to quit: ",
                              ("t", "p"), judge, state, source, facing_double=True)
                if answer is None:
                    return None
                losses["cube"].append(_take_loss(judge, state, answer == "t"))
                state.double(answer == "t")
            if state.result is not None:
                break
        throw, codes, overs, win = state.roll()
        console.say(f"  {'you' if mine else 'the computer'} ({names[state.seat]}) "
                    f"roll{'s' * (not mine)} {_dice(throw)}")
        plays = [game.presentation.notation(state.code, int(c), throw) for c in codes]
        if mine and len(codes) > 1:
            choice = _ask_move(console, state, codes, overs, win, judge, plays, source)
            if choice is None:
                return None
            equity = move_equities(judge.values_of, codes, overs, state.state(), win)
            losses["checker"].append(state.cube * float(equity.max() - equity[choice]))
        else:
            choice = computer.move(codes, overs, state.state(), win) if len(codes) > 1 else 0
        console.say(f"  {'you' if mine else 'the computer'} ({names[state.seat]}) "
                    f"play{'s' * (not mine)} {plays[choice]}")
        state.play(codes[choice], overs[choice], win[choice])
    seat, points = state.result
    console.say(f"\n{'you' if seat == human else 'the computer'} ({names[seat]}) "
                f"win{'s' * (seat != human)} {points} point{'s' if points != 1 else ''}.")
    console.say(_review(losses, source))
    return state.result


def _review(losses, source) -> str:
    """How the person played: equity given away in checker play and in cube decisions,
    in points at the cube's value of the moment."""
    checker, cube = losses["checker"], losses["cube"]
    wrong = sum(loss > TIE for loss in checker), sum(loss > TIE for loss in cube)
    return (f"How you played ({source}; points at the cube's value):\n"
            f"  checker play: {len(checker)} decisions, {wrong[0]} not the best, "
            f"{sum(checker):.3f} points given away\n"
            f"  cube: {len(cube)} decisions, {wrong[1]} wrong, {sum(cube):.3f} points given away")


def _double_loss(judge, state, doubled: bool) -> float:
    """Equity the person gives away by doubling or not, in points at the cube value."""
    e = judge.values_of(np.array([state.code]))
    return state.cube * double_loss(e.no_double(state.state())[0], e.no_double(UNAVAILABLE)[0],
                                    doubled)


def _take_loss(judge, state, taken: bool) -> float:
    """Equity the person gives away taking or passing the computer's double (the
    position is the doubler's), in points at the cube value."""
    e = judge.values_of(np.array([state.code]))
    return state.cube * take_loss(e.no_double(UNAVAILABLE)[0], taken)


def _ask(console, prompt, choices, judge, state, source, facing_double=False):
    return console.choose(
        prompt, lambda answer: answer if answer in choices else None,
        {"rules": lambda: console.say(to_text(state.game.presentation.rules_text())),
         "?": lambda: console.say(f"  ({source})\n" + _cube_hint(judge, state, facing_double))},
        f"is not an answer here: type one of {', '.join(choices)}")


def _cube_hint(judge, state, facing_double) -> str:
    e = judge.values_of(np.array([state.code]))
    nd, unavailable = e.no_double(state.state())[0], e.no_double(UNAVAILABLE)[0]
    take = 2 * unavailable
    if facing_double:
        return (f"  taking costs you {take:.3f} times the cube, passing 1.000: "
                f"{'take' if takes(unavailable) else 'pass'}")
    right = "double" if doubles(nd, unavailable) else "no double"
    return (f"  not doubling: {nd:+.3f}; doubling: {min(take, 1.0):+.3f} (take {take:+.3f}, "
            f"pass +1.000), per unit of cube: {right}")


def _ask_move(console, state, codes, overs, win, judge, plays, source):
    for j, play in enumerate(plays, 1):
        console.say(f"  {j}: {play}")

    def hint():
        equity = move_equities(judge.values_of, codes, overs, state.state(), win)
        console.say(f"  moves from best to worst ({source}):")
        for j in np.argsort(-equity):
            console.say(f"  {j + 1}: {plays[j]}: equity {equity[j]:+.4f} per unit of cube, "
                        f"{equity.max() - equity[j]:.4f} less than the best")

    return console.choose_move(f"your move (1-{len(codes)}, ? for a hint, q to quit): ",
                               len(codes), {"?": hint})
