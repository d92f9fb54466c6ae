"""GNU Backgammon for money play with the doubling cube: its cube decisions and its
cubeful checker play, at N plies. The Python module on PyPI (eval/gnubg_player.py) has
no cubeful evaluation, so these come from GNU Backgammon's command-line program
(Debian's package gnubg, `gnubg -t`) running eval/gnubg_server.py: one program a
player, started at its first question, ended with tabula's process.

gnubg's cube actions follow tabula's cube rules (solver/two_sided.py) from its
cubeful equities: its no-double equity, and half its double-take equity as the
no-double equity with the cube unavailable (a take doubles the cube and hands it
over). It moves by findbestmove with its cubeful evaluation in the cube state at
hand. The same program values positions for the referee's cube error rates
(eval/referee.py).
"""
import atexit
import json
import math
import subprocess
from pathlib import Path

from tabula.games.cube import CENTERED, OWNED, UNAVAILABLE

from tabula.solver.two_sided import doubles, takes

from .gnubg_player import OFF, GnubgError, played, throw_of

GNUBG = "/usr/games/gnubg"   # Debian's package gnubg
SERVER = Path(__file__).with_name("gnubg_server.py")
READY = "@ready"             # the server's first line (eval/gnubg_server.py)
OWNER = {CENTERED: -1, OWNED: 0, UNAVAILABLE: 1}   # gnubg's cube owner; 0: the roller


class GnubgProgram:
    """GNU Backgammon's program answering eval/gnubg_server.py's requests."""

    def __init__(self, executable: str = GNUBG):
        self.executable = executable
        self.process = None

    def ask(self, request: dict):
        if self.process is None:
            self.process = self._start()
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise GnubgError(f"{self.executable} stopped answering (exit code "
                             f"{self.process.poll()})")
        try:
            reply = json.loads(line)
        except json.JSONDecodeError:
            reply = None
        if isinstance(reply, dict) and "error" in reply:
            raise GnubgError(f"gnubg could not answer {request['op']}: {reply['error']}")
        if not isinstance(reply, list) or not all(
                isinstance(x, (int, float)) and math.isfinite(x) for x in reply):
            raise GnubgError(f"gnubg answered {request['op']} with {line.strip()[:80]!r}, "
                             "not a list of finite numbers")
        return reply

    def _start(self):
        if not Path(self.executable).exists():
            raise GnubgError(f"money play with gnubg needs GNU Backgammon's program "
                             f"{self.executable}: apt-get install gnubg")
        process = subprocess.Popen([self.executable, "-t", "-q", "-p", str(SERVER)],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True, bufsize=1)
        atexit.register(process.kill)
        for line in process.stdout:   # its banner, then READY
            if line.strip() == READY:
                return process
        raise GnubgError(f"{self.executable} ended before it was ready (exit code "
                         f"{process.wait()})")


class GnubgMoney:
    """A player's money play (Player.money) by gnubg at `plies` plies."""

    def __init__(self, game, plies: int, program: GnubgProgram | None = None):
        self.game, self.plies = game, plies
        self.program = program or GnubgProgram()

    def _board(self, code):
        return [list(side) for side in self.game.gnubg_board(code)]

    def cube(self, code, state: str) -> list[float]:
        """gnubg's (optimal, no double, double take, double pass) equities for the side on
        roll in `code`, the cube in `state` for it, a unit of the cube's value."""
        return self.program.ask({"op": "cube", "board": self._board(code),
                                 "owner": OWNER[state], "plies": self.plies})

    def chances(self, code) -> list[float]:
        """gnubg's five cubeless chances of the side on roll in `code`."""
        return self.program.ask({"op": "chances", "board": self._board(code), "owner": -1,
                                 "plies": self.plies})

    def no_doubles(self, code, state: str) -> tuple[float, float]:
        """gnubg's no-double equity of the side on roll in `code`, the cube in `state`
        for it, and its no-double equity with the cube unavailable (half its double-take
        equity), as tabula's cube rules read them (solver/two_sided.py)."""
        _, no_double, take, _ = self.cube(code, state)
        return no_double, take / 2

    def doubles(self, code, state: str) -> bool:
        return doubles(*self.no_doubles(code, state))

    def takes(self, code) -> bool:
        """Facing a double in `code` (seen by the doubler)."""
        return takes(self.no_doubles(code, CENTERED)[1])

    def move(self, code, next_codes, state: str) -> int:
        """The index among the results `next_codes` of gnubg's move from `code`."""
        throw = throw_of(self.game, code, next_codes)
        board = self._board(code)
        play = self.program.ask({"op": "move", "board": board, "owner": OWNER[state],
                                 "plies": self.plies, "dice": list(divmod(throw, 10))})
        steps = [point for pair in zip(play[::2], play[1::2]) if pair[0] != OFF
                 for point in pair]   # its unused moves are (0, 0)
        after = played(board, steps)
        for j, result in enumerate(next_codes):
            if tuple(self.game.gnubg_board(result)) == after:
                return j
        raise GnubgError(f"gnubg's move {steps} is none of the legal moves")
