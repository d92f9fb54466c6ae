"""Win/loss/draw databases (solver/retrograde.py) as files: solved, resumed, read back,
answered and verified.

File layout (HDF5):
  attrs   the common fields (infra/manifest.py), values (["win"]: what values() gives,
          the side to move's score, OutcomeTable.values), slices (JSON list of [mm, mk, om, ok,
          first entry], in the order they were solved), sha256 (of the values' bytes),
          solve_seconds, and what the values hold: positions, wins, losses, draws,
          longest (the most plies to the end)
  values  uint16, one entry a position seen by the side to move, slice by slice, by
          checkers_rules.slice_rank: the plies to the end + 1 (odd: the side to move
          loses, even: it wins), 0 for a draw; attrs: crc32
A solve keeps each finished unit in OUT.partial/ (unit-K.npy, and the seconds it took in
unit-K.seconds) and starts from them when run again; solve_seconds adds up the units'
own time over every run. While it works, every value lives in OUT.partial/values.uint16,
memory-mapped: what the solve needs in memory is the unit at work and the values its
moves read (retrograde.memory_needed), not the whole database.
"""
import json
import os
import shutil
import time
from pathlib import Path

import h5py
import numpy as np
from numba import njit

from tabula.games.checkers import unpack
from tabula.games.checkers_rules import MAX_CHAIN, MAX_MOVES, legal_moves, other_view, \
    slice_unrank
from tabula.games.game import OVER, move_worths
from tabula.infra.manifest import missing_fields, stamp
from tabula.infra.progress import Progress
from tabula.infra.schemas import OutcomeTableAttributes

from . import retrograde
from .race_table import RaceTableError, arrays_sha256, crc32, read_values_file

FORMAT = "tabula-outcome-table"
FORMAT_VERSION = 1
VALUES_FILE = "values.uint16"   # the solve's values, memory-mapped, in OUT.partial/
SPOT_POSITIONS = 100_000   # positions checked against their moves by verify


class OutcomeTableError(RaceTableError):
    """An outcome table that is missing, unreadable, damaged or made for another game."""


def solve_outcomes(game, out, threads=None, quiet=False) -> dict:
    """Solve every position of `game` (at most game.pieces pieces) into `out`."""
    import numba

    from tabula.infra.provenance import peak_memory_bytes
    if threads is not None:
        numba.set_num_threads(threads)
    from .layered import check_memory
    base, length = retrograde.layout(game.pieces)
    check_memory(game, length, retrograde.memory_needed(game.pieces))
    out = Path(out)
    partial = out.with_name(out.name + ".partial")
    partial.mkdir(exist_ok=True)
    started = time.time()
    # every value waits in a file, memory-mapped: the pages a unit touches are in memory
    # while it works, and the kernel writes back and drops the others as memory runs short
    values = np.memmap(partial / VALUES_FILE, dtype=np.uint16, mode="w+", shape=(length,))
    units = retrograde.units(game.pieces)
    sizes = [sum(retrograde.slice_size(*s) for s in unit) for unit in units]
    progress = Progress(f"solve {game.describe()}", sum(sizes), "positions", quiet)
    done = 0
    unit_seconds = 0.0   # the units' own solving time, in this run or the ones before
    for k, (unit, size) in enumerate(zip(units, sizes)):
        first = int(base[retrograde.slice_id(*unit[0])])
        saved, timed = partial / f"unit-{k}.npy", partial / f"unit-{k}.seconds"
        if saved.is_file() and timed.is_file():
            values[first:first + size] = np.load(saved)
            unit_seconds += float(timed.read_text())
        else:
            began = time.time()
            retrograde.solve_unit(values, base, unit)
            took = time.time() - began
            np.save(partial / f"unit-{k}.tmp.npy", values[first:first + size])
            os.replace(partial / f"unit-{k}.tmp.npy", saved)
            timed.write_text(repr(took))
            unit_seconds += took
        done += size
        progress.update(done, note=f"slice {unit[0]}")
    seconds = time.time() - started
    figures = _figures(values)
    progress.done(f"{length:,} positions, {figures['draws']:,} drawn")
    slices = [[*s, int(base[retrograde.slice_id(*s)])] for unit in units for s in unit]
    meta = stamp(FORMAT, FORMAT_VERSION, game)
    written = out.with_name(out.name + ".writing")
    with h5py.File(written, "w") as f:
        f.attrs.update({**meta, "machine": json.dumps(meta["machine"]),
                        "values": json.dumps(list(OutcomeTable.value_names)),
                        "slices": json.dumps(slices), "sha256": arrays_sha256([values]),
                        "solve_seconds": unit_seconds, **figures})
        f.create_dataset("values", data=values).attrs["crc32"] = crc32(values)
    os.replace(written, out)
    del values
    shutil.rmtree(partial)
    return {"game": game.name, "rules": game.rules, "pieces": game.pieces,
            "units": len(units), **figures, "wall_seconds": seconds,
            "solve_seconds": unit_seconds,
            "peak_memory_bytes": peak_memory_bytes(), "out": str(out)}


def _figures(values) -> dict:
    counts = np.zeros(1 << 16, dtype=np.int64)   # counted a block at a time: bincount
    for first in range(0, len(values), 1 << 24):  # takes its input as 8-byte numbers
        counts += np.bincount(values[first:first + (1 << 24)], minlength=1 << 16)
    counts = np.trim_zeros(counts, "b")
    return {"positions": int(len(values)), "draws": int(counts[0]),
            "wins": int(counts[2::2].sum()), "losses": int(counts[1::2].sum()),
            "longest": int(len(counts) - 2) if len(counts) > 1 else 0}


def outcome(value: int) -> dict:
    """What a stored value says of the side to move: result, plies, score (1 a win, 1/2
    a draw, 0 a loss)."""
    if value == retrograde.DRAW:
        return {"result": "draw", "plies": None, "value": 0.5}
    won = value % 2 == 0
    return {"result": "win" if won else "loss", "plies": int(value) - 1,
            "value": 1.0 if won else 0.0}


def outcome_text(said: dict) -> str:
    if said["result"] == "draw":
        return "a draw with best play"
    verb = "wins" if said["result"] == "win" else "loses"
    return f"{verb} in {said['plies']} pl{'y' if said['plies'] == 1 else 'ies'}"


def after_move(their: dict) -> dict:
    """The mover's outcome after a move, from the other side's outcome then."""
    if their["result"] == "draw":
        return their
    return {"result": "loss" if their["result"] == "win" else "win",
            "plies": their["plies"] + 1, "value": 1.0 - their["value"]}


@njit(cache=True)
def _numbers(base, codes):
    """The entries of codes (games/checkers.py's)."""
    out = np.empty(len(codes), dtype=np.int64)
    for i in range(len(codes)):
        me, opp, kings = unpack(codes[i])
        out[i] = retrograde.index_of(base, me, opp, kings)
    return out


@njit(cache=True)
def _inconsistent(values, base, slices, numbers):
    """How many of the entries `numbers` disagree with what their moves and the values of
    the positions they lead to give (slices: rows mm, mk, om, ok, first entry, in the
    order of the entries)."""
    out = np.empty((MAX_MOVES, 5 + MAX_CHAIN), dtype=np.int64)
    work = np.zeros((5, MAX_CHAIN + 1), dtype=np.int64)
    wrong = 0
    for number in numbers:
        t = 0
        while t + 1 < len(slices) and slices[t + 1, 4] <= number:
            t += 1
        me, opp, kings = slice_unrank(slices[t, 0], slices[t, 1], slices[t, 2], slices[t, 3],
                                      number - slices[t, 4])
        n = legal_moves(me, opp, kings, out, work)
        fastest = 0      # the least value of a successor lost to the other side
        slowest = 0      # the most value of a successor won by it
        drawn = False
        for i in range(n):
            if out[i, 1] == 0:
                fastest = 1
                continue
            a, b, c = other_view(out[i, 0], out[i, 1], out[i, 2])
            v = values[retrograde.index_of(base, a, b, c)]
            if v == 0:
                drawn = True
            elif v % 2 == 1:
                fastest = v if fastest == 0 else min(fastest, v)
            else:
                slowest = max(slowest, v)
        expected = fastest + 1 if fastest else (0 if drawn else slowest + 1)
        wrong += values[number] != expected
    return wrong


PLY = 1e-6   # values(): a win a ply slower, a loss a ply slower, is worth this much less
             # and more (so that players who take the best value win fastest, lose slowest)


def scores(raw) -> np.ndarray:
    """The side to move's score of stored values: 1 a win, 1/2 a draw, 0 a loss, each moved
    towards 1/2 by PLY a ply to the end."""
    raw = np.asarray(raw, dtype=np.float64)
    plies = raw - 1
    return np.where(raw == retrograde.DRAW, 0.5,
                    np.where(raw % 2 == 0, 1.0 - PLY * plies, PLY * plies))


class OutcomeTable:
    """A solved outcome table, read into memory and checked: the outcome kind of
    solution (solver/solution.py lists what every kind answers)."""
    value_names = ("win",)   # values(): the side to move's score (scores), which players
                             # and judges take as they take a winning chance

    def __init__(self, path, game: str | None = None, pieces: int | None = None,
                 rules: str | None = None):
        self.path = Path(path)
        self.attrs, self.header, self.game, self.table = read_values_file(
            self.path, FORMAT, OutcomeTableError, "a tabula outcome table",
            OutcomeTableAttributes, self.value_names, game, pieces, rules)
        self.base, length = retrograde.layout(self.game.pieces)
        expected = [[*s, int(self.base[retrograde.slice_id(*s)])]
                    for unit in retrograde.units(self.game.pieces) for s in unit]
        if [list(s) for s in self.header.slices] != expected or len(self.table) != length \
                or self.table.dtype != np.uint16:
            raise OutcomeTableError(f"{self.path}: values are not laid out over the slices "
                                    f"of {self.game.describe()}: solve again")
        said = {k: getattr(self.header, k) for k in ("positions", "wins", "losses", "draws",
                                                      "longest")}
        if _figures(self.table) != said:
            raise OutcomeTableError(f"{self.path}: its counts of wins, losses, draws and "
                                    "plies are not those of its values: solve again")

    @property
    def layers(self) -> list:
        return self.game.solved_layers()

    def numbers(self, codes) -> np.ndarray:
        return _numbers(self.base, np.asarray(codes, dtype=np.int64))

    def values(self, codes) -> np.ndarray:
        """float64 (n,): the side to move's score with best play (scores)."""
        return scores(self.table[self.numbers(codes)])

    def answer(self, code: int) -> dict:
        return outcome(int(self.table[self.numbers([code])[0]]))

    def answers(self, codes) -> list[dict]:
        return [outcome(int(v)) for v in self.table[self.numbers(codes)]]

    def answer_text(self, code: int) -> str:
        return f"the side to move {outcome_text(self.answer(code))}"

    def move_answers(self, code: int, moves: list) -> list[dict]:
        """Each legal move's outcome to the mover (game.legal_moves form)."""
        return [{"result": "win", "plies": 1, "value": 1.0} if m["over"]
                else after_move(self.answer(m["position"])) for m in moves]

    def _worths(self, counts, next_codes, infos) -> np.ndarray:
        live = np.arange(next_codes.shape[1]) < np.asarray(counts)[:, None]
        return move_worths(next_codes, infos, live, self.values)

    def best_moves(self, counts, next_codes, infos) -> np.ndarray:
        """The perfect policy: the fastest win, else a draw, else the slowest loss (the
        first of equals), decisions in rows of next_codes and infos with counts[i] moves."""
        return np.argmax(self._worths(counts, next_codes, infos), axis=1)

    def decision_losses(self, counts, next_codes, infos, chosen) -> np.ndarray:
        """The judge matches use: each decision's loss in score, the best move's worth
        less the chosen one's (a win thrown to a draw: about 0.5)."""
        worths = self._worths(counts, next_codes, infos)
        return worths.max(axis=1) - worths[np.arange(len(chosen)), chosen]

    def value(self, code: int) -> float:
        return float(self.values([code])[0])

    def decision_worths(self, counts, next_codes, infos) -> np.ndarray:
        """float32 (n, M): each legal move's score to the mover, 0 in unused slots."""
        worths = self._worths(counts, next_codes, infos)
        return np.where(np.isfinite(worths), worths, 0.0).astype(np.float32)

    def move_outcomes(self, counts, next_codes, infos) -> tuple[np.ndarray, np.ndarray]:
        """(result, plies) to the mover of each move of decisions in decision form: 0 a
        loss, 1 a draw, 2 a win, and the plies to the end (-1 for a draw; both -1 in
        unused slots)."""
        live = np.arange(next_codes.shape[1]) < np.asarray(counts)[:, None]
        over = live & ((infos & OVER) != 0)
        going = live & ~over
        raw = np.zeros(next_codes.shape, dtype=np.int64)
        raw[going] = self.table[self.numbers(next_codes[going])]   # the other side's
        result = np.where(raw == retrograde.DRAW, 1, np.where(raw % 2 == 0, 0, 2))
        plies = np.where(raw == retrograde.DRAW, -1, raw)          # theirs + 1: ours
        return (np.where(over, 2, np.where(live, result, -1)),
                np.where(over, 1, np.where(live, plies, -1)))

    def self_play(self, seed: int, first_game: int, n: int, explore: float,
                  alternatives: bool, capacity: int):
        raise OutcomeTableError(f"{self.path}: an outcome table plays no games of its own "
                                "(a drawn endgame never ends): draw its positions uniformly "
                                "(tabula datagen --games 0 --uniform M)")

    def verify(self, sample: int | None = None, seed: int | None = None) -> dict:
        """The values' SHA-256 against the file's, the schema's fields, and `sample`
        positions drawn at random (every one where the table is smaller) consistent with
        their moves: won in the fewest plies a move allows, lost in the most, drawn
        where neither. (Held for every position, this proves the table exact.)"""
        sha256 = arrays_sha256([self.table])
        missing = missing_fields(self.attrs)
        rng = np.random.default_rng(seed)
        n = len(self.table)
        want = sample or SPOT_POSITIONS
        picked = np.arange(n) if n <= want else np.sort(rng.choice(n, size=want, replace=False))
        slices = np.array([list(s) for s in self.header.slices], dtype=np.int64)
        slices = slices[np.argsort(slices[:, 4], kind="stable")]
        wrong = int(_inconsistent(self.table, self.base, slices, picked))
        ok = sha256 == self.attrs["sha256"] and not missing and wrong == 0
        return {"table": str(self.path), "sha256_ok": sha256 == self.attrs["sha256"],
                "sha256": sha256, "missing_fields": missing, "positions_checked": len(picked),
                "inconsistent": wrong, "ok": ok}

    @staticmethod
    def verify_text(report: dict) -> str:
        return (f"{report['table']}: sha256 {'ok' if report['sha256_ok'] else 'MISMATCH'}, "
                f"{report['inconsistent']:,} of {report['positions_checked']:,} positions "
                f"disagree with their moves: {'ok' if report['ok'] else 'FAILED'}")

    def info(self) -> tuple[dict, str]:
        a = self.attrs
        answer = {"file": str(self.path), **{k: a[k] for k in (
            "game", "rules", "pieces", "sha256", "solve_seconds", "positions", "wins",
            "losses", "draws", "longest")}}
        return answer, "\n".join([
            f"{self.path}: {a['game']} ({a['rules']}), every position with at most "
            f"{a['pieces']} pieces: {a['positions']:,} positions seen by the side to move "
            f"(each also stands for its colours reversed)",
            f"  {a['wins']:,} won, {a['losses']:,} lost, {a['draws']:,} drawn for the side to "
            f"move; the most plies to the end: {a['longest']}",
            f"  solved {a.get('created')} by tabula {a.get('code_version')} in "
            f"{a['solve_seconds']:.1f} s",
            f"  sha256 {a['sha256']}"])
