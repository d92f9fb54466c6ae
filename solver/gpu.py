"""The layered solver's sweeps on a GPU (numba's CUDA target), for any game of the
contract: `tabula solve GAME --device cuda`.

The units, their order, the tolerance and the certifying residual pass are the CPU
solver's (solver/layered.py); what differs is how a unit is swept, because a GPU
has memory to spare and latency to hide, not cores to keep apart:
- Moves are generated on the fly from the game's own compiled rules in every sweep
  (nothing is tabled: the full Senet game's largest unit alone has 5 billion
  positions), and values are read by rank, so the working array U is in unit-index
  order (layer L's ranks, then the mirror layer M's from n_L on), in float64.
- A sweep goes wave by wave, from the most advanced progress down, as the CPU
  solver's does; a wave is every pair of one progress value, updated by one GPU
  thread each. During a wave U is only read: the new values go to a buffer that a
  second kernel writes back when the wave is done, so a read of the same wave takes
  the value from before it, whatever the threads' order. The result does not depend
  on scheduling, and a pair's two positions are still solved together.
- No modified policy iteration: on the CPU the cheap sweeps save generating and
  locating moves, which the GPU does at memory speed anyway; storing each throw's
  best move for five billion pairs would take more memory than it saves time.

The per-pair logic (`_unit_logic`) is written once, closing over the game's rules,
and compiled twice: by numba's CUDA target for the GPU, and for the CPU, where the
tests check it against the CPU solver on every position of small games
(tests/test_gpu_solver.py); they also run the CUDA kernels themselves under numba's
CUDA simulator. Choice of numba: the rules are numba functions already, and its
CUDA target compiles them as device functions unchanged (CuPy or Triton would need
the rules written again).
"""
import math
import time

import numpy as np
from numba import cuda, njit, prange

from tabula.games.game import OVER, layer_id, worth
from tabula.solver import kernels

THREADS = 256   # threads per block


def _unit_logic(game, jit):
    """The unit's per-position functions for `game`, compiled by `jit` (numba.njit, or
    numba.cuda.jit(device=True)): the same source for the CPU and the GPU."""
    moves, rank, unrank, mirror = game.moves, game.rank, game.unrank, game.mirror
    layer_of, progress = game.layer_of, game.progress

    @jit
    def pair_key(lid, mid, n_l, r):
        """The progress of rank r of layer L if it represents its pair, else -1
        (with L == M, r represents {r, r'} when r <= r')."""
        code = unrank(lid, r)
        if lid == mid and rank(mirror(code)) < r:
            return -1
        return progress(code)

    @jit
    def throw_values(U, lower, lower_offset, lid, mid, n_l, throws, probs, code, out_codes,
                     out_info):
        """Sum over throws of p(t) times the best move's worth, and the probability of
        a throw without a move."""
        total = 0.0
        forfeit = 0.0
        for t in range(len(throws)):
            n = moves(code, throws[t], out_codes, out_info)
            if n == 0:
                forfeit += probs[t]
                continue
            best = -1.0
            for j in range(n):
                info = out_info[j]
                value = 0.0
                if not info & OVER:
                    nxt = out_codes[j]
                    layer = layer_of(nxt)
                    r = rank(nxt)
                    if layer == lid:
                        value = U[r]
                    elif layer == mid:
                        value = U[n_l + r]
                    else:
                        value = lower[lower_offset[layer] + r]
                w = worth(info, value)
                if w > best:   # not max(): numba's CUDA target cannot compile it
                    best = w
            total += probs[t] * best
        return total, forfeit

    @jit
    def pair(U, lower, lower_offset, lid, mid, n_l, throws, probs, r, update, new, where,
             slot, out_codes, out_info):
        """The pair represented by rank r of L: with `update`, its new values go to
        new[slot], new[slot + 1] and their unit indices to where[slot], where[slot + 1];
        without, T(U) is measured. Returns the larger change."""
        code = unrank(lid, r)
        twin_code = mirror(code)
        twin = rank(twin_code) + (0 if lid == mid else n_l)
        a, q = throw_values(U, lower, lower_offset, lid, mid, n_l, throws, probs, code,
                            out_codes, out_info)
        a2, q2 = throw_values(U, lower, lower_offset, lid, mid, n_l, throws, probs, twin_code,
                              out_codes, out_info)
        v, v2 = kernels.pair_values(a, q, a2, q2, U[r], U[twin], update)
        if update:
            new[slot] = v
            new[slot + 1] = v2
            where[slot] = r
            where[slot + 1] = twin
        d, d2 = abs(v - U[r]), abs(v2 - U[twin])
        return d if d > d2 else d2

    return pair_key, pair


@njit(cache=True)
def _write_back_cpu(U, new, where, n):
    """The wave's new values into U, pair by pair (a position that is its own mirror
    gets its second value, as on the GPU)."""
    for i in range(n):
        U[where[2 * i]] = new[2 * i]
        U[where[2 * i + 1]] = new[2 * i + 1]


def _cached(make):
    """make(game), once per game variant (Game holds arrays: not hashable)."""
    made = {}

    def get(game):
        key = (game.name, game.pieces)
        if key not in made:
            made[key] = make(game)
        return made[key]
    return get


@_cached
def cpu_kernels(game):
    """The unit's kernels compiled for the CPU (the tests' reference for the GPU's)."""
    pair_key, pair = _unit_logic(game, njit)
    max_moves = game.max_moves

    @njit(parallel=True)
    def keys(lid, mid, n_l, out):
        for r in prange(n_l):
            out[r] = pair_key(lid, mid, n_l, r)

    @njit(parallel=True)
    def wave(U, lower, lower_offset, lid, mid, n_l, throws, probs, reps, a, b, update, new,
             where):
        changes = np.zeros(b - a)
        for i in prange(b - a):
            out_codes = np.empty(max_moves, dtype=np.int64)
            out_info = np.empty(max_moves, dtype=np.int64)
            changes[i] = pair(U, lower, lower_offset, lid, mid, n_l, throws, probs,
                              reps[a + i], update, new, where, 2 * i, out_codes, out_info)
        return changes.max() if b > a else 0.0

    return keys, wave


@cuda.jit(device=True)
def _thread():
    """This thread's index in the grid, in int64: the full Senet game's largest layer
    has more positions than an int32 counts."""
    return np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x


def _global_arrays_in_global_memory():
    """Have numba's CUDA target put the global arrays that the rules read (rank and
    binomial tables) in global memory instead of constant memory. Constant memory holds
    64 KB a module and numba copies a table at every place it is used: Ur's kernels ask
    for 2.8 MB, which ptxas refuses ("too much global constant data"). In global
    memory they are read through the caches (a few MB: the H200's L2 holds 50)."""
    from numba import config
    if config.ENABLE_CUDASIM:   # the simulator runs Python: no memory spaces
        return
    from numba.cuda import target
    from numba.cuda.cudadrv import nvvm
    make = target.CUDATargetContext.make_constant_array
    if getattr(make, "in_global_memory", False):
        return

    def make_in_global_memory(self, builder, aryty, arr):
        constant = nvvm.ADDRSPACE_CONSTANT
        nvvm.ADDRSPACE_CONSTANT = nvvm.ADDRSPACE_GLOBAL   # read by make at this call
        try:
            return make(self, builder, aryty, arr)
        finally:
            nvvm.ADDRSPACE_CONSTANT = constant
    make_in_global_memory.in_global_memory = True
    target.CUDATargetContext.make_constant_array = make_in_global_memory


@_cached
def cuda_kernels(game):
    """The unit's kernels compiled for the GPU."""
    _global_arrays_in_global_memory()
    pair_key, pair = _unit_logic(game, cuda.jit(device=True))
    max_moves = game.max_moves

    @cuda.jit
    def keys(lid, mid, n_l, out):
        r = _thread()
        if r < n_l:
            out[r] = pair_key(lid, mid, n_l, r)

    @cuda.jit
    def wave(U, lower, lower_offset, lid, mid, n_l, throws, probs, reps, a, b, update, new,
             where, change):
        i = _thread()
        if i < b - a:
            out_codes = cuda.local.array(max_moves, dtype=np.int64)
            out_info = cuda.local.array(max_moves, dtype=np.int64)
            d = pair(U, lower, lower_offset, lid, mid, n_l, throws, probs, reps[a + i],
                     update, new, where, 2 * i, out_codes, out_info)
            cuda.atomic.max(change, 0, d)

    @cuda.jit
    def write_back(U, new, where, n):
        i = _thread()
        if i < n:
            U[where[2 * i]] = new[2 * i]
            U[where[2 * i + 1]] = new[2 * i + 1]

    @cuda.jit
    def to_float32(U):
        i = _thread()
        if i < len(U):
            U[i] = np.float64(np.float32(U[i]))

    return keys, wave, write_back, to_float32


@njit(cache=True)
def sweep_order(keys):
    """The representatives (ranks with key >= 0), most advanced first (a counting
    sort, in O(n) for billions of them), and where each wave (a run of one progress
    value) starts, then their number."""
    top = 0
    for k in keys:
        top = max(top, k)
    count = np.zeros(top + 1, dtype=np.int64)
    for k in keys:
        if k >= 0:
            count[k] += 1
    waves = [0]
    cursor = np.empty(top + 1, dtype=np.int64)
    start = 0
    for k in range(top, -1, -1):
        cursor[k] = start
        start += count[k]
        if count[k]:
            waves.append(start)
    reps = np.empty(start, dtype=np.int64)
    for r in range(len(keys)):
        k = keys[r]
        if k >= 0:
            reps[cursor[k]] = r
            cursor[k] += 1
    return reps, np.array(waves, dtype=np.int64)


class Unit:
    """A unit's sweeps, wave by wave (see the module docstring); the subclasses hold
    the arrays where the kernels run."""

    def __init__(self, game, L, M):
        self.lid, self.mid = layer_id(*L), layer_id(*M)
        self.n_l = game.layer_size(*L)
        self.n_u = self.n_l + (game.layer_size(*M) if M != L else 0)

    def sweep(self, update: bool) -> float:
        """One sweep: with `update` the largest change, without it the largest
        Bellman residual |T(U) - U|."""
        worst = 0.0
        for w in range(len(self.waves) - 1):
            a, b = int(self.waves[w]), int(self.waves[w + 1])
            worst = max(worst, self._wave(a, b, update))
        return max(worst, self._finish())

    def _finish(self) -> float:
        return 0.0


class CpuUnit(Unit):
    """On the CPU, with the GPU's kernel logic."""

    def __init__(self, game, L, M, lower, lower_offset):
        super().__init__(game, L, M)
        self.keys_kernel, self.wave_kernel = cpu_kernels(game)
        self.throws, self.probs = game.throws, game.probs
        self.lower, self.lower_offset = lower, lower_offset
        keys = np.empty(self.n_l, dtype=np.int32)
        self.keys_kernel(self.lid, self.mid, self.n_l, keys)
        self.reps, self.waves = sweep_order(keys)
        self.U = np.full(self.n_u, 0.5)
        room = 2 * max(1, np.diff(self.waves).max(initial=1))
        self.new, self.where = np.empty(room), np.empty(room, dtype=np.int64)

    def _wave(self, a, b, update):
        change = self.wave_kernel(self.U, self.lower, self.lower_offset, self.lid, self.mid,
                                  self.n_l, self.throws, self.probs, self.reps, a, b, update,
                                  self.new, self.where)
        if update:
            _write_back_cpu(self.U, self.new, self.where, b - a)
        return change

    def round_to_float32(self):
        self.U = self.U.astype(np.float32).astype(np.float64)

    def values(self) -> np.ndarray:
        return self.U


class CudaUnit(Unit):
    """On the GPU: the unit's values, its representatives and the lower layers it
    reaches live in GPU memory; the host only launches kernels."""

    def __init__(self, game, L, M, lower, lower_offset):
        super().__init__(game, L, M)
        self.keys_kernel, self.wave_kernel, self.write_back, self.rounding = \
            cuda_kernels(game)
        self.throws = cuda.to_device(np.asarray(game.throws))
        self.probs = cuda.to_device(np.asarray(game.probs, dtype=np.float64))
        self.lower = cuda.to_device(lower)
        self.lower_offset = cuda.to_device(lower_offset)
        keys = cuda.device_array(self.n_l, dtype=np.int32)
        self.keys_kernel[_blocks(self.n_l), THREADS](self.lid, self.mid, self.n_l, keys)
        reps, self.waves = sweep_order(keys.copy_to_host())   # sorted on the host
        del keys
        self.reps = cuda.to_device(reps)
        self.U = cuda.to_device(np.full(self.n_u, 0.5))
        room = 2 * max(1, np.diff(self.waves).max(initial=1))
        self.new = cuda.device_array(room)
        self.where = cuda.device_array(room, dtype=np.int64)
        self.change = cuda.to_device(np.zeros(1))

    def _wave(self, a, b, update):
        grid = _blocks(b - a)
        self.wave_kernel[grid, THREADS](self.U, self.lower, self.lower_offset, self.lid,
                                        self.mid, self.n_l, self.throws, self.probs,
                                        self.reps, a, b, update, self.new, self.where,
                                        self.change)
        if update:
            self.write_back[grid, THREADS](self.U, self.new, self.where, b - a)
        return 0.0   # the largest change is gathered on the GPU: see _finish

    def _finish(self):
        change = float(self.change.copy_to_host()[0])
        self.change.copy_to_device(np.zeros(1))
        return change

    def round_to_float32(self):
        self.rounding[_blocks(self.n_u), THREADS](self.U)

    def values(self) -> np.ndarray:
        return self.U.copy_to_host()


def _blocks(n: int) -> int:
    return max(1, math.ceil(n / THREADS))


UNITS = {"cuda": CudaUnit, "cpu": CpuUnit}


def unit_solver(backend: str):
    """A solve_unit for solver.layered.solve that sweeps on `backend`: "cuda" (the GPU),
    or "cpu" (the GPU's kernel logic compiled for the CPU, the tests' check of it)."""
    def solve(game, L, M, lower, lower_offset, tol, progress=None, watch=(), *_):
        return solve_unit(UNITS[backend], game, L, M, lower, lower_offset, tol, progress,
                          watch)
    return solve


def solve_unit(unit_class, game, L, M, lower, lower_offset, tol, progress=None, watch=()):
    """Solve the unit (L, M) with full sweeps until none changes a value by more than
    `tol`, then certify the float32 values by the residual pass (solver/layered.py's
    solve_unit, without its tabled moves and cheap sweeps)."""
    from tabula.solver.layered import MAX_SWEEPS, SolveError, UnitResult
    t0 = time.time()
    unit = unit_class(game, L, M, lower, lower_offset)
    build_seconds = time.time() - t0
    name = f"layer {L}" + (f"+{M}" if M != L else "")
    sweeps = 0
    while True:
        change = unit.sweep(True)
        sweeps += 1
        if progress is not None:
            progress.sweep(name, sweeps, change)
        if change <= tol:
            break
        if sweeps >= MAX_SWEEPS:
            raise SolveError(f"{name} did not converge in {MAX_SWEEPS} sweeps")
    U = unit.values()
    exact = {}
    for code in watch:
        layer = game.layer_of(code)
        if layer in (unit.lid, unit.mid):
            index = game.rank(code) + (unit.n_l if layer != unit.lid else 0)
            exact[int(code)] = float(U[index])
    unit.round_to_float32()
    residual = unit.sweep(False)
    stored = U.astype(np.float32)
    values = {L: stored[:unit.n_l]}
    if M != L:
        values[M] = stored[unit.n_l:]
    return UnitResult(values, sweeps, 0, float(change), float(residual), time.time() - t0,
                      build_seconds, 0, exact)
