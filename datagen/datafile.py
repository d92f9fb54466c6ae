"""Labelled position sets in HDF5 (format tabula-data, version 1).

File layout:
  attrs   the common fields (infra/manifest.py), n_features, table_sha256,
          table_file, settings (JSON), counts (JSON), sources (JSON), data_sha256
          (of every split's codes, values and source, in split order)
  train/ val/ test/   codes int64, values float32 (the mover's exact winning
          chance; from race tables (n, k), the columns the attribute value_names
          names: solver/values.py), source uint8 (index into SOURCES: met in self-play, drawn
          uniformly, reached by a move self-play did not choose, or met in games of
          the perfect player that never explore, or valued by a tree search:
          datagen/search_data.py); each shuffled and chunked, so
          that training reads contiguous slices.
A position occurs in at most one split.
"""
import hashlib
import zlib
from pathlib import Path

import h5py
import numpy as np

from tabula.games import game_of
from tabula.infra.errors import TabulaError
from tabula.infra.h5files import open_checked
from tabula.infra.manifest import missing_fields
from tabula.infra.schemas import DataAttributes, check
from tabula.solver.values import value_ranges

FORMAT = "tabula-data"
FORMAT_VERSION = 1
SPLITS = ("train", "val", "test")
SOURCES = ("self-play", "uniform", "alternative", "perfect-play", "search")
CHUNK = 1 << 16


class DataError(TabulaError):
    """A data file that is missing, unreadable, incomplete or made for another game."""


def data_sha256(splits: dict) -> str:
    digest = hashlib.sha256()
    for name in SPLITS:
        for key in ("codes", "values", "source"):
            digest.update(np.ascontiguousarray(splits[name][key]).tobytes())
    return digest.hexdigest()


def write_data(path, splits: dict, attrs: dict):
    """Write the splits ({name: {codes, values, source}}) and attrs (the common fields
    of infra/manifest.py and the set's own) to `path`."""
    with h5py.File(path, "w", track_order=False) as f:
        f.attrs.update({**attrs, "data_sha256": data_sha256(splits)})
        for name in SPLITS:
            group = f.create_group(name)
            for key, dtype in (("codes", np.int64), ("values", np.float32),
                               ("source", np.uint8)):
                data = np.asarray(splits[name][key], dtype=dtype)
                rows = (max(1, min(len(data), CHUNK)),)
                ds = group.create_dataset(key, data=data, chunks=rows + data.shape[1:],
                                          maxshape=(None,) + data.shape[1:], track_times=False)
                ds.attrs["crc32"] = zlib.crc32(np.ascontiguousarray(data))


class DataFile:
    """A labelled set opened for reading; checks format, completeness and game."""

    def __init__(self, path, game: str | None = None, pieces: int | None = None,
                 rules: str | None = None):
        self.path = Path(path)
        with open_checked(self.path, FORMAT, DataError, "data file",
                          "a tabula data file (tabula datagen)") as (f, self.attrs):
            if "data_sha256" not in self.attrs or any(s not in f for s in SPLITS):
                raise DataError(f"{self.path} is incomplete")
            self.sizes = {s: len(f[s]["codes"]) for s in SPLITS}
            where = f"{self.path} has broken attributes"
            said = check(DataAttributes, dict(self.attrs), where, DataError)
            self.game = game_of(said, where, DataError)
            self.settings, self.counts = said.settings, said.counts
            self._check(f)
        other = self.game.differs_from(game, pieces, rules)
        if other:
            raise DataError(f"{self.path} holds positions of {self.game.describe()}, {other}")

    def check_made_from(self, table):
        """Refuse in one line (DataError) a file that was not made from `table`, an open
        solution: taught by a search, or labelled by another table."""
        if "table_sha256" not in self.attrs:
            raise DataError(f"{self.path} was taught by {self.attrs.get('teacher', 'a search')}"
                            ", not made from a table")
        if self.attrs["table_sha256"] != table.attrs["sha256"]:
            raise DataError(f"{table.path} is not the table {self.path} was made from")

    def _check(self, f):
        """Every dataset, read once: its dtype and length, its recorded CRC-32 (files
        written before those were recorded: everything against data_sha256), and what
        it holds: every label within its value's range (a chance in 0..1, an equity
        within the game's bound), no code negative. A file written with other labels
        and a checksum to match is refused, not trained on."""
        columns = {"codes": np.int64, "values": np.float32, "source": np.uint8}
        low, high = (np.array(bound, dtype=np.float32).reshape(1, -1)
                     for bound in value_ranges(self.game))
        recorded = True
        for split in SPLITS:
            for key, dtype in columns.items():
                ds = f[split].get(key)
                if ds is None or ds.dtype != dtype or len(ds) != self.sizes[split]:
                    raise DataError(f"{self.path}: {split}/{key} is missing or malformed")
                data = ds[:]
                if "crc32" not in ds.attrs:
                    recorded = False
                elif zlib.crc32(np.ascontiguousarray(data)) != int(ds.attrs["crc32"]):
                    raise DataError(f"{self.path}: {split}/{key} is not what was written "
                                    "(checksum differs): the file is damaged, make it again")
                if not len(data):
                    continue
                if key == "values":
                    values = data.reshape(len(data), -1)
                    if values.shape[1] != low.shape[1] or not (
                            (values >= low - 1e-6) & (values <= high + 1e-6)).all():
                        raise DataError(f"{self.path}: {split} holds labels that are not "
                                        f"values of {self.game.describe()} (out of range, or "
                                        "not numbers): make it again")
                if key == "codes" and not self.game.are_positions(data).all():
                    raise DataError(f"{self.path}: {split} holds codes that are no position "
                                    f"of {self.game.describe()}: make it again")
        if not recorded and not self.verify()["data_sha256_ok"]:
            raise DataError(f"{self.path} is not what was written (data_sha256 differs)")

    def verify(self) -> dict:
        """Recompute the checksum of every split; the schema's fields present."""
        splits = {s: {k: self.read(s, k) for k in ("codes", "values", "source")}
                  for s in SPLITS}
        sha256 = data_sha256(splits)
        missing = missing_fields(self.attrs)
        ok = sha256 == self.attrs["data_sha256"]
        return {"data": str(self.path), "data_sha256_ok": ok, "data_sha256": sha256,
                "missing_fields": missing, "ok": ok and not missing}

    def read(self, split: str, key: str, start: int = 0, stop: int | None = None):
        with h5py.File(self.path, "r") as f:
            return f[split][key][start:stop]
