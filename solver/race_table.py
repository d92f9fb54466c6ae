"""Tables of race games whose sides never meet (solver/two_sided.py), in HDF5.

File layout:
  attrs   the common fields (infra/manifest.py), values (JSON list of the names below),
          sha256 (of the values' float32 bytes in that order, then rolls), solve_seconds
  values/NAME   float32 [mover's side index, opponent's side index] (games.game.Race
                side_index), NAME in win, win_gammon, lose_gammon (gammons only with
                15 checkers), centered, owned, unavailable; attrs: crc32
  rolls         float64 [side index, r]: the chance that the side needs exactly r
                throws to bear off (solver/one_sided.py); attrs: crc32
A table of --one-sided holds `rolls` only.
"""
import hashlib
import json
import zlib
from pathlib import Path

import h5py
import numpy as np
from numba import njit, prange

from tabula.games import PositionError, get_game
from tabula.infra.errors import TabulaError
from tabula.infra.h5files import open_checked
from tabula.infra.manifest import missing_fields, stamp

from .two_sided import CUBEFUL, cube_equity, doubles, takes
from .values import value_names

FORMAT = "tabula-race-table"
FORMAT_VERSION = 1


class RaceTableError(PositionError):
    """A race table that is missing, unreadable, damaged or made for another game."""


def crc32(values) -> int:
    return zlib.crc32(np.ascontiguousarray(values))


def arrays_sha256(arrays) -> str:
    digest = hashlib.sha256()
    for array in arrays:
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


def write_race_table(path, game, values: dict, rolls, attrs: dict):
    """Write `values` ({name: float32 square array}) and `rolls` to `path`."""
    meta = stamp(FORMAT, FORMAT_VERSION, game)
    with h5py.File(path, "w") as f:
        f.attrs.update({**meta, "machine": json.dumps(meta["machine"]),
                        "values": json.dumps(list(values)),
                        "sha256": arrays_sha256([*values.values(), rolls]), **attrs})
        for name, array in values.items():
            f.create_dataset(f"values/{name}", data=array).attrs["crc32"] = crc32(array)
        f.create_dataset("rolls", data=rolls).attrs["crc32"] = crc32(rolls)


@njit(parallel=True, cache=True)
def _side_pairs(side_index, side_bits, codes):
    mask = (1 << side_bits) - 1
    out = np.empty((2, len(codes)), dtype=np.int64)
    for n in prange(len(codes)):
        out[0, n] = side_index(codes[n] & mask)
        out[1, n] = side_index(codes[n] >> side_bits)
    return out


class RaceTable:
    """A solved race table, read into memory and checked."""

    def __init__(self, path, game: str | None = None, pieces: int | None = None):
        self.path = Path(path)
        with open_checked(self.path, FORMAT, RaceTableError, "table file",
                          "a tabula race table") as (f, self.attrs):
            try:
                self.game = get_game(self.attrs["game"], int(self.attrs["pieces"]))
                names = json.loads(self.attrs["values"])
                self.attrs["sha256"]
            except (KeyError, ValueError, TypeError, TabulaError) as err:
                raise RaceTableError(f"{self.path} has broken attributes ({err})") from None
            if game is not None and game != self.game.name:
                raise RaceTableError(f"{self.path} is a table of {self.game.name}, not of {game}")
            if pieces is not None and pieces != self.game.pieces:
                raise RaceTableError(f"{self.path} was solved with {self.game.pieces} checkers, "
                                     f"not {pieces}")
            self.arrays = {name: self._read(f, f"values/{name}") for name in names}
            self.rolls = self._read(f, "rolls")
        n = self.game.race.n_sides(self.game.pieces)
        if any(v.shape != (n, n) for v in self.arrays.values()):
            raise RaceTableError(f"{self.path}: values are not {n} x {n} (the sides of "
                                 f"{self.game.pieces} checkers)")

    def _read(self, f, name):
        ds = f.get(name)
        if ds is None:
            raise RaceTableError(f"{self.path} lacks {name}")
        array = ds[()]
        if crc32(array) != ds.attrs.get("crc32"):
            raise RaceTableError(f"{self.path}: {name} is not what was written (checksum "
                                 "differs): the file is damaged, solve again")
        return array

    def verify(self) -> dict:
        """The values' SHA-256 against the file's (each dataset's CRC-32 was checked on
        opening) and the schema's fields."""
        sha256 = arrays_sha256([*self.arrays.values(), self.rolls])
        missing = missing_fields(self.attrs)
        ok = sha256 == self.attrs["sha256"]
        return {"table": str(self.path), "sha256_ok": ok, "sha256": sha256,
                "missing_fields": missing, "ok": ok and not missing}

    @property
    def layers(self) -> list:
        """The layers the table covers (both sides with a checker left)."""
        return self.game.solved_layers()

    def values(self, codes) -> np.ndarray:
        """float32 (n, k): the table's values of each code, in value_names order
        (solver/values.py), as a net learns them."""
        self._check_two_sided()
        race = self.game.race
        i, j = _side_pairs(race.side_index, race.side_bits, np.asarray(codes, dtype=np.int64))
        return np.stack([self.arrays[name][i, j] for name in value_names(self.game)], axis=1)

    def _check_two_sided(self):
        if not self.arrays:
            raise RaceTableError(f"{self.path} is a one-sided table (--one-sided): it holds "
                                 "no two-sided values")

    def _at(self, code: int):
        race = self.game.race
        code = int(code)
        return (race.side_index(code & ((1 << race.side_bits) - 1)),
                race.side_index(code >> race.side_bits))

    def answer(self, code: int) -> dict:
        """Everything the table says of a position, as `tabula value --json` prints it."""
        self._check_two_sided()
        i, j = self._at(code)
        win = float(self.arrays["win"][i, j])
        gammons = [float(self.arrays[n][i, j]) if n in self.arrays else 0.0
                   for n in ("win_gammon", "lose_gammon")]
        nd = {name: float(self.arrays[name][i, j]) for name in CUBEFUL}
        if doubles(nd["centered"], nd["unavailable"]):
            cube = "double, take" if takes(nd["unavailable"]) else "double, pass"
        else:                          # not good enough, or too good (playing for a gammon)
            cube = "no double"
        return {"win": win, "win_gammon": gammons[0], "lose_gammon": gammons[1],
                "equity": {"cubeless": 2 * win - 1 + gammons[0] - gammons[1],
                           "centered": cube_equity(nd["centered"], nd["unavailable"]),
                           "owned": cube_equity(nd["owned"], nd["unavailable"]),
                           "unavailable": nd["unavailable"]},
                "equity_no_double": nd, "cube": cube}

    def after_move(self, next_code: int, over: bool, win_points: int) -> dict:
        """The mover's equities after a move to `next_code` (seen by the opponent, on
        roll next): cubeless and with the cube as it stands for the mover; win_points
        if the move bore off the last checker (Race.win_points)."""
        if over:
            return {state: float(win_points)
                    for state in ("cubeless", "centered", "owned", "unavailable")}
        theirs = self.answer(next_code)
        their = theirs["equity"]
        return {"cubeless": -their["cubeless"], "centered": -their["centered"],
                "owned": -their["unavailable"], "unavailable": -their["owned"]}


def is_race_table(path) -> bool:
    """Whether `path` is a race table (False for any other file, which a Table then
    describes when it refuses it)."""
    try:
        with h5py.File(path, "r") as f:
            return f.attrs.get("format") == FORMAT
    except OSError:
        return False


def open_table_file(path):
    """The table at `path`, a RaceTable or a (layered) Table, as its format says."""
    from .table import Table
    return RaceTable(path) if is_race_table(path) else Table(path)


def two_sided_positions(game) -> int:
    """Positions of the two-sided table: both sides with a checker left."""
    return (game.race.n_sides(game.pieces) - 1) ** 2


def memory_needed(game) -> int:
    """Bytes a two-sided solve holds at its peak: its float32 square arrays (win, the
    gammon chances where gammons happen, three cubeful equities) and two more while
    each is turned into the file's layout."""
    n = game.race.n_sides(game.pieces)
    return 4 * n * n * (len(value_names(game)) + 2)


def check_memory(game):
    """Refuse a two-sided solve that cannot fit in this machine's memory."""
    import os
    needed = memory_needed(game)
    have = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    if needed > have:
        raise RaceTableError(
            f"a two-sided table of {game.name} with {game.pieces} checkers needs about "
            f"{needed / 2**30:.0f} GiB of memory and this machine has {have / 2**30:.0f} "
            "GiB: solve fewer checkers, or only the one-sided table (--one-sided)")


def solve_race(game, out, threads=None, one_sided=False, quiet=False) -> dict:
    """Solve a race game into the table `out` (written as OUT.partial, then renamed):
    the two-sided values (unless one_sided) and the one-sided distributions."""
    import os
    import time

    import numba

    from tabula.infra.provenance import peak_memory_bytes

    from .one_sided import throws_to_bear_off
    from .two_sided import solve_two_sided

    if not one_sided:
        check_memory(game)
    if threads is not None:
        numba.set_num_threads(threads)
    started = time.time()
    values = {} if one_sided else solve_two_sided(game, quiet=quiet)
    rolls = throws_to_bear_off(game)
    seconds = time.time() - started
    out = Path(out)
    partial = out.with_name(out.name + ".partial")
    write_race_table(partial, game, values, rolls, {"solve_seconds": seconds})
    os.replace(partial, out)
    return {"game": game.name, "pieces": game.pieces, "sides": game.race.n_sides(game.pieces),
            "positions": two_sided_positions(game) if values else 0, "wall_seconds": seconds,
            "peak_memory_bytes": peak_memory_bytes(), "out": str(out)}
