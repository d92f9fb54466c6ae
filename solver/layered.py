"""The layered solver: units (a layer and its mirror) in dependency order.

A piece that leaves play (borne off, or removed for good in a capture game) never
comes back, so layer (a, b) (pieces in play of mover and opponent) leads only to
itself, its mirror (b, a) and layers with fewer pieces: the game's
successor_layers(a, b) says which. Units are solved in an order that puts every
successor first (fewest pieces first); a unit's moves are tabled once and then
swept in place (Gauss-Seidel) from the most advanced positions down until no
value changes by more than `tol`. An acyclic game (every move inside a unit adds
progress) needs one sweep, certified by a second pass that may change nothing. A
separate pass then certifies max |T(V) - V| on the float32 values stored.

Each finished layer is checkpointed under OUT.partial/ (a .npy file and a JSON
file of its figures, each written under a temporary name and renamed); a solve
run again resumes there. The table appears under its final name only when
complete.
"""
import json
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np

from tabula.games.game import N_LAYER_IDS, layer_id, layer_pair
from tabula.solver import hugepages, kernels
from tabula.solver.settings import SolveSettings
from tabula.solver.table import layer_crc32, write_table
from tabula.infra.atomic import write_atomic
from tabula.infra.cluster import LocalCluster
from tabula.infra.progress import Progress
from tabula.infra.provenance import peak_memory_bytes

MAX_INDEX = 1 << 29  # entries pack an index into 29 bits
MAX_SWEEPS = 100_000
POLICY_SWEEPS = 8  # cheap sweeps over the recorded best moves after each full sweep
TABLE_BUDGET = 6 * 2**30  # bytes of tabled moves a unit may hold in memory
SPILL_BLOCK_BYTES = 256 * 2**20  # block size of moves tabled in a file
SCRATCH_BYTES = 128 * 2**20  # worst-case room for the moves of one group of chunks
ALIGN = 4096  # direct I/O alignment of reads and buffers


class SolveError(RuntimeError):
    pass


def check_memory(game, positions: int, need: int):
    """A SolveError, before any work, where a solve of `positions` positions needing
    `need` bytes at once would not fit in this machine's memory."""
    from tabula.infra.provenance import machine_memory_bytes
    have = machine_memory_bytes()
    if need > have:
        raise SolveError(f"{game.describe()} is too large to solve exactly: {positions:,} "
                         f"positions would need about {need / 2**30:,.0f} GiB of memory "
                         f"(this machine has {have / 2**30:,.0f})")


@dataclass
class UnitResult:
    values: dict                 # (a, b) -> float32 array
    sweeps: int                  # full sweeps (all moves)
    policy_sweeps: int           # cheap sweeps (recorded best moves only)
    last_change: float
    residual: float
    seconds: float
    build_seconds: float
    entries: int = 0
    exact: dict = field(default_factory=dict)  # code -> float64 value of watched codes


class SolveProgress(Progress):
    """The solve's progress: the positions of finished units (whence the ETA), the
    sweep of the unit at work as the note, and a line for every finished unit."""

    def __init__(self, total_positions: int, quiet: bool = False):
        super().__init__("solve", total_positions, "positions", quiet)
        self.done_positions = 0

    def sweep(self, unit: str, sweep: int, change: float):
        self.update(self.done_positions, note=f"{unit}: sweep {sweep}, change {change:.1e}")

    def unit_done(self, unit: str, positions: int, figures: "dict | None"):
        """figures: a solved unit's (solve_and_save), None for one found finished."""
        self.done_positions += positions
        what = ("resumed from checkpoint" if figures is None else
                f"{figures['sweeps']} full + {figures['policy_sweeps']} cheap sweeps, "
                f"residual {figures['residual']:.1e}, {figures['seconds']:.1f} s")
        self.say(f"{unit}: {positions:,} positions, {what}")
        self.update(self.done_positions)


def unit_needs(game, max_total=None) -> dict:
    """Units (L, M), M the mirror of L, each with the units whose layers its moves
    reach (game.successor_layers), in an order that solves every unit after those:
    fewest pieces in play first, each unit once all the units it reaches are done."""
    pairs = sorted(((a, b) for a, b in game.solved_layers(max_total) if a >= b),
                   key=lambda p: (p[0] + p[1], p))
    unit_of = {layer: (a, b) for a, b in pairs for layer in ((a, b), (b, a))}
    needs = {p: {unit_of[t] for layer in (p, p[::-1]) for t in game.successor_layers(*layer)
                 if t in unit_of} - {p} for p in pairs}
    order, done = {}, set()
    while len(order) < len(pairs):
        ready = next((p for p in pairs if p not in done and needs[p] <= done), None)
        if ready is None:
            raise SolveError(f"the layers of {game.name} reach each other in a cycle "
                             "(successor_layers): no order solves them one unit at a time")
        order[_unit(ready)] = {_unit(p) for p in needs[ready]}
        done.add(ready)
    return order


def _unit(pair):
    a, b = pair
    return (a, b), (b, a)


def unit_order(game, max_total=None):
    """The units of unit_needs, in its order."""
    return list(unit_needs(game, max_total))


class MoveTable:
    """A unit's tabled moves, generated in one pass, a group of chunks at a time:
    in memory while they fit in `budget` bytes; once they do not, everything is
    written to the file `spill` (each group generated while the previous one is
    written) and read back block by block in every full sweep (a sequential read
    is far cheaper than generating and locating every move again). The blocks
    are read with direct I/O where the file system allows it (through the page
    cache the reads were several times slower under the solver's memory
    pressure), the next block while the current one is swept."""

    def __init__(self, game, L, M, n_l, rep_codes, slot_of, lower_offset, waves, budget,
                 spill):
        n_chunks = -(-len(rep_codes) // kernels.CHUNK)
        self.counts = np.empty((len(rep_codes), 2 * len(game.throws)), dtype=np.uint8)
        self.starts = np.zeros(n_chunks + 1, dtype=np.int64)
        self.spill = None
        memory = hugepages.empty(budget // 4, np.int32)  # pages are taken only when written
        groups = self._generate(game, L, M, n_l, rep_codes, slot_of, lower_offset,
                                kernels.wave_of_chunks(waves))
        for c0, c1, entries in groups:
            if self.starts[c1] > len(memory):
                self._write(Path(spill), [memory[:self.starts[c0]], entries], groups)
                break
            memory[self.starts[c0]:self.starts[c1]] = entries
        self.size = int(self.starts[-1])
        if self.spill is None:
            self.blocks = [(0, n_chunks)]
            self.entries = memory[:self.size]
            return
        del memory
        self.blocks = self._blocks(min(budget, SPILL_BLOCK_BYTES) // 4)
        largest = max(self.starts[c1] - self.starts[c0] for c0, c1 in self.blocks)
        self.buffers = [_aligned_buffer(4 * largest + 2 * ALIGN) for _ in range(2)]

    def _generate(self, game, L, M, n_l, rep_codes, slot_of, lower_offset, wave_of):
        """(c0, c1, entries of chunks c0 .. c1 - 1) for successive groups of chunks;
        fills self.counts and self.starts as it goes."""
        room = 4 * kernels.CHUNK * 2 * len(game.throws) * game.max_moves
        group = max(1, SCRATCH_BYTES // room)
        n_chunks = len(self.starts) - 1
        for c0 in range(0, n_chunks, group):
            c1 = min(c0 + group, n_chunks)
            entries, sizes = kernels.fill_chunks(
                game.moves, game.mirror, game.layer_of, game.rank, game.throws,
                game.max_moves, layer_id(*L), layer_id(*M), n_l, rep_codes, slot_of,
                lower_offset, wave_of, c0, c1, self.counts)
            self.starts[c0 + 1:c1 + 1] = self.starts[c0] + np.cumsum(sizes)
            yield c0, c1, entries

    def _write(self, path, first, groups):
        """Write the arrays `first`, then the entries of the remaining groups, to
        `path`; a group is generated while the one before it is written."""
        self.spill = path
        with open(path, "wb") as handle, ThreadPoolExecutor(max_workers=1) as writer:
            for array in first:
                handle.write(array)
            pending = None
            for _, _, entries in groups:
                if pending is not None:
                    pending.result()
                pending = writer.submit(handle.write, entries)
            if pending is not None:
                pending.result()

    def _blocks(self, max_entries):
        """Runs of whole chunks of at most max_entries entries (or one chunk)."""
        blocks, c0 = [], 0
        n_chunks = len(self.starts) - 1
        while c0 < n_chunks:
            c1 = c0 + 1
            while c1 < n_chunks and self.starts[c1 + 1] - self.starts[c0] <= max_entries:
                c1 += 1
            blocks.append((c0, c1))
            c0 = c1
        return blocks

    def _read(self, fd, i):
        """Block i's entries, read into buffer i % 2 (from the 4 KiB boundary
        before them, as direct I/O needs)."""
        c0, c1 = self.blocks[i]
        first, end = 4 * int(self.starts[c0]), 4 * int(self.starts[c1])
        skip = first % ALIGN
        length = skip + end - first
        buffer = self.buffers[i % 2]
        if os.preadv(fd, [buffer[:length + (-length) % ALIGN]], first - skip) < length:
            raise SolveError(f"{self.spill} is shorter than the moves written to it")
        return buffer[skip:length].view(np.int32)

    def sweep(self, U, lower, probs, update, policy, record, waves, buffer) -> float:
        """kernels.sweep over every block; the largest change (or residual)."""
        if self.spill is None:
            (c0, c1), = self.blocks
            return kernels.sweep(U, lower, probs, self.counts, self.starts, self.entries, c0,
                                 c1, update, policy, record, waves, buffer)
        worst = 0.0
        fd = _open_direct(self.spill)
        try:
            with ThreadPoolExecutor(max_workers=1) as reader:
                pending = reader.submit(self._read, fd, 0)
                for i, (c0, c1) in enumerate(self.blocks):
                    entries = pending.result()
                    if i + 1 < len(self.blocks):
                        pending = reader.submit(self._read, fd, i + 1)
                    worst = max(worst, kernels.sweep(U, lower, probs, self.counts,
                                                     self.starts, entries, c0, c1, update,
                                                     policy, record, waves, buffer))
        finally:
            os.close(fd)
        return worst

    def close(self):
        if self.spill is not None:
            self.spill.unlink(missing_ok=True)


def _aligned_buffer(nbytes):
    raw = np.empty(nbytes + ALIGN, dtype=np.uint8)
    start = -raw.ctypes.data % ALIGN
    return raw[start:start + nbytes]


def _open_direct(path):
    """A file descriptor for reading `path`, bypassing the page cache if possible."""
    try:
        return os.open(path, os.O_RDONLY | getattr(os, "O_DIRECT", 0))
    except OSError:
        return os.open(path, os.O_RDONLY)


def solve_unit(game, L, M, lower, lower_offset, tol, progress=None, watch=(),
               table_budget=TABLE_BUDGET, spill_dir=None) -> UnitResult:
    """Solve the unit (L, M). Its moves are tabled in memory when they fit in
    `table_budget` bytes, otherwise in a file in `spill_dir` (a temporary folder
    if None). `watch`: codes whose float64 values to report (the start
    position's value is kept to more digits than float32 holds)."""
    t0 = time.time()
    n_l = game.layer_size(*L)
    n_u = n_l + (game.layer_size(*M) if M != L else 0)
    if n_u >= MAX_INDEX or len(lower) >= MAX_INDEX:
        raise SolveError(f"unit {L} too large for 29-bit entries")
    lid, mid = layer_id(*L), layer_id(*M)
    is_rep, partner, key, codes = kernels.find_pairs(game.unrank, game.rank, game.mirror,
                                                     game.progress, lid, mid, n_l)
    reps, partners, rep_codes, keys = kernels.sweep_order(is_rep, partner, key, codes)
    del is_rep, partner, key, codes
    waves = kernels.wave_starts(keys, game.capabilities.acyclic)
    del keys
    slot_of = hugepages.empty(n_u, np.int32)
    kernels.fill_slots(reps, partners, slot_of)
    del reps, partners
    n_pairs = len(rep_codes)
    with tempfile.TemporaryDirectory(dir=spill_dir, prefix=SPILL_PREFIX) as folder:
        move_table = MoveTable(game, L, M, n_l, rep_codes, slot_of, lower_offset, waves,
                               table_budget, Path(folder) / "moves.int32")
        del rep_codes
        # the sweeps do not need slot_of: on disk meanwhile, it leaves room for them
        np.save(Path(folder) / "slots.npy", slot_of)
        del slot_of
        build_seconds = time.time() - t0
        try:
            result = _sweep_unit(game, L, M, n_pairs, move_table, lower, tol, progress,
                                 waves)
        finally:
            move_table.close()
        slot_of = np.load(Path(folder) / "slots.npy")
    U, sweeps, policy_sweeps, change, residual = result
    exact = {}
    for code in watch:
        layer = game.layer_of(code)
        if layer in (lid, mid):
            index = game.rank(code) + (n_l if layer != lid else 0)
            exact[int(code)] = float(U[slot_of[index]])
    stored = U.astype(np.float32)[slot_of]  # back to unit index (rank) order
    values = {L: stored[:n_l]}
    if M != L:
        values[M] = stored[n_l:]
    return UnitResult(values, sweeps, policy_sweeps, change, residual, time.time() - t0,
                      build_seconds, move_table.size, exact)


def _sweep_unit(game, L, M, n_pairs, move_table, lower, tol, progress, waves):
    """Modified policy iteration on one unit: a full sweep (all moves, recording
    each throw's best), then up to POLICY_SWEEPS cheap sweeps over the recorded
    moves, until a full sweep changes nothing by more than `tol`; then the
    residual of the float32 values. An acyclic game's one sweep is exact: a pass
    that changes nothing certifies it. Returns (U, sweeps, policy sweeps, last
    change, residual)."""
    U = hugepages.full(2 * n_pairs, 0.5, np.float64)
    policy = hugepages.empty((n_pairs, 2 * len(game.throws)), np.int32)
    name = _unit_name(L, M)
    sweeps, policy_sweeps = 0, 0
    buffer = kernels.frozen_buffer(waves, n_pairs)
    if game.capabilities.acyclic:
        move_table.sweep(U, lower, game.probs, True, policy, False, waves, buffer)
        change = move_table.sweep(U, lower, game.probs, False, policy, False, waves, buffer)
        if progress is not None:
            progress.sweep(name, 1, change)
        if change > tol:
            raise SolveError(f"{game.name} declares itself acyclic, but one sweep of {name} "
                             f"left changes of {change:.1e}: a move keeps or lowers progress")
        sweeps = 1
    else:
        while True:
            change = move_table.sweep(U, lower, game.probs, True, policy, True, waves, buffer)
            sweeps += 1
            if progress is not None:
                progress.sweep(name, sweeps, change)
            if change <= tol:
                break
            for _ in range(POLICY_SWEEPS):
                policy_sweeps += 1
                if kernels.policy_sweep(U, lower, game.probs, policy, waves, buffer) <= tol:
                    break
            if sweeps >= MAX_SWEEPS:
                raise SolveError(f"{name} did not converge in {MAX_SWEEPS} sweeps")
    del policy
    stored = U.astype(np.float32).astype(np.float64)
    residual = move_table.sweep(stored, lower, game.probs, False,
                                np.empty((0, 0), dtype=np.int32), False, waves, buffer)
    return U, sweeps, policy_sweeps, float(change), float(residual)


SPILL_PREFIX = "moves-"   # a unit's tabled moves on disk, in OUT.partial/ while it sweeps


class Checkpoint:
    """Finished layers of an interrupted solve, in OUT.partial/: each layer's values
    (.npy) and figures (.json, with the values' CRC-32). A layer whose files are
    damaged, cut short or changed is solved again, not trusted. The tabled moves a
    killed solve left behind (up to 18 GB for Senet 4) are removed when it resumes:
    one solve of an output at a time."""

    def __init__(self, out: Path, meta: dict, sizes: dict):
        self.dir = out.with_name(out.name + ".partial")
        self.sizes = sizes   # layer -> positions
        self.dir.mkdir(parents=True, exist_ok=True)
        for stale in [*self.dir.glob(f"{SPILL_PREFIX}*"), *self.dir.glob("tmp*")]:
            if stale.is_dir():   # tmp*: the spill folders of versions before the prefix
                shutil.rmtree(stale, ignore_errors=True)
        meta_path = self.dir / "meta.json"
        if meta_path.exists():
            try:
                found = json.loads(meta_path.read_text())
            except (ValueError, UnicodeDecodeError):
                raise SolveError(f"{meta_path} is damaged: remove {self.dir} (its layers "
                                 "cannot be trusted) or choose another --out") from None
            if found != meta:
                raise SolveError(f"{self.dir} holds a solve with other settings "
                                 f"({found}); remove it or choose another --out")
        else:
            write_atomic(meta_path, json.dumps(meta).encode())

    @classmethod
    def reader(cls, folder, sizes: dict) -> "Checkpoint":
        """The checkpoint in `folder` as a unit sees it on any node: its layers read
        and saved, nothing cleaned up or checked (the solve that opened it did)."""
        checkpoint = cls.__new__(cls)
        checkpoint.dir, checkpoint.sizes = Path(folder), sizes
        return checkpoint

    def has(self, layer) -> bool:
        """Whether the layer is there whole: its figures readable, its values of the
        layer's length, finite and with the CRC-32 recorded when they were saved."""
        try:
            stats = self.stats(layer)
            values = self.load(layer)
        except (OSError, ValueError, UnicodeDecodeError):
            return False
        return (values.dtype == np.float32 and values.shape == (self.sizes[layer],)
                and stats.get("crc32") == layer_crc32(values)
                and bool(np.isfinite(values).all()))

    def load(self, layer) -> np.ndarray:
        return np.load(self.dir / f"{layer[0]}_{layer[1]}.npy", allow_pickle=False)

    def stats(self, layer) -> dict:
        return json.loads((self.dir / f"{layer[0]}_{layer[1]}.json").read_text())

    def save(self, layer, values, stats):
        stem = f"{layer[0]}_{layer[1]}"
        tmp = self.dir / f"{stem}.npy.tmp"
        with open(tmp, "wb") as handle:
            np.save(handle, values)
        os.replace(tmp, self.dir / f"{stem}.npy")
        stats = {**stats, "crc32": layer_crc32(values)}
        write_atomic(self.dir / f"{stem}.json", json.dumps(stats).encode())

    def discard(self, layer):
        """Drop a layer's values (its unit is solved again if the solve restarts)."""
        (self.dir / f"{layer[0]}_{layer[1]}.npy").unlink()

    def remove(self):
        shutil.rmtree(self.dir)


def _lower_values(game, L, M, checkpoint):
    """The finished layers a unit's moves reach (game.successor_layers), as one
    flat array."""
    lower_offset = np.full(N_LAYER_IDS, -1, dtype=np.int64)
    parts, start = [], 0
    for layer in dict.fromkeys((L, M)):
        for target in game.successor_layers(*layer):
            if (min(target) > 0 and target not in (L, M)
                    and lower_offset[layer_id(*target)] < 0):
                lower_offset[layer_id(*target)] = start
                parts.append(checkpoint.load(target))
                start += len(parts[-1])
    flat = hugepages.empty(max(start, 1), np.float32)
    if parts:
        np.concatenate(parts, out=flat)
    return flat, lower_offset


def _solve_units(game, needs, checkpoint, cluster, progress, settings):
    """Solve every unit not yet in the checkpoint on `cluster`, each once the units it
    reaches are done (in this process: one at a time, in unit_needs' order)."""
    tol, table_budget, unit_solver, threads = settings
    waiting, running, done = list(needs), {}, set()
    what = game if cluster.in_process else str(game.variant)   # a Game does not travel

    def finished(unit, figures):
        progress.unit_done(_unit_name(*unit), sum(game.layer_size(*p) for p in set(unit)),
                           figures)
        done.add(unit)

    while waiting or running:
        for unit in list(waiting):
            if not needs[unit] <= done:   # (read as units finish: in this process, each
                continue                  # unit is solved before the next is looked at)
            waiting.remove(unit)
            if all(checkpoint.has(p) for p in unit):
                finished(unit, None)
                continue
            future = cluster.submit(solve_and_save, what, *unit, str(checkpoint.dir),
                                    checkpoint.sizes, tol, table_budget, unit_solver,
                                    progress if cluster.in_process else None,
                                    cpus=threads or 1)
            running[future] = unit
            if future.done():   # in this process: solved already, before the next
                finished(running.pop(future), future.result())
        if running:
            for future in wait(running, return_when=FIRST_COMPLETED).done:
                finished(running.pop(future), future.result())


def _unit_name(L, M):
    return f"layer {L}" + (f"+{M}" if M != L else "")


def solve_and_save(game, L, M, folder, sizes, tol, table_budget, unit_solver, progress):
    """Solve the unit (L, M) from the finished layers in the checkpoint `folder` and
    save its layers there; returns the figures saved. `game`: the Game, or its
    variant string where the unit runs in another process."""
    if isinstance(game, str):
        from tabula.games import parse_variant
        game = parse_variant(game)
    checkpoint = Checkpoint.reader(folder, sizes)
    lower, lower_offset = _lower_values(game, L, M, checkpoint)
    result = (unit_solver or solve_unit)(game, L, M, lower, lower_offset, tol, progress,
                                         [game.start], table_budget, checkpoint.dir)
    del lower
    figures = {"sweeps": result.sweeps, "policy_sweeps": result.policy_sweeps,
               "last_change": result.last_change, "residual": result.residual,
               "seconds": result.seconds, "build_seconds": result.build_seconds,
               "entries": result.entries}
    for p in dict.fromkeys((L, M)):
        extra = ({"start_value": result.exact[game.start]}
                 if game.layer_of(game.start) == layer_id(*p) else {})
        checkpoint.save(p, result.values[p], {**extra, **figures,
                                              "positions": game.layer_size(*p)})
    return figures


def _room_for_table(game, layers, out) -> bool:
    """Whether the disk of `out` holds the table (float32 values) with 1 GiB to spare."""
    table_bytes = 4 * sum(game.layer_size(*p) for p in layers)
    return shutil.disk_usage(out.parent).free >= table_bytes + 2 ** 30


def solve(game, out, tol=SolveSettings.tol, threads=None, max_total=None, quiet=False,
          table_budget=TABLE_BUDGET, unit_solver=None, cluster=None) -> dict:
    """Solve `game` into the table file `out`; returns a summary dict.
    table_budget: bytes of tabled moves a unit may hold in memory before they
    go to a file beside the output. unit_solver: what solves each unit, solve_unit's
    arguments taken (default solve_unit; solver/gpu.py's unit_solver sweeps on a GPU).
    cluster: where units run (infra/cluster.py; default this process). On Ray, every
    unit whose successors are done runs at once, as a task of `threads` CPUs (default
    1), reading and writing finished layers in OUT.partial/, which every node must
    reach at the same path (a shared folder)."""
    out = Path(out)
    if threads and (cluster is None or cluster.in_process):
        numba.set_num_threads(threads)
    needs = unit_needs(game, max_total)
    units = list(needs)
    layers = [layer for unit in units for layer in dict.fromkeys(unit)]
    too_large = [L for L, M in units
                 if game.layer_size(*L) + (game.layer_size(*M) if M != L else 0) >= MAX_INDEX]
    if too_large:   # refused before any work, not after the smaller units are solved
        raise SolveError(f"{game.describe()} is too large to solve: its layer {too_large[-1]} "
                         f"has {game.layer_size(*too_large[-1]):,} positions (a layer and its "
                         f"mirror may hold fewer than {MAX_INDEX:,} in all); try fewer pieces")
    meta = {"game": game.name, "rules": game.rules, "pieces": game.pieces, "tolerance": tol,
            "max_total": max_total}
    checkpoint = Checkpoint(out, meta, {p: game.layer_size(*p) for p in layers})
    progress = SolveProgress(sum(game.layer_size(*p) for p in layers), quiet=quiet)
    t0 = time.time()
    _solve_units(game, needs, checkpoint, cluster or LocalCluster(), progress,
                 (tol, table_budget, unit_solver, threads))
    seconds = time.time() - t0
    progress.done(f"{len(layers)} layers")
    stats = {p: checkpoint.stats(p) for p in layers}
    per_unit = [stats[L] for L, _ in units]  # a unit's figures are stored with both layers
    max_residual = max(s["residual"] for s in per_unit)
    attrs = {"tolerance": tol, "max_total": -1 if max_total is None else max_total,
             "solve_seconds": sum(s["seconds"] for s in per_unit),
             "max_residual": max_residual}
    start_stats = stats.get(layer_pair(game.layer_of(game.start)), {})
    if "start_value" in start_stats:
        attrs["start_value"] = start_stats["start_value"]
    tmp = out.with_name(out.name + ".tmp")
    done_with = None
    if not _room_for_table(game, layers, out):
        if not quiet:
            print(f"not enough free disk for {out.name} beside its checkpoint: each "
                  "layer's checkpoint file is deleted once the layer is in the table (an "
                  "interrupted write solves those layers again)", file=sys.stderr)
        done_with = lambda a, b: checkpoint.discard((a, b))   # noqa: E731
    write_table(tmp, game, layers, lambda a, b: checkpoint.load((a, b)), attrs, stats,
                done_with)
    os.replace(tmp, out)
    checkpoint.remove()
    return {"table": str(out), "game": game.name, "rules": game.rules, "pieces": game.pieces,
            "positions": progress.total, "layers": len(layers),
            "sweeps": sum(s["sweeps"] for s in per_unit),
            "policy_sweeps": sum(s["policy_sweeps"] for s in per_unit),
            "max_residual": max_residual, "start_value": attrs.get("start_value"),
            "wall_seconds": seconds,
            "peak_memory_bytes": peak_memory_bytes()}
