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
from tabula.export.model_file import OnnxValueModel
from tabula.games import get_game
from tabula.solver.bellman import table_move_worths
from tabula.solver.race_table import RaceTable, open_table_file
from tabula.solver.table import Table

__all__ = ["game", "open_table", "value", "moves", "open_model", "player", "regret",
           "match"]


def game(name: str, pieces: int | None = None):
    """The game `name` with `pieces` a side (its default if None)."""
    return get_game(name, pieces)


def open_table(path) -> Table | RaceTable:
    """A solved table (tabula solve), memory-mapped; a race table (bear-offs, with the
    cube) read into memory."""
    return open_table_file(path)


def _code(game, position) -> int:
    if position == "start":
        return game.start
    if isinstance(position, (int, np.integer)) and not isinstance(position, bool):
        return int(position)
    return game.position_from_json(position)


def value(table: Table | RaceTable, position) -> float | dict:
    """The exact winning chance of the player about to throw (position: its JSON form,
    'start', or a packed code); from a race table, what `tabula value --json` prints:
    the cubeless chances, the equities in each cube state and the cube action."""
    if isinstance(table, RaceTable):
        return table.answer(_code(table.game, position))
    return table.value(_code(table.game, position))


def moves(source, position, throw: int) -> list[dict]:
    """The legal moves of `position` for `throw`, as `tabula moves --json` prints them:
    from, to, the resulting position (JSON, seen by whoever throws next), again,
    over; with a table as `source` (else a game), each move's exact value too: the
    mover's winning chance after it (for a race table, its equities: cubeless and for
    each cube state, as tabula value prints them for the mover after the move)."""
    table = source if isinstance(source, (Table, RaceTable)) else None
    game = table.game if table is not None else source
    code = _code(game, position)
    found = game.legal_moves(code, throw)
    answer = [{"from": m["from"], "to": m["to"], "position": game.to_json(m["position"]),
               "again": m["again"], "over": m["over"]} for m in found]
    if isinstance(table, RaceTable):    # a race: each move's equities, cube states apart
        points = game.race.win_points(code)
        for move, m in zip(answer, found):
            move["equity"] = table.after_move(m["position"], m["over"], points)
    elif table is not None and found:
        for move, worth in zip(answer, table_move_worths(
                table, [m["position"] for m in found], [m["info"] for m in found])):
            move["value"] = float(worth)
    return answer


class Model:
    """An exported network (tabula export), checked against its manifest."""

    def __init__(self, path):
        self.onnx = OnnxValueModel(path)
        self.game = self.onnx.game
        self.path = Path(path)

    def value(self, position) -> float:
        """The network's estimate of the winning chance of the player about to throw."""
        return float(self.onnx.predict([_code(self.game, position)])[0])

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


def player(spec: str, game, table: Table | None = None):
    """A player as the command line names it: random, heuristic, expectimax:N,
    perfect (needs the table), net:MODEL.onnx, net+search:MODEL.onnx."""
    return make_player(spec, game, table)


def regret(table: Table, spec: str, games: int = 1000, seed: int = 0) -> dict:
    """How much winning chance `spec` gives away against perfect play (the summary of
    `tabula eval regret --json`)."""
    return _regret(table.game, table, player(spec, table.game, table), games, seed).summary


def match(game, a: str, b: str, pairs: int = 1000, seed: int = 0,
          table: Table | None = None) -> dict:
    """Duplicate pairs between players `a` and `b` (the answer of `tabula eval match`)."""
    return _match(game, player(a, game, table), player(b, game, table), pairs, seed, table)
