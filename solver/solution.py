"""The solver's registry of solution kinds: the one place that knows which solver a
game takes and which class opens a solved file. A game's kind follows from what it
declares (games.game.Race: sides that never meet, played for money with the cube) and
a file's from its format; everything above the solver opens solutions with
open_solution, solves with solve_game, and asks a solution only what every kind
answers:

  game, path, attrs          the variant it solves, its file, the file's header
  value_names                what its values are: a winning chance, or money equities
                             per cube state (solver/values.py)
  values(codes)              the values of positions: (n,) for one value, else (n, k)
  answer(code), answers(codes), answer_text(code)
                             all it says of a position (tabula value)
  move_answers(code, moves)  each legal move's value or equities to the mover
  decision_losses(...)       the judge of regret (one value: the layered kind; the
                             cube's checker and cube decisions: eval/cube_regret.py)
  self_play(...)             games of its perfect player against itself, with
                             exploration, compiled (datagen); the race kind from random
                             starts, without alternatives
  info(), verify(sample)     what the file holds, and its checks (tabula table)

and what compiled kernels need of the layered kind besides: best_moves (the perfect
policy, eval's perfect player) and decision_worths (every legal move's worth, for
decision losses and decision sets). Nothing above the solver reads a solution's arrays
(tests/test_architecture.py).
"""
import functools
import os
from dataclasses import dataclass
from typing import Callable

import h5py

from tabula.games import Game

from . import contact_table, outcome_table, race_table, table


@dataclass(frozen=True)
class SolutionKind:
    name: str
    format: str           # the file format it writes (infra/manifest.py)
    opens: type           # the class that opens its files
    options: tuple        # the solve settings it honours; tabula solve refuses others
    solve: Callable       # (game, out, quiet, **options) -> summary dict
    interrupted: str      # what an interrupted solve leaves, for the message


def _solve_layered(game, out, quiet=False, **options):
    from .layered import solve
    return solve(game, out, quiet=quiet, **options)


LAYERED = SolutionKind(
    "layered", table.FORMAT, table.Table, ("tol", "threads", "max_total", "unit_solver", "cluster"),
    _solve_layered, "finished layers are kept in OUT.partial/, run the same command again "
                    "to resume")
RACE = SolutionKind(
    "race", race_table.FORMAT, race_table.RaceTable, ("threads", "one_sided"),
    race_table.solve_race, "nothing written (a race table is solved in one pass)")
CONTACT = SolutionKind(
    "contact", contact_table.FORMAT, contact_table.ContactTable, ("threads", "tol"),
    contact_table.solve_contact, "nothing written (a contact table is solved in memory: "
                                 "run the same command again)")
OUTCOME = SolutionKind(
    "outcome", outcome_table.FORMAT, outcome_table.OutcomeTable, ("threads",),
    outcome_table.solve_outcomes, "finished slices are kept in OUT.partial/, run the same "
                                  "command again to resume")
KINDS = (LAYERED, RACE, CONTACT, OUTCOME)


def kind_of_game(game: Game) -> SolutionKind:
    """The kind that solves `game`: races with the cube in one pass over the pips; games
    with contact, gammons and the cube (a compiled loss_size) as money tables of every
    position; games without dice that may be drawn as win/loss/draw databases by
    retrograde analysis; any other game by layered value iteration."""
    if game.capabilities.draws:
        return OUTCOME
    if game.race is not None:
        return RACE
    return CONTACT if game.cube is not None and game.loss_size is not None else LAYERED


def file_format(path) -> str | None:
    """The format a tabula HDF5 file says it has (None for anything else)."""
    try:
        with h5py.File(path, "r") as f:
            found = f.attrs.get("format")
    except OSError:
        return None
    return found if isinstance(found, str) else None


def open_solution(path, game: str | None = None, pieces: int | None = None,
                  rules: str | None = None):
    """The solved file at `path`, opened by its kind's class and checked against the
    game, piece count and rule set asked for (None: any)."""
    found = file_format(path)
    kind = next((k for k in KINDS if k.format == found), LAYERED)   # LAYERED says what
    return kind.opens(path, game=game, pieces=pieces, rules=rules)  # else it is


@functools.lru_cache(maxsize=2)
def _opened(path: str, stamp: tuple):
    return open_solution(path)


def open_shared(path):
    """The solved file at `path` as a worker on a cluster opens it: kept open between
    the units it runs (the same file, not changed since: its size and time)."""
    info = os.stat(path)
    return _opened(str(path), (info.st_size, info.st_mtime_ns))


def solve_game(game: Game, out, quiet: bool = False, **options) -> dict:
    """Solve `game` into `out` by its kind; `options` are the kind's settings."""
    kind = kind_of_game(game)
    unknown = sorted(set(options) - set(kind.options))
    if unknown:
        raise TypeError(f"{kind.name} solves take no {', '.join(unknown)}")
    return kind.solve(game, out, quiet=quiet, **options)
