"""Exact money tables of a game with contact, gammons and the cube (hypergammon): every
position's cubeless chances and its cubeful equities, by value iteration to a fixed
point certified by the Bellman residual.

Values of a position, for the player on roll, per unit of the cube's value:
  win, win_gammon, win_backgammon, lose_gammon, lose_backgammon
        cubeless chances (gammons and backgammons included in the wins and losses),
        checker play maximising the cubeless equity
        2 win - 1 + win_gammon + win_backgammon - lose_gammon - lose_backgammon
  centered, owned, unavailable, centered_jacoby
        cubeful equities when the player on roll does not double now (gnubg's "no
        double" equities): the cube centred, theirs, the opponent's, and centred under
        the Jacoby rule (a gammon counts single until the cube is turned); checker play
        maximises each.
After a move the opponent is on roll: with access to the cube they double when that
does not lower their equity, and the mover then passes or takes (solver/two_sided.py:
cube_equity). A roll without a legal move passes the same position to the opponent,
who may double as after any move. (GNU Backgammon's makehyper gives a blocked roll
the opponent's no-double equity of the same cube state instead: see
benchmarks/bench_hypergammon.py.)

Positions are numbered layer by layer (fewest checkers in play first), each layer by
the game's rank; the moves of every roll are tabled once (the resulting position's
number, or minus the size of a win), then swept in place (Gauss-Seidel, every fifth sweep
followed by a jump along its step: _extrapolate) until no value changes by more than a
tenth of the tolerance, and a last pass that changes nothing measures max |T(V) - V|,
the certified residual.
"""
import time

import numpy as np
from numba import njit, prange

from tabula.games.game import N_LAYER_IDS, OVER, layer_id
from tabula.infra.batch import per_code, unrank_many
from tabula.infra.progress import Progress

from .two_sided import cube_equity

BYTES_A_POSITION = 740   # a solve's peak memory a position (hypergammon 3: 5.46 GiB for
                         # 7,959,904 positions, docs/BENCHMARKS.md)

VALUES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon",
          "centered", "owned", "unavailable", "centered_jacoby")
CENTERED, OWNED, UNAVAILABLE, JACOBY = 5, 6, 7, 8
BEST_CUBELESS = 9    # better_move's room for the best cubeless equity of a roll
BEST_ROOM = 10
MAX_SWEEPS = 10_000
TIE = 1e-12          # cubeless equities closer than this are equal
EXTRAPOLATE_EVERY = 5    # sweeps between extrapolations (_extrapolate)
MAX_RHO = 0.99           # a decay above this is not extrapolated


def numbering(game):
    """(codes, offsets): every position of the game's solved layers in order (fewest
    checkers in play first), and each layer id's first number."""
    layers = sorted(game.solved_layers(), key=lambda ab: (ab[0] + ab[1], ab))
    offsets = np.full(N_LAYER_IDS, -1, dtype=np.int64)
    parts, first = [], 0
    for a, b in layers:
        offsets[layer_id(a, b)] = first
        size = game.layer_size(a, b)
        parts.append(unrank_many(game.unrank, np.full(size, layer_id(a, b)), np.arange(size)))
        first += size
    return np.concatenate(parts), offsets


@njit(cache=True)
def _number(layer_of, rank, offsets, code):
    """A position's number: its layer's first number and its rank in the layer."""
    return offsets[layer_of(code)] + rank(code)


@njit(parallel=True, cache=True)
def _table_chunk(moves, mirror, layer_of, rank, loss_size, pieces, codes, offsets, throws,
                 max_moves, over, counts, slots):
    """For each position of `codes` and each throw t: counts[i, t] moves, and in
    slots[i, t, :n] the number of each resulting position (the opponent on roll; a
    roll without a move passes the same position), or minus the size of the win it
    makes."""
    n_throws = len(throws)
    for i in prange(len(codes)):
        out_codes = np.empty(max_moves, dtype=np.int64)
        out_info = np.empty(max_moves, dtype=np.int64)
        for t in range(n_throws):
            n = moves(codes[i], throws[t], out_codes, out_info)
            if n == 0:
                out_codes[0] = mirror(codes[i])
                out_info[0] = 0
                n = 1
            counts[i, t] = n
            for j in range(n):
                after = out_codes[j]
                if out_info[j] & over:
                    slots[i, t, j] = -loss_size(after, pieces)
                else:
                    slots[i, t, j] = _number(layer_of, rank, offsets, after)


@njit(parallel=True, cache=True)
def _pack_chunk(counts, slots, firsts, targets):
    """Copy the chunk's moves to targets from firsts[i] on, roll after roll."""
    n_throws = counts.shape[1]
    for i in prange(len(counts)):
        s = firsts[i]
        for t in range(n_throws):
            targets[s:s + counts[i, t]] = slots[i, t, :counts[i, t]]
            s += counts[i, t]


@njit(cache=True)
def _numbers(layer_of, rank, offsets, codes):
    """Serial: a player asks for a few positions at a time, where waking threads costs
    far more than the ranks (a millisecond a call, measured in cube regret), and ten
    million take a fraction of a second."""
    out = np.empty(len(codes), dtype=np.int64)
    for n in range(len(codes)):
        out[n] = _number(layer_of, rank, offsets, codes[n])
    return out


def numbers_of(game, offsets, codes) -> np.ndarray:
    """The number of each position (see numbering)."""
    return _numbers(game.layer_of, game.rank, offsets, np.asarray(codes, dtype=np.int64))


def table_moves(game, codes, offsets, chunk: int = 1 << 16, per_roll: int = 6):
    """(firsts, counts, targets): the moves of codes[i] are targets[firsts[i]:
    firsts[i + 1]], counts[i, t] of them for throw t, roll after roll (see
    _table_chunk); generated once, a chunk of positions at a time, into room for
    `per_roll` moves a roll on average that grows when that is not enough (pages
    never written take no memory)."""
    n_throws = len(game.throws)
    firsts = np.zeros(len(codes) + 1, dtype=np.int64)
    counts = np.empty((len(codes), n_throws), dtype=np.uint8)
    targets = np.empty(len(codes) * n_throws * per_roll, dtype=np.int32)
    for first in range(0, len(codes), chunk):
        last = min(len(codes), first + chunk)
        slots = np.empty((last - first, n_throws, game.max_moves), dtype=np.int32)
        _table_chunk(game.moves, game.mirror, game.layer_of, game.rank, game.loss_size,
                     game.pieces, codes[first:last], offsets, game.throws, game.max_moves,
                     OVER, counts[first:last], slots)
        np.cumsum(counts[first:last].sum(axis=1), out=firsts[first + 1:last + 1])
        firsts[first + 1:last + 1] += firsts[first]
        if firsts[last] > len(targets):
            grown = np.empty(max(int(firsts[last]), 2 * len(targets)), dtype=np.int32)
            grown[:firsts[first]] = targets[:firsts[first]]
            targets = grown
        _pack_chunk(counts[first:last], slots, firsts[first:last], targets)
    return firsts, counts, targets[:firsts[-1]]


@njit(cache=True)
def better_cubeless(cubeless, win, best_cubeless, best_win):
    """Whether a move of cubeless equity `cubeless` and winning chance `win` beats the
    best so far: the cubeless perfect player's choice, the best cubeless equity and, of
    moves as good, the most wins (their chances differ where more wins cost as many
    more gammons lost)."""
    return cubeless > best_cubeless + TIE or (cubeless > best_cubeless - TIE
                                              and win > best_win)


@njit(cache=True)
def won_chances(size):
    """The mover's cubeless chances (win, win_gammon, win_backgammon, lose_gammon,
    lose_backgammon) after a move that wins `size` points a unit of cube."""
    return 1.0, 1.0 if size >= 2 else 0.0, 1.0 if size >= 3 else 0.0, 0.0, 0.0


@njit(cache=True)
def turned_chances(v):
    """The mover's cubeless chances after a move to a position whose values, for the
    opponent on roll there, are v: theirs turned round."""
    return 1.0 - v[0], v[3], v[4], v[1], v[2]


@njit(cache=True)
def move_chances(values, targets):
    """(len(targets), 5): the mover's cubeless chances after each move of table_moves'
    targets (a position's number, or minus the size of the win the move makes)."""
    out = np.empty((len(targets), 5))
    for s in range(len(targets)):
        k = targets[s]
        if k < 0:
            win, wg, wbg, lg, lbg = won_chances(-k)
        else:
            win, wg, wbg, lg, lbg = turned_chances(values[k])
        out[s, 0], out[s, 1], out[s, 2], out[s, 3], out[s, 4] = win, wg, wbg, lg, lbg
    return out


@njit(cache=True)
def cubeless_equity(win, wg, wbg, lg, lbg):
    return 2.0 * win - 1.0 + wg + wbg - lg - lbg


@njit(cache=True)
def won_values(size):
    """The mover's nine values after a move that wins `size` points a unit of cube (a
    gammon counts single under the Jacoby rule, the cube centred)."""
    return won_chances(size) + (float(size), float(size), float(size), 1.0)


@njit(cache=True)
def turned_values(v):
    """The mover's nine values after a move to a position whose values, for the
    opponent on roll there, are v: the chances turned round, and each cube state's
    equity after the opponent's cube action there (cube_equity), negated."""
    return turned_chances(v) + (-cube_equity(v[CENTERED], v[UNAVAILABLE]),
                                -v[UNAVAILABLE],
                                -cube_equity(v[OWNED], v[UNAVAILABLE]),
                                -cube_equity(v[JACOBY], v[UNAVAILABLE]))


@njit(cache=True)
def turned_equities(values):
    """(n, 3): turned_values' equities, cube centred, owned and unavailable for the
    mover, after moves to positions of `values` (n, 9; for the opponent on roll there)."""
    out = np.empty((len(values), 3))
    for i in range(len(values)):
        move = turned_values(values[i])
        out[i, 0], out[i, 1], out[i, 2] = move[CENTERED], move[OWNED], move[UNAVAILABLE]
    return out


@njit(cache=True)
def best_cubeless_move(layer_of, rank, loss_size, pieces, values, offsets, next_codes,
                       infos, n):
    """The cubeless perfect player, as solver/selfplay.py's games ask a chooser: the
    index of the best of the first n moves by the table's cubeless chances (`values`,
    nine a position, numbered by `offsets`), chosen as the solve chooses."""
    best_j, best_cubeless, best_win = 0, -np.inf, -1.0
    for j in range(n):
        after = next_codes[j]
        if infos[j] & OVER:
            win, wg, wbg, lg, lbg = won_chances(loss_size(after, pieces))
        else:
            win, wg, wbg, lg, lbg = turned_chances(values[offsets[layer_of(after)] +
                                                          rank(after)])
        cubeless = cubeless_equity(win, wg, wbg, lg, lbg)
        if better_cubeless(cubeless, win, best_cubeless, best_win):
            best_j, best_cubeless, best_win = j, max(cubeless, best_cubeless), win
    return best_j


@njit(cache=True)
def _backup(i, firsts, counts, targets, probs, values, out, best, passed):
    """out = the values of the position whose moves are row i of the table (firsts,
    counts, targets), from its successors' (the Bellman operator); best: room for
    one roll's best (BEST_ROOM: better_move).
    passed: -1, or the number of position i's mirror to read a blocked roll as
    makehyper does (each value of the opponent's same cube state, negated, with no
    double of theirs), for the comparison with it alone."""
    n_throws = len(probs)
    out[:] = 0.0
    end = firsts[i]
    for t in range(n_throws):
        begin, end = end, end + counts[i, t]
        best[:] = -np.inf
        for s in range(begin, end):
            k = targets[s]
            if k < 0:                        # the move wins: -k points a unit of cube
                move = won_values(-k)
            elif k == passed:
                v = values[k]
                move = turned_chances(v) + (-v[CENTERED], -v[OWNED], -v[UNAVAILABLE],
                                            -v[JACOBY])
            else:                            # the opponent is on roll in position k
                move = turned_values(values[k])
            better_move(move, best)
        for q in range(9):
            out[q] += probs[t] * best[q]


@njit(cache=True)
def better_move(move, best):
    """Fold one move's nine values (a tuple) into the best of a roll so far (BEST_ROOM
    values, all -inf before the first move): the chances of the cubeless perfect
    player's choice (better_cubeless), each cube state's best equity, which checker
    play maximises apart, and the best cubeless equity. Whether the move is the
    cubeless choice so far. (A move's values in an array, written and read back for
    every move, made the solve's sweeps 4.6 times as long: docs/BENCHMARKS.md.)"""
    cubeless = cubeless_equity(move[0], move[1], move[2], move[3], move[4])
    chosen = better_cubeless(cubeless, move[0], best[BEST_CUBELESS], best[0])
    if chosen:
        best[0], best[1], best[2], best[3], best[4] = move[0], move[1], move[2], move[3], move[4]
        best[BEST_CUBELESS] = max(cubeless, best[BEST_CUBELESS])
    best[CENTERED] = max(best[CENTERED], move[CENTERED])
    best[OWNED] = max(best[OWNED], move[OWNED])
    best[UNAVAILABLE] = max(best[UNAVAILABLE], move[UNAVAILABLE])
    best[JACOBY] = max(best[JACOBY], move[JACOBY])
    return chosen


@njit(parallel=True, cache=True)
def _sweep(order, firsts, counts, targets, probs, values, write, mirrors):
    """One pass over all positions, order[j] the position of row j of the moves: the
    largest change of any value; the new values written in place when `write` (else
    the residual is only measured). mirrors: each position's mirror's number to read
    blocked rolls as makehyper does, or empty."""
    n = len(order)
    chunk = 4096
    n_chunks = (n + chunk - 1) // chunk
    changes = np.zeros(n_chunks)
    for c in prange(n_chunks):
        out = np.empty(9)
        best = np.empty(BEST_ROOM)
        largest = 0.0
        for j in range(c * chunk, min(n, (c + 1) * chunk)):
            i = order[j]
            _backup(j, firsts, counts, targets, probs, values, out, best,
                    mirrors[i] if len(mirrors) else -1)
            for q in range(9):
                largest = max(largest, abs(out[q] - values[i, q]))
            if write:
                values[i, :] = out
        changes[c] = largest
    return changes.max()


def _extrapolate(values, previous, changes):
    """Jump towards the fixed point along the last sweep's step: where one slow mode is
    left, each sweep shrinks the error by about rho (the decay of the largest change),
    and the rest of the way is the step times rho / (1 - rho). The sweeps after it, and
    the certified residual, stand whatever the jump does."""
    rho = (changes[-1] / changes[-3]) ** 0.5
    if 0 < rho < MAX_RHO:
        values += (values - previous) * (rho / (1 - rho))


def check_size(game):
    """A SolveError, before any work, where the table would not fit in this machine's
    memory (every position and its tabled moves are held at once)."""
    from tabula.solver.layered import check_memory
    positions = sum(game.layer_size(a, b) for a, b in game.solved_layers())
    check_memory(game, positions, positions * BYTES_A_POSITION)


def solve_values(game, tol: float = 1e-9, quiet: bool = False,
                 blocked_as_makehyper: bool = False):
    """(codes, offsets, values, figures): every position's VALUES (see the top) to a
    certified residual of at most `tol`. blocked_as_makehyper: read a roll without a
    legal move as GNU Backgammon's makehyper does (benchmarks/bench_hypergammon.py
    compares the two), not by the rules."""
    started = time.perf_counter()
    check_size(game)
    codes, offsets = numbering(game)
    mirrors = numbers_of(game, offsets, per_code(game.mirror, codes))
    # positions with the same opponent side one after the other: their moves lead into
    # one block of positions (the rank orders a layer by the mover's side first), so
    # the values a sweep reads stay in the cache
    order = np.argsort(mirrors, kind="stable")
    firsts, counts, targets = table_moves(game, codes[order], offsets)
    tabled = time.perf_counter()
    if not blocked_as_makehyper:
        mirrors = np.empty(0, dtype=np.int64)
    values = np.zeros((len(codes), len(VALUES)))
    sweeps, changes = 0, []
    previous = np.empty_like(values)
    progress = Progress("solve", None, "sweeps", quiet=quiet)
    while True:
        previous[:] = values
        changes.append(_sweep(order, firsts, counts, targets, game.probs, values, True,
                              mirrors))
        sweeps += 1
        progress.update(sweeps, note=f"change {changes[-1]:.1e}")
        if changes[-1] <= tol / 10 or sweeps >= MAX_SWEEPS:
            break
        if sweeps % EXTRAPOLATE_EVERY == 0:
            _extrapolate(values, previous, changes)
    progress.done()
    residual = _sweep(order, firsts, counts, targets, game.probs, values, False, mirrors)
    figures = {"positions": len(codes), "moves": int(len(targets)), "sweeps": sweeps,
               "residual": float(residual), "table_seconds": tabled - started,
               "sweep_seconds": time.perf_counter() - tabled}
    return codes, offsets, values, figures


def codes_of(game, offsets, numbers) -> np.ndarray:
    """The positions numbered `numbers` (see numbering)."""
    firsts = sorted((int(offsets[layer_id(a, b)]), layer_id(a, b))
                    for a, b in game.solved_layers())
    starts = np.array([first for first, _ in firsts])
    out = np.empty(len(numbers), dtype=np.int64)
    for n, number in enumerate(numbers):
        k = int(np.searchsorted(starts, number, side="right")) - 1
        out[n] = game.unrank(firsts[k][1], int(number) - firsts[k][0])
    return out


def spot_residual(game, offsets, values, numbers) -> float:
    """max |T(V) - V| over the positions numbered `numbers` of a solved table."""
    codes = codes_of(game, offsets, numbers)
    firsts, counts, targets = table_moves(game, codes, offsets)
    out, best = np.empty(len(VALUES)), np.empty(BEST_ROOM)
    worst = 0.0
    for j, number in enumerate(numbers):
        _backup(j, firsts, counts, targets, game.probs, values, out, best, -1)
        worst = max(worst, float(np.abs(out - values[number]).max()))
    return worst
