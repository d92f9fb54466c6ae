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
counts[k, t] is the number of entries of throw t for the representative of pair
k, counts[k, T + t] the same for its mirror; 0 means the throw is forfeited.
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
    for r in range(len(is_rep)):
        if is_rep[r]:
            slot = bucket[top - key[r]]
            bucket[top - key[r]] += 1
            reps[slot] = r
            partners[slot] = partner[r]
            rep_codes[slot] = codes[r]
    return reps, partners, rep_codes


@njit(cache=True)
def fill_slots(reps, partners, slot_of):
    """slot_of[unit index] = place in the sweep-ordered array U. A position that is
    its own mirror has two slots that the pair update keeps equal; it maps to the second."""
    for k in range(len(reps)):
        slot_of[reps[k]] = 2 * k
        slot_of[partners[k]] = 2 * k + 1


@njit(cache=True)
def encode_move(layer_of, rank, L, M, n_l, slot_of, lower_offset, next_code, info):
    """The entry of a move (see the module docstring)."""
    if info & OVER:
        return WIN
    again = 1 if info & AGAIN else 0
    layer = layer_of(next_code)
    r = rank(next_code)
    if layer == L:
        return (slot_of[r] << 2) | again
    if layer == M:
        return (slot_of[n_l + r] << 2) | again
    return ((lower_offset[layer] + r) << 2) | 2 | again


@njit(parallel=True, cache=True)
def fill_chunks(moves, mirror, layer_of, rank, throws, max_moves, L, M, n_l, rep_codes,
                slot_of, lower_offset, c0, c1, counts):
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
                                                   lower_offset, out_codes[i], out_info[i])
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


@njit(cache=True)
def _entry_value(U, lower, e):
    if e == WIN:
        return worth(OVER, 0.0)
    i = e >> 2
    v = U[i] if e & 2 == 0 else np.float64(lower[i])
    return worth(AGAIN if e & 1 else 0, v)


@njit(cache=True)
def _throw_values(U, lower, probs, counts, k, first, entries, pos, policy, record):
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
            v = _entry_value(U, lower, e)
            if v > best:
                best = v
                best_entry = e
        if record:
            policy[k, first + t] = best_entry
        total += probs[t] * best
    return total, forfeit, pos


@njit(cache=True)
def _pair_update(U, r, a, q, a2, q2, update):
    """New values of a pair (or, without update, T(U) for both), and the larger change.
    V = a + q (1 - V'), V' = a2 + q2 (1 - V): the forfeits solved exactly."""
    twin = r + 1
    if update:
        denominator = 1.0 - q * q2
        v = (a + q * (1.0 - a2 - q2)) / denominator if denominator > 0.0 else 0.0
        v2 = a2 + q2 * (1.0 - v)
    else:
        v = a + q * (1.0 - U[twin])
        v2 = a2 + q2 * (1.0 - U[r])
    d = max(abs(v - U[r]), abs(v2 - U[twin]))
    if update:
        U[r] = v
        U[twin] = v2
    return d


@njit(parallel=True, cache=True, nogil=True)
def sweep(U, lower, probs, counts, starts, entries, c0, c1, update, policy, record):
    """One in-place Gauss-Seidel sweep over the pairs of chunks c0 .. c1 - 1 and
    all their moves (`entries` holds those chunks' entries) with update=True,
    returning the largest change; or (update=False) the largest Bellman residual
    |T(U) - U|. With `record`, each throw's best move is kept in `policy` for the
    cheap sweeps."""
    n_t = len(probs)
    worst = np.zeros(c1 - c0)
    for c in prange(c0, c1):
        pos = starts[c] - starts[c0]
        w = 0.0
        for k in range(c * CHUNK, min((c + 1) * CHUNK, counts.shape[0])):
            a, q, pos = _throw_values(U, lower, probs, counts, k, 0, entries, pos,
                                      policy, record)
            a2, q2, pos = _throw_values(U, lower, probs, counts, k, n_t, entries, pos,
                                        policy, record)
            w = max(w, _pair_update(U, 2 * k, a, q, a2, q2, update))
        worst[c - c0] = w
    return worst.max()


@njit(parallel=True, cache=True)
def policy_sweep(U, lower, probs, policy):
    """A cheap in-place sweep that re-evaluates only the recorded best moves
    (modified policy iteration); returns the largest change."""
    n_t = len(probs)
    n_chunks = (policy.shape[0] + CHUNK - 1) // CHUNK
    worst = np.zeros(n_chunks)
    for c in prange(n_chunks):
        w = 0.0
        for k in range(c * CHUNK, min((c + 1) * CHUNK, policy.shape[0])):
            a = q = a2 = q2 = 0.0
            for t in range(n_t):
                e = policy[k, t]
                if e == FORFEIT:
                    q += probs[t]
                else:
                    a += probs[t] * _entry_value(U, lower, e)
                e = policy[k, n_t + t]
                if e == FORFEIT:
                    q2 += probs[t]
                else:
                    a2 += probs[t] * _entry_value(U, lower, e)
            w = max(w, _pair_update(U, 2 * k, a, q, a2, q2, True))
        worst[c] = w
    return worst.max()
