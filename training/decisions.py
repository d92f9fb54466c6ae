"""Decisions for the choice-aware losses: for some positions of a batch, a throw, its
legal moves and each move's exact worth from the table; for searched decisions also
every throw and move one step past each move (the leaves the one-throw search scores).

A value net plays by ranking the afterstates of one decision, so errors that keep
the ranking cost nothing and errors in the differences cost winning chance. The
model's optional decision loss (training/model.py) compares the net's choice
distribution over a decision's moves with the table's.

Training makes the decisions of every batch once, before the first step
(BatchDecisions): the throws depend only on the batch's index, so each epoch would
draw the same ones, and a step then only slices arrays that may live on the device.
"""
from dataclasses import dataclass

import numpy as np
import torch

from tabula.datagen.decisions import decisions_for, sampled_decisions
from tabula.infra.batch import all_throws
from tabula.games.game import OVER
from tabula.infra.progress import Progress

INFO_DTYPE = np.int16   # move infos hold flags up to OVER (bit 11): stored narrow


def valued_moves(live, infos):
    """Which live moves lead to a position the net must value: those that do not end
    the game (numpy or torch arrays)."""
    return live & ((infos & OVER) == 0)


def valued_move_mask(game, counts, infos):
    """valued_moves of numpy decisions given by their move counts: (k, M)."""
    return valued_moves(np.arange(game.max_moves) < counts[:, None], infos)


def searching_leaves(game, counts, next_codes, infos):
    """The moves of every throw after each move of the decisions that neither ends the
    game nor is unused, in row-major order of those moves: leaf counts (k, T), leaf next
    codes (k, T, M), leaf infos (k, T, M) (infra.batch's all_throws, so a throw with no
    move is one move passing the turn)."""
    searched = next_codes[valued_move_mask(game, counts, infos)]
    return all_throws(game.moves, game.mirror, game.throws, game.max_moves, searched)


def searched_decisions_for(table, codes: np.ndarray, seed: int):
    """The decisions of decisions_for, plus their searching_leaves."""
    counts, next_codes, infos, worths = decisions_for(table, codes, seed)
    return (counts, next_codes, infos, worths) + searching_leaves(table.game, counts,
                                                                  next_codes, infos)


@dataclass
class BatchDecisions:
    """The decisions of every batch of a split, as tensors: batch i's are rows
    starts[i]:starts[i+1] of `decisions` (counts, next codes, infos, worths) and, when
    searched, its leaves rows leaf_starts[i]:leaf_starts[i+1] of `leaves`."""
    decisions: tuple
    starts: np.ndarray
    leaves: tuple = ()
    leaf_starts: np.ndarray | None = None

    def batch(self, i: int) -> tuple:
        a, b = self.starts[i], self.starts[i + 1]
        rows = tuple(t[a:b] for t in self.decisions)
        if self.leaf_starts is None:
            return rows
        a, b = self.leaf_starts[i], self.leaf_starts[i + 1]
        return rows + tuple(t[a:b] for t in self.leaves)

    def to(self, device) -> "BatchDecisions":
        return BatchDecisions(tuple(t.to(device) for t in self.decisions), self.starts,
                              tuple(t.to(device) for t in self.leaves), self.leaf_starts)

    def nbytes(self) -> int:
        return sum(t.numel() * t.element_size() for t in self.decisions + self.leaves)


def stored_batch_decisions(game, stored: tuple, n_batches: int, count: int, first: int,
                           searched: bool = False) -> BatchDecisions:
    """`count` decisions for each of n_batches batches from `stored` ones (counts, next
    codes, infos, worths, and visit shares where they are the target: a decision set
    made from the training split), taken in turn from row `first` on, cycling; with
    their searching leaves when `searched` (those need the rules only)."""
    rows = (first + np.arange(n_batches * count)) % len(stored[0])
    taken = tuple(np.ascontiguousarray(a[rows]) for a in stored)
    counts, next_codes, infos = taken[:3]
    starts = np.arange(0, n_batches * count + 1, count)
    decisions = tuple(torch.from_numpy(a) for a in taken)
    if not searched:
        return BatchDecisions(decisions, starts)
    infos = infos.astype(np.int64)
    leaves = searching_leaves(game, counts, next_codes, infos)
    needing = np.concatenate([[0], np.cumsum(valued_move_mask(game, counts, infos).sum(1))])
    return BatchDecisions(decisions, starts,
                          (torch.from_numpy(leaves[0]), torch.from_numpy(leaves[1]),
                           torch.from_numpy(leaves[2].astype(INFO_DTYPE))),
                          needing[starts])


@dataclass
class HeldInputs:
    """The network inputs of the positions after the moves of every batch's decisions
    (those that need a value: training/model.py's valued_moves), computed once and each
    distinct position once: batch i's, in the row-major order of next_codes[need], are
    `inputs[index[starts[i]:starts[i+1]]]`."""
    inputs: torch.Tensor
    index: torch.Tensor
    starts: np.ndarray

    def batch(self, i: int) -> torch.Tensor:
        return self.inputs[self.index[self.starts[i]:self.starts[i + 1]].long()]

    def to(self, device) -> "HeldInputs":
        return HeldInputs(self.inputs.to(device), self.index.to(device), self.starts)

    def nbytes(self) -> int:
        return sum(t.numel() * t.element_size() for t in (self.inputs, self.index))


def held_inputs(decisions: BatchDecisions, inputs_of) -> HeldInputs:
    """HeldInputs of `decisions`; inputs_of(codes) makes the network inputs of codes
    (ValueData's, a chunk at a time)."""
    counts, next_codes, infos = decisions.decisions[:3]
    need = valued_moves(torch.arange(next_codes.shape[1]) < counts[:, None], infos)
    distinct, index = torch.unique(next_codes[need], return_inverse=True)
    per_decision = np.concatenate([[0], np.cumsum(need.sum(1).numpy())])
    with torch.no_grad():
        inputs = inputs_of(distinct)
    return HeldInputs(inputs, index.to(torch.int32), per_decision[decisions.starts])


def batch_decisions(table, codes: np.ndarray, batch_size: int, first: int, count: int,
                    seed: int, searched: bool = False, quiet: bool = True,
                    chunk: int = 256, every_cube_state: bool = False) -> BatchDecisions:
    """Decisions of positions first..first+count-1 of each batch of `codes` (batch i is
    codes[i*batch_size:(i+1)*batch_size]; position j's throw from stream (seed + i, j)),
    with their searching leaves when `searched`, a money table's worths in every cube
    state of the mover when `every_cube_state`; made `chunk` batches at a time."""
    n_batches = -(-len(codes) // batch_size)
    parts, leaf_parts = [], []
    starts, leaf_starts = [0], [0]
    progress = Progress("decisions for training", n_batches, "batches", quiet=quiet)
    for lo in range(0, n_batches, chunk):
        hi = min(lo + chunk, n_batches)
        batch = np.repeat(np.arange(lo, hi), count)
        index = np.tile(np.arange(count), hi - lo)
        rows = batch * batch_size + first + index
        inside = rows < len(codes)                  # the last batch may be short
        batch, index, rows = batch[inside], index[inside], rows[inside]
        counts, next_codes, infos, worths, keep = sampled_decisions(
            table, codes[rows], seed + batch, index, every_cube_state)
        per_batch = np.bincount(batch[keep] - lo, minlength=hi - lo)
        starts += list(starts[-1] + np.cumsum(per_batch))
        parts.append((counts, next_codes, infos.astype(INFO_DTYPE), worths))
        if searched:
            leaves = searching_leaves(table.game, counts, next_codes, infos)
            needing = valued_move_mask(table.game, counts, infos).sum(1)
            per_batch = np.bincount(batch[keep] - lo, weights=needing,
                                    minlength=hi - lo).astype(np.int64)
            leaf_starts += list(leaf_starts[-1] + np.cumsum(per_batch))
            leaf_parts.append((leaves[0], leaves[1], leaves[2].astype(INFO_DTYPE)))
        progress.update(hi)
    progress.done(f"{starts[-1]:,} decisions of {n_batches:,} batches")

    def joined(chunks):
        return tuple(torch.from_numpy(np.concatenate(columns)) for columns in zip(*chunks))

    return BatchDecisions(joined(parts), np.array(starts),
                          joined(leaf_parts) if searched else (),
                          np.array(leaf_starts) if searched else None)
