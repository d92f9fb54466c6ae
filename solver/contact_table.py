"""Money tables of games with contact, gammons and the cube (solver/contact.py), in HDF5.

File layout:
  attrs   the common fields (infra/manifest.py), values (JSON list of the names of
          solver/contact.py: VALUES), layers (JSON list of [a, b, first number]),
          sha256 (of the values' bytes), solve_seconds, sweeps, tolerance, residual
  values  float64 [position number, value]: positions numbered layer by layer as the
          layers list says, by the game's rank inside a layer; attrs: crc32
"""
import json
import os
from itertools import accumulate
import time
from pathlib import Path

import h5py
import numpy as np

from tabula.games.game import N_LAYER_IDS, OVER, layer_id
from tabula.infra.manifest import missing_fields, stamp
from tabula.infra.rng import cumulative
from tabula.infra.schemas import ContactTableAttributes

from . import contact
from .selfplay import play_games
from .race_table import (MoneyTable, RaceTableError, answer_of, arrays_sha256, crc32,
                         read_values_file, value_bounds)

FORMAT = "tabula-contact-table"
FORMAT_VERSION = 1
SPOT_POSITIONS = 256    # positions whose Bellman residual is measured on verify


class ContactTableError(RaceTableError):
    """A contact table that is missing, unreadable, damaged or made for another game."""


def solve_contact(game, out, threads=None, quiet=False, tol: float = 1e-9) -> dict:
    """Solve `game` into the table `out` (written as OUT.partial, then renamed)."""
    import numba

    from tabula.infra.provenance import peak_memory_bytes
    if threads is not None:
        numba.set_num_threads(threads)
    started = time.time()
    codes, offsets, values, figures = contact.solve_values(game, tol=tol, quiet=quiet)
    seconds = time.time() - started
    layers = [[a, b, int(offsets[layer_id(a, b)])] for a, b in game.solved_layers()]
    out = Path(out)
    partial = out.with_name(out.name + ".partial")
    meta = stamp(FORMAT, FORMAT_VERSION, game)
    with h5py.File(partial, "w") as f:
        f.attrs.update({**meta, "machine": json.dumps(meta["machine"]),
                        "values": json.dumps(list(contact.VALUES)),
                        "layers": json.dumps(layers), "sha256": arrays_sha256([values]),
                        "solve_seconds": seconds, "sweeps": figures["sweeps"],
                        "tolerance": tol, "residual": figures["residual"]})
        f.create_dataset("values", data=values).attrs["crc32"] = crc32(values)
    os.replace(partial, out)
    start = offsets[game.layer_of(game.start)] + game.rank(game.start)
    return {"game": game.name, "rules": game.rules, "pieces": game.pieces,
            "positions": len(codes), "layers": len(layers), **figures,
            "max_residual": figures["residual"], "start_value": float(values[start, 0]),
            "wall_seconds": seconds,
            "peak_memory_bytes": peak_memory_bytes(), "out": str(out)}


class ContactTable(MoneyTable):
    """A solved contact table, read into memory and checked: the contact kind of
    solution (solver/solution.py lists what every kind answers)."""

    def __init__(self, path, game: str | None = None, pieces: int | None = None,
                 rules: str | None = None):
        self.path = Path(path)
        self.attrs, self.header, self.game, self.table = read_values_file(
            self.path, FORMAT, ContactTableError, "a tabula contact table",
            ContactTableAttributes, contact.VALUES, game, pieces, rules)
        names = list(contact.VALUES)   # the columns, as the file was checked to hold
        self.offsets = self._offsets(self.header.layers)
        for k, (low, high) in enumerate(zip(*value_bounds(names))):
            column = self.table[:, k]
            if not (column.min() >= low - 1e-6 and column.max() <= high + 1e-6):
                raise ContactTableError(f"{self.path}: {names[k]} holds values outside "
                                        f"{low:g}..{high:g}, or not numbers: solve again")

    def _offsets(self, layers) -> np.ndarray:
        """Each layer id's first position number, after checking that the layers are
        the game's, numbered one after the other from 0, and the values as many."""
        ordered = sorted(layers, key=lambda layer: layer[2])
        fits = sorted((a, b) for a, b, _ in ordered) == sorted(self.game.solved_layers())
        if fits:
            sizes = [self.game.layer_size(a, b) for a, b, _ in ordered]
            fits = ([first for _, _, first in ordered] == list(accumulate([0, *sizes[:-1]]))
                    and self.table.shape == (sum(sizes), len(contact.VALUES)))
        if not fits:
            raise ContactTableError(f"{self.path}: values are not numbered over the layers "
                                    f"of {self.game.describe()}, {len(contact.VALUES)} a "
                                    "position")
        offsets = np.full(N_LAYER_IDS, -1, dtype=np.int64)
        for a, b, first in ordered:
            offsets[layer_id(a, b)] = first
        return offsets

    value_names = contact.VALUES

    @property
    def layers(self) -> list:
        return self.game.solved_layers()

    def numbers(self, codes) -> np.ndarray:
        return contact.numbers_of(self.game, self.offsets, codes)

    def values(self, codes) -> np.ndarray:
        """float32 (n, 9): the table's values of each code, in value_names order."""
        return self.table[self.numbers(codes)].astype(np.float32)

    def answer(self, code: int) -> dict:
        row = self.table[self.numbers([code])[0]]
        return answer_of(dict(zip(contact.VALUES, map(float, row))))

    def move_answers(self, code: int, moves: list) -> list[dict]:
        """Each legal move's equities to the mover (game.legal_moves form)."""
        g = self.game
        return [{"equity": self.after_move(
            m["position"], m["over"],
            int(g.loss_size(np.int64(m["position"]), g.pieces)) if m["over"] else 1)}
            for m in moves]

    def decision_worths(self, counts, next_codes, infos,
                        every_state: bool = False) -> np.ndarray:
        """float32 (n, M): each legal move's worth to the mover, for the decision loss of
        training: its equity with the cube centred, the opponent on roll doubling when
        right (solver/contact.py: turned_equities), or the win's size where the move ends
        the game; 0 in unused slots. every_state: (n, M, 3), its equity with the cube
        centred, owned and unavailable for the mover."""
        g = self.game
        live = np.arange(next_codes.shape[1]) < np.asarray(counts)[:, None]
        over = live & ((infos & OVER) != 0)
        states = 3 if every_state else 1
        worths = np.zeros(next_codes.shape + (states,), dtype=np.float32)
        worths[over] = np.array([g.loss_size(np.int64(c), g.pieces)
                                 for c in next_codes[over]], dtype=np.float32)[:, None]
        worths[live & ~over] = contact.turned_equities(
            self.values(next_codes[live & ~over]))[:, :states]
        return worths if every_state else worths[..., 0]

    def self_play(self, seed: int, first_game: int, n: int, explore: float,
                  alternatives: bool, capacity: int):
        """Table.self_play for a game with contact: games from the game's start, both
        sides playing the best cubeless move by the table (contact.best_cubeless_move)."""
        g = self.game
        out = np.empty(n * capacity, dtype=np.int64)
        kinds = np.zeros(n * capacity, dtype=np.uint8)
        counts = play_games(
            g.moves, g.mirror, g.layer_of, g.rank, g.loss_size, g.pieces, g.throws,
            cumulative(g.probs), g.max_moves, contact.best_cubeless_move, self.table,
            self.offsets, np.full(n, g.start, dtype=np.int64), seed, first_game, explore,
            alternatives, capacity, out, kinds)
        return counts, out, kinds

    def verify(self, sample: int | None = None, seed: int | None = None) -> dict:
        """The values' SHA-256 against the file's, the schema's fields, and the Bellman
        residual of `sample` positions drawn at random (every position where the table
        is smaller) against the file's certified residual."""
        sha256 = arrays_sha256([self.table])
        missing = missing_fields(self.attrs)
        rng = np.random.default_rng(seed)
        n = len(self.table)
        picked = (np.arange(n) if n <= (sample or SPOT_POSITIONS)
                  else rng.choice(n, size=sample or SPOT_POSITIONS, replace=False))
        residual = contact.spot_residual(self.game, self.offsets, self.table, picked)
        bound = max(self.header.residual, 1e-12) * 1.0001
        ok = sha256 == self.attrs["sha256"] and not missing and residual <= bound
        return {"table": str(self.path), "sha256_ok": sha256 == self.attrs["sha256"],
                "sha256": sha256, "missing_fields": missing, "positions_checked": len(picked),
                "spot_residual": residual, "certified_residual": self.header.residual,
                "ok": ok}

    @staticmethod
    def verify_text(report: dict) -> str:
        return (f"{report['table']}: sha256 {'ok' if report['sha256_ok'] else 'MISMATCH'}, "
                f"Bellman residual {report['spot_residual']:.2e} on "
                f"{report['positions_checked']:,} positions (certified "
                f"{report['certified_residual']:.2e}): {'ok' if report['ok'] else 'FAILED'}")

    def info(self) -> tuple[dict, str]:
        a = self.attrs
        answer = {"file": str(self.path), **{k: a[k] for k in (
            "game", "rules", "pieces", "sha256", "solve_seconds", "sweeps", "tolerance",
            "residual")}, "values": list(contact.VALUES), "positions": len(self.table)}
        return answer, "\n".join([
            f"{self.path}: {a['game']} ({a['rules']}), {a['pieces']} checker"
            f"{'s' if a['pieces'] > 1 else ''} a side, "
            f"{len(self.table):,} positions, money values with the cube",
            f"  values {', '.join(contact.VALUES)}",
            f"  solved {a.get('created')} by tabula {a.get('code_version')} in "
            f"{a['solve_seconds']:.1f} s, {a['sweeps']} sweeps, residual {a['residual']:.2e} "
            f"(tolerance {a['tolerance']:g})",
            f"  sha256 {a['sha256']}"])
