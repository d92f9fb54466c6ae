"""tabula from Python, in a few lines: positions as the JSON the command line takes
and prints, results as plain dicts. docs/API.md shows each call (and is run as a
test). Everything here is a thin layer over the packages below; they stay usable
directly, for arrays of packed codes and compiled speed.
"""
from pathlib import Path

import numpy as np

from tabula.eval.measures import match as _match
from tabula.eval.measures import regret as _regret
from tabula.eval.players import make_player
from tabula.eval.search import decision_form
from tabula.runtime.model_file import OnnxValueModel
from tabula.games import Game, get_game
from tabula.solver.race_table import answer_of
from tabula.solver.solution import open_solution

__all__ = ["game", "open_table", "value", "moves", "open_model", "player", "regret",
           "match"]


def game(name: str, pieces: int | None = None, rules: str | None = None):
    """The game `name` under rule set `rules` with `pieces` a side (defaults if None)."""
    return get_game(name, pieces, rules)


def open_table(path):
    """A solved table (tabula solve): memory-mapped, or, for a race with the cube (the
    bear-offs), read into memory."""
    return open_solution(path)


def _code(game, position) -> int | complex:
    """The code of a position given as its JSON form, 'start' or a packed code."""
    if isinstance(position, str) and position == "start":
        return game.start
    if isinstance(position, (int, complex, np.number)) and not isinstance(position, bool):
        return game.code(position).item()
    return game.position_from_json(position)


def value(table, position) -> float | dict:
    """The exact winning chance of the player about to throw (position: its JSON form,
    'start', or a packed code); from a table of a game with the cube, what `tabula value
    --json` prints: the cubeless chances, the equities in each cube state and the cube
    action."""
    answer = table.answer(_code(table.game, position))
    return answer["value"] if len(table.value_names) == 1 else answer


def moves(source, position, throw: int) -> list[dict]:
    """The legal moves of `position` for `throw`, as `tabula moves --json` prints them:
    from, to, the resulting position (JSON, seen by whoever throws next), again, over,
    and the move in the game's notation where it has one ('13/7* 8/7'); with a table as
    `source` (else a game), each move's exact value too: the mover's winning chance
    after it (for a race table, its equities: cubeless and for each cube state, as
    tabula value prints them for the mover after the move)."""
    table = None if isinstance(source, Game) else source
    game = source if table is None else table.game
    code = _code(game, position)
    found = game.legal_moves(code, throw)
    written = game.presentation.notation
    answer = [{"from": m["from"], "to": m["to"], "position": game.to_json(m["position"]),
               "again": m["again"], "over": m["over"]}
              | ({"notation": written(code, m["position"], throw)} if written else {})
              for m in found]
    if table is not None:
        for move, said in zip(answer, table.move_answers(code, found)):
            move.update(said)
    return answer


class Model:
    """An exported network (tabula export), checked against its manifest."""

    def __init__(self, path):
        self.onnx = OnnxValueModel(path)
        self.game = self.onnx.game
        self.path = Path(path)

    def value(self, position) -> float | dict:
        """The network's estimate of the winning chance of the player about to throw;
        from a network of a game with the cube (its outputs are a race table's values),
        what `value` answers from such a table, estimated."""
        values = self.onnx.predict([_code(self.game, position)])[0]
        if np.ndim(values) == 0:
            return float(values)
        return answer_of({name: float(v) for name, v in zip(self.onnx.value_names, values)})

    def choose(self, position, throw: int, search: bool = False) -> dict | None:
        """The move the network plays (with one throw of search if `search`), in the
        form of `moves`; None when the throw has no legal move."""
        spec = f"{'net+search' if search else 'net'}:{self.path}"
        code = _code(self.game, position)
        found = self.game.legal_moves(code, throw)
        if not found:
            return None
        pick = make_player(spec, self.game).choose(np.array([code]),
                                                   *decision_form(self.game, found),
                                                   np.zeros(1))
        return moves(self.game, code, throw)[int(pick[0])]


def open_model(path) -> Model:
    return Model(path)


def player(spec: str, game, table=None):
    """A player as the command line names it: random, heuristic, expectimax:N,
    perfect (needs the table), net:MODEL.onnx, net+search:MODEL.onnx."""
    return make_player(spec, game, table)


def regret(table, spec: str, games: int = 1000, seed: int = 0) -> dict:
    """How much winning chance `spec` gives away against perfect play (the summary of
    `tabula eval regret --json`)."""
    return _regret(table, player(spec, table.game, table), games, seed).summary


def match(game, a: str, b: str, pairs: int = 1000, seed: int = 0,
          table=None) -> dict:
    """Duplicate pairs between players `a` and `b` (the answer of `tabula eval match`)."""
    return _match(player(a, game, table), player(b, game, table), pairs, seed, table)
