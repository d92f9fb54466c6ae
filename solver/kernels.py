"""Compiled kernels of the layered solver: one unit (a layer and its mirror) at a time.

A unit's positions are numbered by *unit index*: layer L's ranks first, then
(when M != L) the mirror layer M's ranks from nL on. The solver visits *pairs*:
a representative position r of L and its mirror r' (in M), updated together so
that forfeited throws, which hand the same board to the other side, are solved
exactly instead of bouncing between the two.

Pairs are swept from the most advanced down (so most successors already hold
this sweep's values), and the working array U is laid out in that order: pair k
holds U[2k] (representative) and U[2k+1] (mirror), slot_of maps a unit index to
its slot. Successors then lie near each other in memory, which roughly halves
the time of a sweep compared with rank order.

Each pair's moves are tabled once (compressed rows in sweep order, in memory
or, for units too large, in a file read back block by block), every sweep is
then a gather. An entry is an int32, the move's worth being games.game.worth of:
  -1                     the move wins
  (i << 2) | 0 / 1       U[i]      (the turn passes / the mover throws again)
  (i << 2) | 2 / 3       lower[i]  (a piece borne off: a finished layer), likewise
  -2 - ((i << 1) | 0/1)  U[i] as it was before the wave (below): a slot of another
                         chunk of the same wave
counts[k, t] is the number of entries of throw t for the representative of pair
k, counts[k, T + t] the same for its mirror; 0 means the throw is forfeited.

The same bytes whatever the thread count: a sweep goes through *waves*, runs of
chunks whose pairs have the same progress (wave_starts), one after the other; the
chunks of a wave are swept in parallel, each in order (Gauss-Seidel), and a read
of another chunk of the same wave takes that value as it was before the wave (a
copy), never one a thread may be writing. Such reads are tagged in the entries when
the moves are tabled, so a sweep tests nothing else; moves rarely keep the progress,
so they are rare and the sweeps stay Gauss-Seidel almost everywhere.
"""
import numpy as np
from numba import njit, prange

from tabula.games.game import AGAIN, OVER, worth

WIN = -1
FORFEIT = -2  # in a policy: the throw has no legal move
CHUNK = 2048  # pairs per parallel work item

@njit(parallel=True, cache=True)
def find_pairs(unrank, rank, mirror, progress, L, M, n_l):
    """Representatives of the unit's pairs: a flag by rank in L, their mirrors'
    unit index, their sort keys (progress) and codes. With L == M, r represents
    {r, r'} when r <= r'."""
    is_rep = np.zeros(n_l, dtype=np.bool_)
    partner = np.empty(n_l, dtype=np.int32)
    key = np.empty(n_l, dtype=np.int32)
    codes = np.empty(n_l, dtype=np.int64)
    for r in prange(n_l):
        code = unrank(L, r)
        twin = rank(mirror(code))
        if L != M or r <= twin:
            is_rep[r] = True
            partner[r] = twin if L == M else n_l + twin
            key[r] = progress(code)
            codes[r] = code
    return is_rep, partner, key, codes


@njit(cache=True)
def sweep_order(is_rep, partner, key, codes):
    """Representatives (unit index, mirror's unit index, code) sorted by progress,
    most advanced first (a counting sort)."""
    top = 0
    for r in range(len(is_rep)):
        if is_rep[r] and key[r] > top:
            top = key[r]
    bucket = np.zeros(top + 2, dtype=np.int64)
    for r in range(len(is_rep)):
        if is_rep[r]:
            bucket[top - key[r] + 1] += 1
    for k in range(1, top + 2):
        bucket[k] += bucket[k - 1]
    n = bucket[top + 1]
    reps = np.empty(n, dtype=np.int32)
    partners = np.empty(n, dtype=np.int32)
    rep_codes = np.empty(n, dtype=np.int64)
    keys = np.empty(n, dtype=np.int32)
    for r in range(len(is_rep)):
        if is_rep[r]:
            slot = bucket[top - key[r]]
            bucket[top - key[r]] += 1
            reps[slot] = r
            partners[slot] = partner[r]
            rep_codes[slot] = codes[r]
            keys[slot] = key[r]
    return reps, partners, rep_codes, keys


def wave_starts(keys, acyclic=False) -> np.ndarray:
    """The chunks where a wave begins (a chunk whose first pair's progress differs
    from the previous chunk's first pair's), then the number of chunks. (Waves of
    several progress values, fewer and larger, made Ur 5 need a third more sweeps.)
    acyclic: every move adds progress, and one sweep is to be exact, so a chunk that
    spans several progress values is a wave of its own: its later pairs may read its
    earlier ones, never a copy from before the wave."""
    firsts = keys[::CHUNK]
    new_wave = np.concatenate([[True], firsts[1:] != firsts[:-1]])
    if acyclic:
        lasts = keys[np.minimum(np.arange(1, len(firsts) + 1) * CHUNK, len(keys)) - 1]
        spans = firsts != lasts
        new_wave |= spans | np.concatenate([[False], spans[:-1]])
    begins = np.flatnonzero(new_wave)
    return np.append(begins, len(firsts)).astype(np.int64)


def wave_of_chunks(waves) -> np.ndarray:
    """The wave of each chunk."""
    return np.repeat(np.arange(len(waves) - 1), np.diff(waves)).astype(np.int32)


@njit(cache=True)
def fill_slots(reps, partners, slot_of):
    """slot_of[unit index] = place in the sweep-ordered array U. A position that is
    its own mirror has two slots that the pair update keeps equal; it maps to the second."""
    for k in range(len(reps)):
        slot_of[reps[k]] = 2 * k
        slot_of[partners[k]] = 2 * k + 1


@njit(cache=True)
def encode_move(layer_of, rank, L, M, n_l, slot_of, lower_offset, wave_of, c, next_code,
                info):
    """The entry of a move of chunk c (see the module docstring)."""
    if info & OVER:
        return WIN
    again = 1 if info & AGAIN else 0
    layer = layer_of(next_code)
    r = rank(next_code)
    if layer != L and layer != M:
        return ((lower_offset[layer] + r) << 2) | 2 | again
    slot = slot_of[r] if layer == L else slot_of[n_l + r]
    target = (slot >> 1) // CHUNK
    if target != c and wave_of[target] == wave_of[c]:
        return -2 - ((slot << 1) | again)
    return (slot << 2) | again


@njit(parallel=True, cache=True)
def fill_chunks(moves, mirror, layer_of, rank, throws, max_moves, L, M, n_l, rep_codes,
                slot_of, lower_offset, wave_of, c0, c1, counts):
    """Generate the moves of chunks c0 .. c1 - 1 in one pass: their counts go to
    `counts`, their entries, chunk after chunk, to the array returned with the
    number of entries of each chunk. (Each chunk first writes into its own
    worst-case slice of a scratch array, then the slices are packed.)"""
    n_t = len(throws)
    room = CHUNK * 2 * n_t * max_moves
    scratch = np.empty((c1 - c0) * room, dtype=np.int32)
    sizes = np.zeros(c1 - c0, dtype=np.int64)
    for c in prange(c0, c1):
        out_codes = np.empty(max_moves, dtype=np.int64)
        out_info = np.empty(max_moves, dtype=np.int64)
        base = (c - c0) * room
        pos = base
        for k in range(c * CHUNK, min((c + 1) * CHUNK, len(rep_codes))):
            code = rep_codes[k]
            for side in range(2):
                for t in range(n_t):
                    n = moves(code, throws[t], out_codes, out_info)
                    counts[k, side * n_t + t] = n
                    for i in range(n):
                        scratch[pos] = encode_move(layer_of, rank, L, M, n_l, slot_of,
                                                   lower_offset, wave_of, c, out_codes[i],
                                                   out_info[i])
                        pos += 1
                code = mirror(code)
        sizes[c - c0] = pos - base
    offsets = np.zeros(c1 - c0 + 1, dtype=np.int64)
    for c in range(c1 - c0):
        offsets[c + 1] = offsets[c] + sizes[c]
    entries = np.empty(offsets[-1], dtype=np.int32)
    for c in prange(c1 - c0):
        entries[offsets[c]:offsets[c + 1]] = scratch[c * room:c * room + sizes[c]]
    return entries, sizes


@njit(cache=True, inline="always")
def _entry_value(U, lower, e, frozen, f0):
    """The worth of entry e; frozen[i - f0] holds slot i as it was before the wave."""
    if e < 0:
        if e == WIN:
            return worth(OVER, 0.0)
        f = -2 - e
        return worth(AGAIN if f & 1 else 0, frozen[(f >> 1) - f0])
    v = U[e >> 2] if e & 2 == 0 else np.float64(lower[e >> 2])
    return worth(AGAIN if e & 1 else 0, v)


@njit(cache=True)
def _wave_slots(waves, w, n_pairs):
    """The first slot of wave w and its number of slots."""
    first = 2 * waves[w] * CHUNK
    return first, 2 * min(waves[w + 1] * CHUNK, n_pairs) - first


@njit(cache=True, inline="always")
def _throw_values(U, lower, probs, counts, k, first, entries, pos, policy, record, frozen,
                  f0):
    """Sum over throws of p(t) * best move value, and the probability of forfeiting,
    for one position whose throws' counts start at counts[k, first]. With `record`,
    the best entry of each throw is written to policy[k, first + t]."""
    total = 0.0
    forfeit = 0.0
    for t in range(len(probs)):
        n = counts[k, first + t]
        if n == 0:
            forfeit += probs[t]
            if record:
                policy[k, first + t] = FORFEIT
            continue
        best = -1.0
        best_entry = 0
        for _ in range(n):
            e = entries[pos]
            pos += 1
            v = _entry_value(U, lower, e, frozen, f0)
            if v > best:
                best = v
                best_entry = e
        if record:
            policy[k, first + t] = best_entry
        total += probs[t] * best
    return total, forfeit, pos


@njit(cache=True, inline="always")
def pair_values(a, q, a2, q2, u, u2, update):
    """New values of a position and its mirror whose throws are worth a and a2 and are
    forfeited with probability q and q2, now valued u and u2; without update, T(U) for
    both. V = a + q (1 - V'), V' = a2 + q2 (1 - V): the forfeits solved exactly."""
    if update:
        denominator = 1.0 - q * q2
        v = (a + q * (1.0 - a2 - q2)) / denominator if denominator > 0.0 else 0.0
        return v, a2 + q2 * (1.0 - v)
    return a + q * (1.0 - u2), a2 + q2 * (1.0 - u)


@njit(cache=True, inline="always")
def _pair_update(U, r, a, q, a2, q2, update):
    """pair_values of the pair in slots r and r + 1, written when `update`; the larger
    change."""
    twin = r + 1
    v, v2 = pair_values(a, q, a2, q2, U[r], U[twin], update)
    d = max(abs(v - U[r]), abs(v2 - U[twin]))
    if update:
        U[r] = v
        U[twin] = v2
    return d


# inline="always" on the helpers of the sweeps: compiled as calls they made a sweep 3
# to 8 times slower (measured on Ur 4's unit (4,4))
@njit(cache=True, inline="always")
def _sweep_chunk(U, lower, probs, counts, starts, entries, c0, c, update, policy, record,
                 frozen, f0):
    """Chunk c of a full sweep, in order; the largest change (or residual)."""
    n_t = len(probs)
    n_pairs = counts.shape[0]
    pos = starts[c] - starts[c0]
    most = 0.0
    for k in range(c * CHUNK, min((c + 1) * CHUNK, n_pairs)):
        x, q, pos = _throw_values(U, lower, probs, counts, k, 0, entries, pos, policy,
                                  record, frozen, f0)
        x2, q2, pos = _throw_values(U, lower, probs, counts, k, n_t, entries, pos, policy,
                                    record, frozen, f0)
        most = max(most, _pair_update(U, 2 * k, x, q, x2, q2, update))
    return most


@njit(parallel=True, cache=True)
def _freeze(U, f0, size, buffer):
    """The wave's slots as they are before it, in the first `size` places of buffer."""
    frozen = buffer[:size]
    for i in prange(size):
        frozen[i] = U[f0 + i]
    return frozen


def frozen_buffer(waves, n_pairs) -> np.ndarray:
    """Room for the largest wave's slots (see _freeze), allocated once per unit."""
    chunks = np.diff(waves).max(initial=1)
    return np.empty(min(2 * chunks * CHUNK, 2 * n_pairs))


@njit(parallel=True, cache=True, nogil=True)
def sweep(U, lower, probs, counts, starts, entries, c0, c1, update, policy, record, waves,
          buffer):
    """One in-place Gauss-Seidel sweep, wave by wave, over the pairs of chunks
    c0 .. c1 - 1 and all their moves (`entries` holds those chunks' entries) with
    update=True, returning the largest change; or (update=False) the largest Bellman
    residual |T(U) - U|. With `record`, each throw's best move is kept in `policy`
    for the cheap sweeps. A unit whose moves are read from a file sweeps its chunks
    block by block, in order, and a wave may run on into the next block: its slots
    are frozen (in `buffer`) where it starts, and that copy serves its later blocks."""
    n_pairs = counts.shape[0]
    worst = np.zeros(c1 - c0)
    for w in range(len(waves) - 1):
        a, b = max(waves[w], c0), min(waves[w + 1], c1)
        if b <= a:   # not in these chunks
            continue
        if waves[w + 1] - waves[w] == 1:   # one chunk: nothing to freeze, no thread to start
            worst[a - c0] = _sweep_chunk(U, lower, probs, counts, starts, entries, c0, a,
                                         update, policy, record, buffer[:0], 0)
            continue
        f0, size = _wave_slots(waves, w, n_pairs)
        if not update:   # nothing changes: the wave's slots before it are U's
            frozen, f0 = U, 0
        elif waves[w] >= c0:
            frozen = _freeze(U, f0, size, buffer)
        else:   # begun in an earlier block and frozen there
            frozen = buffer[:size]
        for c in prange(a, b):
            worst[c - c0] = _sweep_chunk(U, lower, probs, counts, starts, entries, c0, c,
                                         update, policy, record, frozen, f0)
    return worst.max()


@njit(cache=True, inline="always")
def _policy_chunk(U, lower, probs, policy, c, frozen, f0):
    """Chunk c of a cheap sweep, in order; the largest change."""
    n_t = len(probs)
    n_pairs = policy.shape[0]
    most = 0.0
    for k in range(c * CHUNK, min((c + 1) * CHUNK, n_pairs)):
        a = q = a2 = q2 = 0.0
        for t in range(n_t):
            e = policy[k, t]
            if e == FORFEIT:
                q += probs[t]
            else:
                a += probs[t] * _entry_value(U, lower, e, frozen, f0)
            e = policy[k, n_t + t]
            if e == FORFEIT:
                q2 += probs[t]
            else:
                a2 += probs[t] * _entry_value(U, lower, e, frozen, f0)
        most = max(most, _pair_update(U, 2 * k, a, q, a2, q2, True))
    return most


@njit(parallel=True, cache=True)
def policy_sweep(U, lower, probs, policy, waves, buffer):
    """A cheap in-place sweep, wave by wave as `sweep` goes, that re-evaluates only
    the recorded best moves (modified policy iteration); returns the largest change."""
    n_pairs = policy.shape[0]
    n_chunks = (n_pairs + CHUNK - 1) // CHUNK
    worst = np.zeros(n_chunks)
    for w in range(len(waves) - 1):
        a, b = waves[w], waves[w + 1]
        if b - a == 1:
            worst[a] = _policy_chunk(U, lower, probs, policy, a, buffer[:0], 0)
            continue
        f0, size = _wave_slots(waves, w, n_pairs)
        frozen = _freeze(U, f0, size, buffer)
        for c in prange(a, b):
            worst[c] = _policy_chunk(U, lower, probs, policy, c, frozen, f0)
    return worst.max()
