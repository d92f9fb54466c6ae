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

from datagen.datafile import DataFile


class SplitBatches(Dataset):
    def __init__(self, path, split: str, batch_size: int, size: int, in_memory=False):
        self.path, self.split, self.batch_size, self.size = str(path), split, batch_size, size
        self.in_memory = in_memory
        self._codes = self._values = None

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
        return (torch.from_numpy(self._codes[start:stop]),
                torch.from_numpy(self._values[start:stop]))

    def __getstate__(self):  # a worker opens its own handle
        return {**self.__dict__, "_codes": None, "_values": None}


class ValueData(L.LightningDataModule):
    """The train/val/test splits of a `tabula datagen` file.

    Args:
        path: the data file.
        batch_size: records per batch.
        num_workers: DataLoader worker processes (0: read in the main process).
        in_memory: read each split into memory once instead of slicing the file.
    """

    def __init__(self, path: str = "data/train.h5", batch_size: int = 4096,
                 num_workers: int = 0, in_memory: bool = False):
        super().__init__()
        self.path, self.batch_size = path, batch_size
        self.num_workers, self.in_memory = num_workers, in_memory
        self.file = DataFile(path)

    def _loader(self, split, shuffle):
        data = SplitBatches(self.path, split, self.batch_size, self.file.sizes[split],
                            self.in_memory)
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
