"""Batches of a datagen HDF5 file for Lightning: contiguous slices of a shuffled split.

The file is already shuffled, so batch i of a split is simply records
[i*B, (i+1)*B); an epoch visits the batches in a fresh random order. Each process
(the main one or a DataLoader worker, started with spawn: numba's threads do not
survive a fork) opens the file on first use.
"""
import h5py
import lightning as L
import torch
from torch.utils.data import DataLoader, Dataset

from tabula.datagen.datafile import DataError, DataFile

SEARCHED_STREAM = 1 << 40   # throws of searched decisions: streams apart from the others


class SplitBatches(Dataset):
    """Batch i: a dict of codes and values, plus, with a table, "decisions" made of the
    batch's first `decisions` positions and "searched" decisions of the `searched`
    positions after them (training/decisions.py)."""

    def __init__(self, path, split: str, batch_size: int, size: int, in_memory=False,
                 table: str | None = None, decisions: int = 0, searched: int = 0):
        self.path, self.split, self.batch_size, self.size = str(path), split, batch_size, size
        self.in_memory, self.table_path = in_memory, table
        self.decisions, self.searched = decisions, searched
        self._codes = self._values = self._table = None

    def _open(self):
        f = h5py.File(self.path, "r")
        self._codes, self._values = f[self.split]["codes"], f[self.split]["values"]
        if self.in_memory:
            self._codes, self._values = self._codes[:], self._values[:]

    def __len__(self):
        return -(-self.size // self.batch_size)

    def __getitem__(self, i):
        if self._codes is None:
            self._open()
        start = i * self.batch_size
        stop = min(start + self.batch_size, self.size)
        codes = self._codes[start:stop]
        batch = {"codes": torch.from_numpy(codes),
                 "values": torch.from_numpy(self._values[start:stop])}
        if not (self.decisions or self.searched):
            return batch
        if self._table is None:
            from tabula.solver.table import Table
            self._table = Table(self.table_path)
        from tabula.training.decisions import decisions_for, searched_decisions_for
        if self.decisions:
            parts = decisions_for(self._table, codes[:self.decisions], seed=i)
            batch["decisions"] = tuple(torch.from_numpy(p) for p in parts)
        if self.searched:
            end = self.decisions + self.searched
            parts = searched_decisions_for(self._table, codes[self.decisions:end],
                                           seed=SEARCHED_STREAM + i)
            batch["searched"] = tuple(torch.from_numpy(p) for p in parts)
        return batch

    def __getstate__(self):  # a worker opens its own handles
        return {**self.__dict__, "_codes": None, "_values": None, "_table": None}


class ValueData(L.LightningDataModule):
    """The train/val/test splits of a `tabula datagen` file.

    Args:
        path: the data file.
        batch_size: records per batch.
        num_workers: DataLoader worker processes (0: read in the main process).
        in_memory: read each split into memory once instead of slicing the file.
        table: the solved table the data came from; needed for `decisions`.
        decisions: per training batch, how many of its positions also become a
            decision (a throw, its moves and their exact worths) for the model's
            decision loss; 0 for none.
        searched: per training batch, how many further positions become a decision
            scored through one throw of search, for the model's searched-decision
            loss; 0 for none.
    """

    def __init__(self, path: str = "data/train.h5", batch_size: int = 4096,
                 num_workers: int = 0, in_memory: bool = False, table: str | None = None,
                 decisions: int = 0, searched: int = 0):
        super().__init__()
        self.path, self.batch_size = path, batch_size
        self.num_workers, self.in_memory = num_workers, in_memory
        self.table, self.decisions, self.searched = table, decisions, searched
        for name, value, low in (("batch_size", batch_size, 1), ("num_workers", num_workers, 0),
                                 ("decisions", decisions, 0), ("searched", searched, 0)):
            if value < low:
                raise DataError(f"data.{name} must be at least {low}, not {value}")
        self.file = DataFile(path)
        empty = [split for split in ("train", "val", "test") if not self.file.sizes[split]]
        if empty:
            raise DataError(f"{path} has no positions in its {' and '.join(empty)} split: "
                            "make it with more games or positions (tabula datagen)")
        if (decisions or searched) and not table:
            raise DataError("data.decisions and data.searched need data.table, the table "
                            "of the data file")
        if decisions + searched > batch_size:
            raise DataError(f"data.decisions + data.searched ({decisions + searched}) "
                            f"exceed data.batch_size ({batch_size})")
        if table:
            from tabula.solver.table import Table
            sha = Table(table).attrs["sha256"]
            if sha != self.file.attrs["table_sha256"]:
                raise DataError(f"{table} is not the table {path} was made from")

    def _loader(self, split, shuffle):
        train = split == "train"
        data = SplitBatches(self.path, split, self.batch_size, self.file.sizes[split],
                            self.in_memory, self.table, self.decisions if train else 0,
                            self.searched if train else 0)
        workers = self.num_workers
        return DataLoader(data, batch_size=None, shuffle=shuffle, num_workers=workers,
                          multiprocessing_context="spawn" if workers else None,
                          persistent_workers=workers > 0)

    def train_dataloader(self):
        return self._loader("train", True)

    def val_dataloader(self):
        return self._loader("val", False)

    def test_dataloader(self):
        return self._loader("test", False)
