"""Batches of a datagen HDF5 file for Lightning: contiguous slices of a shuffled split.

The file is already shuffled, so batch i of a split is simply records
[i*B, (i+1)*B); an epoch visits the batches in a fresh random order. A split is
sliced from the file (each process, the main one or a DataLoader worker started with
spawn since numba's threads do not survive a fork, opens it on first use) or from
tensors held in memory, or on the accelerator the model trains on when they fit
there. The decisions of the decision losses are made once, before training
(training/decisions.py), and held beside the training split; those that measure the
net's choices (data.val_decisions) beside the validation split.
"""
from functools import partial

import h5py
import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from tabula.datagen.datafile import SOURCES, DataError, DataFile
from tabula.infra.progress import Progress

SEARCHED_STREAM = 1 << 40   # throws of searched decisions: streams apart from the others
VAL_STREAM = 1 << 41        # throws of the validation split's decisions
DEVICE_SHARE = 0.5          # at most this share of an accelerator's free memory holds data
FEATURE_ROWS = 65536        # records whose network inputs are computed at once


class SplitBatches(Dataset):
    """Batch i: a dict of codes and values, plus "decisions" and "searched" (the
    BatchDecisions rows of batch i) when given, the decisions followed by those of
    `hard` (training/hard.py) when set, and "decision_features" (the HeldInputs of
    batch i's decisions) when given. `held` maps "codes" and "values" (and
    "features", the network inputs, where held too) to the whole split's tensors;
    without it the batches are read from the file."""

    def __init__(self, path, split: str, batch_size: int, size: int, held: dict | None = None,
                 decisions=None, searched=None, decision_features=None):
        self.path, self.split, self.batch_size, self.size = str(path), split, batch_size, size
        self.held, self.decisions, self.searched = held, decisions, searched
        self.decision_features = decision_features
        self.hard = None
        self._file = None

    def __len__(self):
        return -(-self.size // self.batch_size)

    def __getitem__(self, i):
        start = i * self.batch_size
        stop = min(start + self.batch_size, self.size)
        if self.held is not None:
            batch = {key: array[start:stop] for key, array in self.held.items()}
        else:
            if self._file is None:
                self._file = h5py.File(self.path, "r")[self.split]
            batch = {key: torch.from_numpy(self._file[key][start:stop])
                     for key in ("codes", "values")}
        for key in ("decisions", "searched", "decision_features"):
            if getattr(self, key) is not None:
                batch[key] = getattr(self, key).batch(i)
        if self.hard is not None:
            batch["decisions"] = tuple(torch.cat(pair) for pair in
                                       zip(batch["decisions"], self.hard.batch(i)))
        return batch

    def __getstate__(self):  # a worker opens its own handle
        return {**self.__dict__, "_file": None}


class ValueData(L.LightningDataModule):
    """The train/val/test splits of a `tabula datagen` file.

    Args:
        path: the data file.
        batch_size: records per batch.
        num_workers: DataLoader worker processes reading batches from the file (0: the
            main process). Splits held in memory or on the device are sliced in the
            main process.
        in_memory: read each split into memory once instead of slicing the file. When
            training on an accelerator, the splits (and the decisions) are held on
            it whenever they fit in half its free memory, whatever this says.
        features_in_memory: also compute each split's network inputs (the game's
            encoding of the codes) once and hold them, so that a step of the value loss
            does not compute them again (implies in_memory). Worth it where the inputs
            cost as much as the net (the hypergammon's shots: 1.6 times the steps a
            second, docs/BENCHMARKS.md); it takes 4 bytes an input a record (hypergammon
            3's 8.6 million training records, 123 inputs: 4.2 GB). The decision losses
            still compute the inputs of the positions after their moves (unless
            decision_features_in_memory).
        decision_features_in_memory: also compute the network inputs of the positions
            after the moves of every training decision once (each distinct position
            once) and hold them, so that a step of the decision loss does not compute
            them again. Worth it where the inputs cost as much as the net (the
            hypergammon's shots); it takes 4 bytes an input a distinct position
            (docs/BENCHMARKS.md: hypergammon 3's polish stage). Needs data.decisions,
            not data.hard.
        table: the solved table the data came from; needed for `decisions` (or
            `decision_set`).
        decision_set: where the table is not at hand (a game solved elsewhere), a
            decision set made from this file's training split (tabula eval
            decision-set --split train): the decisions are taken from it in turn.
        decisions: per training batch, how many of its positions also become a
            decision (a throw, its moves and their exact worths) for the model's
            decision loss; 0 for none.
        searched: per training batch, how many further positions become a decision
            scored through one throw of search, for the model's searched-decision
            loss; 0 for none.
        val_decisions: per validation batch, how many of its positions become a
            decision (a throw, its moves and their exact worths; in a money game, in
            each of the mover's cube states) on which the net's greedy choice is
            scored: `val_decision_regret`, the mean exact worth it gives away, logged
            each epoch (what the decision losses aim at, and what `--monitor` can keep
            the best checkpoint by). Needs data.table; 0 for none.
        every_cube_state: in a money game, the decision loss counts each decision in
            each of the mover's cube states (centred, owned, unavailable: the moves'
            equities in that state), not with the cube centred alone (which leaves
            out the net's `owned` output: the moves read it only where the opponent
            owns the cube). Needs data.table, and no data.hard.
        hard: per training batch, how many more decisions to draw from those the net
            chose wrongly when it last played a sample of them, at the start of the
            epoch (training/hard.py); 0 for none. Needs `decisions`.
        train_sources: train only on the training records of these sources (names of
            datagen/datafile.py's SOURCES, e.g. [self-play] to leave out the uniform
            draws); None for all. The kept records are held in memory.
        val_sources: validate only on the validation records of these sources (the
            checkpoint kept as best and early stopping go by them); None for all. The
            test split stays whole.
        visit_shares: with a decision set a tree search wrote (tabula distill), the
            decision loss's target is each move's share of the search's visits instead
            of the softmax of the search's worths (issue 51's second label).
    """

    LOWEST = {"batch_size": 1, "num_workers": 0, "decisions": 0, "searched": 0, "hard": 0,
              "val_decisions": 0}

    @classmethod
    def check_counts(cls, **counts):
        """The counts among the settings (batch size, workers, decisions), which need no
        data file to be checked."""
        for name, value in counts.items():
            if value < cls.LOWEST[name]:
                raise DataError(f"data.{name} must be at least {cls.LOWEST[name]}, not {value}")

    def __init__(self, path: str = "data/train.h5", batch_size: int = 4096,
                 num_workers: int = 0, in_memory: bool = False, table: str | None = None,
                 decisions: int = 0, searched: int = 0, hard: int = 0,
                 decision_set: str | None = None, train_sources: list[str] | None = None,
                 val_sources: list[str] | None = None, visit_shares: bool = False,
                 every_cube_state: bool = False, features_in_memory: bool = False,
                 val_decisions: int = 0, decision_features_in_memory: bool = False):
        super().__init__()
        self.path, self.batch_size = path, batch_size
        self.num_workers = num_workers
        self.table, self.decisions, self.searched = table, decisions, searched
        self.hard, self.decision_set, self.visit_shares = hard, decision_set, visit_shares
        self.every_cube_state, self.features_in_memory = every_cube_state, features_in_memory
        self.val_decisions = val_decisions
        self.decision_features_in_memory = decision_features_in_memory
        self.check_counts(batch_size=batch_size, num_workers=num_workers,
                          decisions=decisions, searched=searched, hard=hard,
                          val_decisions=val_decisions)
        self.file = DataFile(path)
        empty = [split for split in ("train", "val", "test") if not self.file.sizes[split]]
        if empty:
            raise DataError(f"{path} has no positions in its {' and '.join(empty)} split: "
                            "make it with more games or positions (tabula datagen)")
        if (decisions or searched) and not (table or decision_set):
            raise DataError("data.decisions and data.searched need data.table, the table "
                            "of the data file, or data.decision_set")
        if val_decisions and not table:
            raise DataError("data.val_decisions are scored by the table of the data file: "
                            "give data.table")
        if val_decisions > batch_size:
            raise DataError(f"data.val_decisions ({val_decisions}) exceed data.batch_size "
                            f"({batch_size})")
        if table and decision_set:
            raise DataError("give data.table or data.decision_set, not both")
        if decision_set and train_sources is not None:
            raise DataError("data.decision_set holds decisions of the whole training split, "
                            "so it cannot follow data.train_sources: give data.table instead")
        if visit_shares and (hard or not (decision_set and decisions)):
            raise DataError("data.visit_shares is the target of data.decisions from a "
                            "data.decision_set a tree search wrote (tabula distill), "
                            "without data.hard")
        if decision_set:
            self._check_decision_set(decision_set)
        if every_cube_state and (hard or not (decisions and table)):
            raise DataError("data.every_cube_state is a setting of data.decisions made from "
                            "data.table, without data.hard")
        if decision_features_in_memory and (hard or not decisions):
            raise DataError("data.decision_features_in_memory holds the inputs of "
                            "data.decisions, without data.hard: set data.decisions")
        if hard and not decisions:
            raise DataError("data.hard draws again from the decisions of data.decisions: "
                            "set data.decisions too")
        if decisions + searched > batch_size:
            raise DataError(f"data.decisions + data.searched ({decisions + searched}) "
                            f"exceed data.batch_size ({batch_size})")
        self.kept = {"train": self._kept_records("train", train_sources),
                     "val": self._kept_records("val", val_sources)}
        self.in_memory = in_memory or features_in_memory or \
            any(k is not None for k in self.kept.values())
        self.sizes = {split: size if self.kept.get(split) is None
                      else int(self.kept[split].sum()) for split, size in self.file.sizes.items()}
        if table:
            from tabula.solver.solution import open_solution
            solution = open_solution(table)
            self.file.check_made_from(solution)
            if every_cube_state and len(solution.value_names) == 1:
                raise DataError(f"data.every_cube_state needs a money table: {table} holds "
                                "winning chances alone")
        self.splits = {}
        self.device = torch.device("cpu")

    def setup(self, stage=None):
        """Hold the splits where the batches will be drawn (once per data module)."""
        trainer = getattr(self, "trainer", None)
        device = trainer.strategy.root_device if trainer is not None else torch.device("cpu")
        if self.splits and device == self.device:
            return
        self.device = device
        accelerator = device.type != "cpu"
        decisions, searched = self._decisions()
        val_decisions = self._val_decisions()
        decision_features = None
        if self.decision_features_in_memory:
            from tabula.training.decisions import held_inputs
            decision_features = held_inputs(decisions, partial(
                self._features, what="inputs of the distinct positions after the moves"))
        held = {}
        if self.in_memory or accelerator:
            for split in ("train", "val", "test"):
                held[split] = {key: torch.from_numpy(self.read(split, key))
                               for key in ("codes", "values")}
                if self.features_in_memory:
                    held[split]["features"] = self._features(held[split]["codes"])
        if accelerator:
            parts = [d for d in (decisions, searched, val_decisions, decision_features)
                     if d is not None]
            size = sum(t.numel() * t.element_size() for h in held.values() for t in h.values())
            if _fits(device, size + sum(d.nbytes() for d in parts)):
                held = {s: {k: t.to(device) for k, t in h.items()} for s, h in held.items()}
                decisions, searched, val_decisions, decision_features = (
                    d.to(device) if d is not None else None
                    for d in (decisions, searched, val_decisions, decision_features))
            elif not self.in_memory:
                held = {}
        for split in ("train", "val", "test"):
            train = split == "train"
            self.splits[split] = SplitBatches(
                self.path, split, self.batch_size, self.sizes[split], held.get(split),
                decisions if train else val_decisions if split == "val" else None,
                searched if train else None, decision_features if train else None)

    def _features(self, codes, what: str | None = None):
        """The network inputs of codes, computed FEATURE_ROWS at a time; with a
        progress line saying `what` they are where given."""
        encoding = self.file.game.encoding
        features = torch.empty((len(codes), encoding.n_features))
        progress = Progress(what or "inputs", len(codes), "positions", quiet=what is None)
        with torch.no_grad():
            for start in range(0, len(codes), FEATURE_ROWS):
                rows = slice(start, start + FEATURE_ROWS)
                features[rows] = encoding.features(codes[rows])
                progress.update(min(start + FEATURE_ROWS, len(codes)))
        progress.done(f"{len(codes):,} positions")
        return features

    def read(self, split: str, key: str):
        """A column of a split as training sees it: the split's kept records."""
        column = self.file.read(split, key)
        kept = self.kept.get(split)
        return column if kept is None else column[kept]

    def _kept_records(self, split, sources):
        """The mask of the split's records whose source is in `sources` (None: all kept)."""
        if sources is None:
            return None
        unknown = [name for name in sources if name not in SOURCES]
        if unknown or not sources:
            raise DataError(f"data.{split}_sources must name some of {', '.join(SOURCES)}, "
                            f"not {', '.join(unknown) or 'an empty list'}")
        kept = np.isin(self.file.read(split, "source"), [SOURCES.index(s) for s in sources])
        if not kept.any():
            named = {"train": "training", "val": "validation"}[split]
            raise DataError(f"{self.path} has no {named} records of {', '.join(sources)}")
        return kept

    def _check_decision_set(self, path):
        from tabula.datagen.decision_set import DecisionSet
        stored = DecisionSet(path)
        if (stored.attrs["data_sha256"], stored.attrs["split"]) != \
                (self.file.attrs["data_sha256"], "train"):
            raise DataError(f"{path} was not made from the training split of {self.path} "
                            "(tabula eval decision-set --split train)")
        if self.visit_shares and stored.shares is None:
            raise DataError(f"{path} holds no visit shares: data.visit_shares needs a "
                            "decision set a tree search wrote (tabula distill)")

    def _decisions(self):
        """Every training batch's decisions and searched decisions (None without)."""
        if not (self.decisions or self.searched):
            return None, None
        if self.decision_set:
            return self._stored_decisions()
        from tabula.solver.solution import open_solution
        from tabula.training.decisions import batch_decisions
        table, codes = open_solution(self.table), self.read("train", "codes")
        made = [batch_decisions(table, codes, self.batch_size, first, count, seed, searched=s,
                                quiet=False, every_cube_state=self.every_cube_state and not s)
                if count else None
                for first, count, seed, s in ((0, self.decisions, 0, False),
                                              (self.decisions, self.searched,
                                               SEARCHED_STREAM, True))]
        return made[0], made[1]

    def _val_decisions(self):
        """Every validation batch's decisions (None without data.val_decisions): a
        money table's in every cube state of the mover."""
        if not self.val_decisions:
            return None
        from tabula.solver.solution import open_solution
        from tabula.training.decisions import batch_decisions
        table = open_solution(self.table)
        return batch_decisions(table, self.read("val", "codes"), self.batch_size, 0,
                               self.val_decisions, VAL_STREAM,
                               every_cube_state=len(table.value_names) > 1)

    def _stored_decisions(self):
        """_decisions from the decision set: batch after batch, the decisions first, then
        the searched ones, taken in turn through the set."""
        from tabula.datagen.decision_set import DecisionSet
        from tabula.training.decisions import stored_batch_decisions
        s = DecisionSet(self.decision_set)
        stored = (s.counts, s.next_codes, s.infos, s.worths)
        n_batches = -(-self.sizes["train"] // self.batch_size)
        targets = (s.shares,) if self.visit_shares else ()
        decisions = (stored_batch_decisions(s.game, stored + targets, n_batches,
                                            self.decisions, 0)
                     if self.decisions else None)
        searched = (stored_batch_decisions(s.game, stored, n_batches, self.searched,
                                           n_batches * self.decisions, searched=True)
                    if self.searched else None)
        return decisions, searched

    def _loader(self, split, shuffle):
        if not self.splits:
            self.setup()
        data = self.splits[split]
        workers = self.num_workers if data.held is None else 0
        return DataLoader(data, batch_size=None, shuffle=shuffle, num_workers=workers,
                          multiprocessing_context="spawn" if workers else None,
                          persistent_workers=workers > 0)

    def train_dataloader(self):
        return self._loader("train", True)

    def val_dataloader(self):
        return self._loader("val", False)

    def test_dataloader(self):
        return self._loader("test", False)


def _fits(device: torch.device, nbytes: int) -> bool:
    """Whether `nbytes` of data fit in DEVICE_SHARE of the device's free memory."""
    if device.type != "cuda":
        return True
    free, _ = torch.cuda.mem_get_info(device)
    return nbytes <= DEVICE_SHARE * free
