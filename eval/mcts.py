"""Monte Carlo tree search over decision and chance nodes, for every game of the
contract: the player `mcts:SIMS[xL][/Tms][:LEAF]` (eval/players.py; L: leaves
valued in one call, Tms: a time limit).

The tree alternates two kinds of node:
  decision node  a position and a throw: the mover picks one of the legal moves (a
                 throw with none is one move that passes the turn, as in eval.search);
                 each move is an edge with its visits
  chance node    the position after a move, seen by whoever throws next: one child
                 decision node per throw
A move that wins ends its edge: its worth is 1. Values are winning chances; a value
carried across an edge becomes the mover's worth by the contract's `worth` (1 - v
when the turn passes, v when the mover throws again), so no game needs its own code.

Leaves, by the spec's LEAF:
  playout   (the default) UCT: a simulation adds one chance node and scores it by one
            random game played to its end; an edge's value is the mean worth of the
            simulations through it; unvisited moves are tried first, then the move
            maximising Q + C_UCT sqrt(ln N / n). A chance node's throw is the one
            whose visits lag its probability most (argmax p_t (N + 1) - n_t), so
            throws are visited in proportion to their chances, not sampled. The move
            played is the root's most visited.
  heuristic, or a network (a path to an .onnx model), either with +K: each position's
            value mixed half and half with the mean of K random playouts from it (as
            AlphaGo mixed its value network with rollouts)
            Expectimax over the tree grown so far, grown by PUCT: a simulation adds
            one decision node and values all its moves at once by the leaf (one
            batched call), with priors P = softmax(worth / PRIOR_TEMPERATURE). Values
            are not averaged over simulations: a decision node is worth its best
            move, a chance node the leaf's value of its position until all its throws
            are searched (each throw once before any twice), then the expectation over
            its throws; with exact leaf values the search is exact at every size.
            Every root move is first searched one throw deep over every throw (so the
            search is never worse informed than one throw of expectimax, eval.search);
            then selection maximises Q + C_PUCT P sqrt(N) / (1 + n). The move played
            is the root's best by value.

Many decisions are searched together, one tree each, in lockstep: with a leaf, each
simulation step selects a leaf in every tree (compiled, on all cores), values all
the leaves in one call, and backs them up, so a network sees large batches; with
playouts, every simulation is compiled end to end.

Visits are counted as a simulation goes down, before its leaf is valued. So a step
can select several leaves of one tree (`leaves`, the spec's xL) before one call
values them all: each later walk sees the visits of those before it (a virtual
visit) and turns elsewhere; a walk that reaches a decision node another walk of the
step is valuing stops there, a simulation spent. One tree (a move in play) then pays
a network call's fixed cost once for L leaves instead of once for each.
"""
import time

import numpy as np
from numba import njit, prange

from tabula.games.game import OVER, worth
from tabula.games.loop import advance
from tabula.infra.rng import below, cumulative, draw_throw, stream_key

C_UCT = 1.0               # exploration of UCT (values are winning chances, in 0..1)
C_PUCT = 1.0              # exploration of PUCT
PRIOR_TEMPERATURE = 0.05  # of the softmax that turns the leaf's worths into priors
MAX_DEPTH = 64            # decision nodes on a path; deeper, the chance node is a leaf
MAX_PLAYOUT = 5000        # plies of a random playout before it is called a draw (0.5)
TREE_BYTES = 256 << 20    # memory of the trees searched at once, at most
PLAYOUT_CHUNK = 64        # playout simulations between looks at the clock (a time limit)
PLAYOUT_MIX = 0.5         # a valuing leaf's share of a value mixed with playouts (LEAF+K)

SINGLE, TERMINAL, PRIOR, COLLIDED = 0, 1, 2, 3   # what a simulation's leaf is: a chance
    # node, a win, a decision node (valued with all its moves), or nothing (a node that
    # another walk of the step is valuing)
VALUING = -1.0   # d_visits of a decision node whose leaf values are on their way

# `tree`: the arrays of a batch of trees (first index: the tree; _search_trees makes
# them). Chance nodes: c_code (the position), c_n (visits), c_tn (visits of each
# throw), c_child (the decision node under each throw, -1: not yet), c_init (the leaf's
# value of the position), c_v (its current value; both with a valuing leaf), n_chance
# (nodes in use). Decision nodes: d_count, d_next, d_info (the moves), d_child (each
# move's chance node), d_n (each move's visits), d_w (its worth: summed over the
# simulations with playouts, the leaf's with a valuing leaf), d_p (its prior),
# d_visits (the node's visits), n_decision (nodes in use).
# `walk`: the simulations of a step, `leaves` a tree (walk w of tree w // leaves): path
# (rows: decision node, move, the chance node above and its throw), depth, kind of leaf,
# leaf (its nodes), pending (the codes it needs valued), pending_count, values (theirs).


@njit(cache=True)
def _edge_value(i, d, j, tree, valued):
    """The mover's worth of move j of decision node d: with a valuing leaf, the worth
    of its chance node's current value (the leaf's worth before it has one); with
    playouts, the mean worth of the simulations through it."""
    (c_code, c_n, c_tn, c_child, c_init, c_v, n_chance, d_count, d_next, d_info, d_child,
     d_n, d_w, d_p, d_visits, n_decision) = tree
    if not valued:
        return d_w[i, d, j] / d_n[i, d, j]
    c = d_child[i, d, j]
    return d_w[i, d, j] if c < 0 else worth(d_info[i, d, j], c_v[i, c])


@njit(cache=True)
def _pick_move(i, d, tree, valued):
    """The edge a simulation follows from decision node d."""
    (c_code, c_n, c_tn, c_child, c_init, c_v, n_chance, d_count, d_next, d_info, d_child,
     d_n, d_w, d_p, d_visits, n_decision) = tree
    best, best_score = 0, -np.inf
    for j in range(d_count[i, d]):
        n = d_n[i, d, j]
        if valued:
            score = (_edge_value(i, d, j, tree, True)
                     + C_PUCT * d_p[i, d, j] * np.sqrt(d_visits[i, d]) / (1.0 + n))
        elif n == 0:
            return j
        else:
            score = _edge_value(i, d, j, tree, False) + C_UCT * np.sqrt(
                np.log(d_visits[i, d]) / n)
        if score > best_score:
            best, best_score = j, score
    return best


@njit(cache=True)
def _widen_root(i, tree):
    """The first root move whose throws are not all searched yet (-1: none)."""
    (c_code, c_n, c_tn, c_child, c_init, c_v, n_chance, d_count, d_next, d_info, d_child,
     d_n, d_w, d_p, d_visits, n_decision) = tree
    for j in range(d_count[i, 0]):
        if d_info[i, 0, j] & OVER:
            continue
        c = d_child[i, 0, j]
        if c < 0 or (c_child[i, c] < 0).any():
            return j
    return -1


@njit(cache=True)
def _pick_throw(i, c, probs, tree, widen):
    """The throw whose visits lag its probability most (widen: first each throw not
    searched yet, so that a chance node soon has its expectation)."""
    (c_code, c_n, c_tn, c_child, c_init, c_v, n_chance, d_count, d_next, d_info, d_child,
     d_n, d_w, d_p, d_visits, n_decision) = tree
    if widen:
        for t in range(len(probs)):
            if c_child[i, c, t] < 0:
                return t
    best, best_score = 0, -np.inf
    for t in range(len(probs)):
        score = probs[t] * (c_n[i, c] + 1.0) - c_tn[i, c, t]
        if score > best_score:
            best, best_score = t, score
    return best


@njit(cache=True)
def _select(i, w, moves, mirror, throws, probs, valued, tree, walk):
    """Walk w, a leaf of tree i: the path to it (rows of path: decision node, move, the
    chance node above the decision node and its throw, -1 at the root), its visits
    counted, and the codes it needs valued."""
    (c_code, c_n, c_tn, c_child, c_init, c_v, n_chance, d_count, d_next, d_info, d_child,
     d_n, d_w, d_p, d_visits, n_decision) = tree
    path, depth, kind, leaf, pending, pending_count, values = walk
    d, above, thrown, k = 0, -1, -1, 0
    pending_count[w] = 0
    while True:
        if valued and d_visits[i, d] <= 0:   # a decision node not yet valued
            if d_visits[i, d] == VALUING:
                kind[w] = COLLIDED
                break
            kind[w] = PRIOR
            d_visits[i, d] = VALUING
            leaf[w, 0], leaf[w, 1], leaf[w, 2] = d, above, thrown
            pending_count[w] = d_count[i, d]
            for j in range(d_count[i, d]):
                pending[w, j] = d_next[i, d, j]
            if above >= 0:
                c_n[i, above] += 1.0
                c_tn[i, above, thrown] += 1.0
            break
        j = _widen_root(i, tree) if valued and d == 0 else -1
        if j < 0:
            j = _pick_move(i, d, tree, valued)
        path[w, k, 0], path[w, k, 1], path[w, k, 2], path[w, k, 3] = d, j, above, thrown
        k += 1
        d_n[i, d, j] += 1.0
        d_visits[i, d] += 1.0
        if above >= 0:
            c_n[i, above] += 1.0
            c_tn[i, above, thrown] += 1.0
        if d_info[i, d, j] & OVER:
            kind[w] = TERMINAL
            break
        c = d_child[i, d, j]
        new = c < 0
        if new:
            c = n_chance[i]
            n_chance[i] += 1
            c_code[i, c] = d_next[i, d, j]
            d_child[i, d, j] = c
            if valued:   # the leaf's value of the position, until its throws are searched
                c_init[i, c] = c_v[i, c] = worth(d_info[i, d, j], d_w[i, d, j])
        if (new and not valued) or k >= MAX_DEPTH:
            kind[w], leaf[w, 1], pending_count[w] = SINGLE, c, 1
            pending[w, 0] = c_code[i, c]
            c_n[i, c] += 1.0
            break
        t = _pick_throw(i, c, probs, tree, valued)
        d2 = c_child[i, c, t]
        if d2 < 0:
            d2 = n_decision[i]
            n_decision[i] += 1
            c_child[i, c, t] = d2
            count = moves(c_code[i, c], throws[t], d_next[i, d2], d_info[i, d2])
            if count == 0:   # no legal move: the same board passes to the other side
                d_next[i, d2, 0], d_info[i, d2, 0], count = mirror(c_code[i, c]), 0, 1
            d_count[i, d2] = count
        d, above, thrown = d2, c, t
    depth[w] = k


@njit(cache=True)
def _chance_value(i, c, probs, tree):
    """Chance node c's value for whoever throws there: the leaf's value of its position
    until every throw under it is searched, then the expectation over its throws of
    each one's decision node at its best move's worth."""
    (c_code, c_n, c_tn, c_child, c_init, c_v, n_chance, d_count, d_next, d_info, d_child,
     d_n, d_w, d_p, d_visits, n_decision) = tree
    if (c_child[i, c] < 0).any():
        return c_init[i, c]
    total = 0.0
    for t in range(len(probs)):
        d = c_child[i, c, t]
        best = -np.inf
        for j in range(d_count[i, d]):
            best = max(best, _edge_value(i, d, j, tree, True))
        total += probs[t] * best
    return total


@njit(cache=True)
def _backup(i, w, probs, valued, tree, walk):
    """Walk w's leaf carried up its path in tree i (values: the pending codes' values,
    for whoever throws next there): with playouts, the leaf's value summed into each
    edge's worth; with a valuing leaf, the new decision node's moves valued and each
    chance node on the path valued again from its children, deepest first."""
    (c_code, c_n, c_tn, c_child, c_init, c_v, n_chance, d_count, d_next, d_info, d_child,
     d_n, d_w, d_p, d_visits, n_decision) = tree
    path, depth, kind, leaf, pending, pending_count, values = walk
    if kind[w] == COLLIDED:
        return
    v = 0.0   # with playouts: the value, for whoever throws at the chance node below
    if kind[w] == SINGLE:
        v = values[w, 0]
        if valued:   # a path too deep: the leaf values the chance node itself
            c_init[i, leaf[w, 1]] = v
    elif kind[w] == PRIOR:
        d = leaf[w, 0]
        best, total = -np.inf, 0.0
        for j in range(d_count[i, d]):
            d_w[i, d, j] = worth(d_info[i, d, j], values[w, j])
            best = max(best, d_w[i, d, j])
        for j in range(d_count[i, d]):
            d_p[i, d, j] = np.exp((d_w[i, d, j] - best) / PRIOR_TEMPERATURE)
            total += d_p[i, d, j]
        for j in range(d_count[i, d]):
            d_p[i, d, j] /= total
        d_visits[i, d] = 1.0
    for k in range(depth[w] - 1, -1, -1):
        d, j = path[w, k, 0], path[w, k, 1]
        if valued:
            below = d_child[i, d, j]
            if below >= 0:
                c_v[i, below] = _chance_value(i, below, probs, tree)
        else:
            v = worth(d_info[i, d, j], v)   # 1 for a move that won
            d_w[i, d, j] += v


@njit(cache=True)
def playout(moves, mirror, throws, cum_probs, max_moves, code, key):
    """One random game from `code` to its end: 1.0 if whoever throws first there wins
    (0.5 after MAX_PLAYOUT plies)."""
    next_codes = np.full(max_moves, code)   # room for the moves, of the code's type
    infos = np.empty(max_moves, dtype=np.int64)
    mine = True   # whether the player to throw is the one the value is for
    for ply in range(MAX_PLAYOUT):
        throw = draw_throw(throws, cum_probs, key, 2 * ply)
        n = moves(code, throw, next_codes, infos)
        j = below(key, 2 * ply + 1, n) if n > 0 else 0
        code, passes, over = advance(mirror, code, n, next_codes, infos, j)
        if over:
            return 1.0 if mine else 0.0
        if passes:
            mine = not mine
    return 0.5


@njit(cache=True)
def _select_tree(i, moves, mirror, throws, probs, tree, walk, leaves, now):
    """The step's walks of tree i: `now` of its `leaves` (the others select nothing)."""
    for w in range(i * leaves, (i + 1) * leaves):
        if w < i * leaves + now:
            _select(i, w, moves, mirror, throws, probs, True, tree, walk)
        else:
            walk[2][w], walk[5][w] = COLLIDED, 0   # kind of leaf, pending_count


@njit(cache=True)
def _backup_tree(i, probs, tree, walk, leaves):
    for w in range(i * leaves, (i + 1) * leaves):
        _backup(i, w, probs, True, tree, walk)


@njit(parallel=True, cache=True)
def _select_all(moves, mirror, throws, probs, tree, walk, leaves, now):
    for i in prange(len(walk[2]) // leaves):   # walk[2]: the kind of leaf, one per walk
        _select_tree(i, moves, mirror, throws, probs, tree, walk, leaves, now)


@njit(parallel=True, cache=True)
def _backup_all(probs, tree, walk, leaves):
    for i in prange(len(walk[2]) // leaves):
        _backup_tree(i, probs, tree, walk, leaves)


# The same on the calling thread, for a few trees: a parallel region's threads wait
# for cores that the network's own threads may hold, which cost a single tree (a move
# of `tabula play`) up to 20 ms a step.
@njit(cache=True)
def _select_each(moves, mirror, throws, probs, tree, walk, leaves, now):
    for i in range(len(walk[2]) // leaves):
        _select_tree(i, moves, mirror, throws, probs, tree, walk, leaves, now)


@njit(cache=True)
def _backup_each(probs, tree, walk, leaves):
    for i in range(len(walk[2]) // leaves):
        _backup_tree(i, probs, tree, walk, leaves)


FEW_TREES = 8   # searched on the calling thread (above)


@njit(cache=True)
def _mix_walk(w, moves, mirror, throws, cum_probs, max_moves, walk, keys, leaves, step, k):
    """Walk w's pending values mixed with the mean of k random playouts from each code,
    keyed by its tree, the step, the walk and the slot (so a search replays)."""
    path, depth, kind, leaf, pending, pending_count, values = walk
    for j in range(pending_count[w]):
        total = 0.0
        for r in range(k):
            stream = ((step * leaves + w % leaves) * max_moves + j) * k + r
            total += playout(moves, mirror, throws, cum_probs, max_moves, pending[w, j],
                             stream_key(keys[w // leaves], stream))
        values[w, j] = PLAYOUT_MIX * values[w, j] + (1.0 - PLAYOUT_MIX) * total / k


@njit(parallel=True, cache=True)
def _mix_all(moves, mirror, throws, cum_probs, max_moves, walk, keys, leaves, step, k):
    for w in prange(len(walk[2])):
        _mix_walk(w, moves, mirror, throws, cum_probs, max_moves, walk, keys, leaves, step, k)


@njit(cache=True)
def _mix_each(moves, mirror, throws, cum_probs, max_moves, walk, keys, leaves, step, k):
    for w in range(len(walk[2])):
        _mix_walk(w, moves, mirror, throws, cum_probs, max_moves, walk, keys, leaves, step, k)


@njit(parallel=True, cache=True)
def _search_by_playouts(moves, mirror, throws, probs, cum_probs, max_moves, tree, walk, keys,
                        first, sims):
    """Simulations first..sims - 1 of every tree, with playout leaves: one compiled
    loop, no Python between simulations."""
    path, depth, kind, leaf, pending, pending_count, values = walk
    for i in prange(len(kind)):
        for sim in range(first, sims):
            _select(i, i, moves, mirror, throws, probs, False, tree, walk)
            if kind[i] == SINGLE:
                values[i, 0] = playout(moves, mirror, throws, cum_probs, max_moves,
                                       pending[i, 0], stream_key(keys[i], sim))
            _backup(i, i, probs, False, tree, walk)


@njit(cache=True)
def _root_values(tree, valued):
    """Each root move's value (a few per tree: no parallel region, see _select_each)."""
    (c_code, c_n, c_tn, c_child, c_init, c_v, n_chance, d_count, d_next, d_info, d_child,
     d_n, d_w, d_p, d_visits, n_decision) = tree
    n, m = d_n.shape[0], d_n.shape[2]
    out = np.zeros((n, m))
    for i in range(n):
        for j in range(d_count[i, 0]):
            if valued or d_n[i, 0, j] > 0:
                out[i, j] = _edge_value(i, 0, j, tree, valued)
    return out


def trees_at_once(game, sims: int, leaves: int = 1) -> int:
    """How many trees fit in TREE_BYTES."""
    per_node = game.max_moves * (8 * 6 + 4) + 8 * (4 + len(game.throws)) + 4 * len(game.throws)
    return max(1, TREE_BYTES // (per_node * (sims + leaves + 2)))


def search(game, counts, next_codes, infos, keys, sims: int, leaf=None,
           seconds: float | None = None, leaves: int = 1, playouts: int = 0):
    """Search each decision (decision form, eval.search) with `sims` simulations.
    keys: one uint64 random key per decision (its playouts). leaf: None for random
    playouts, else codes -> values for whoever throws next there. seconds: a time
    limit for the whole call, after which no simulation step starts (at least one
    runs); the search then depends on the machine's speed, and a game no longer
    replays exactly. leaves: with a valuing leaf, the walks of a tree in one step (one
    call of `leaf` values them all); playouts: K of LEAF+K (0: none). Returns the
    visits and the value (the mover's worth) of every root move, each (n, max_moves),
    zero beyond a row's count."""
    n = len(counts)
    visits, values = np.zeros((n, game.max_moves)), np.zeros((n, game.max_moves))
    step = trees_at_once(game, sims, leaves)
    deadline = None if seconds is None else time.monotonic() + seconds
    for s in range(0, n, step):
        part = slice(s, min(n, s + step))
        visits[part], values[part] = _search_trees(game, counts[part], next_codes[part],
                                                   infos[part], keys[part], sims, leaf,
                                                   deadline, leaves if leaf else 1, playouts)
    return visits, values


def _in_time(deadline) -> bool:
    return deadline is None or time.monotonic() < deadline


def _search_trees(game, counts, next_codes, infos, keys, sims, leaf, deadline, leaves,
                  playouts):
    n, m, nodes, throws = len(counts), game.max_moves, sims + leaves + 2, len(game.throws)
    d_count = np.zeros((n, nodes), dtype=np.int64)
    d_next = np.zeros((n, nodes, m), dtype=next_codes.dtype)
    d_info = np.zeros((n, nodes, m), dtype=np.int64)
    d_count[:, 0], d_next[:, 0], d_info[:, 0] = counts, next_codes, infos
    d_n = np.zeros((n, nodes, m))
    tree = (np.zeros((n, nodes), dtype=next_codes.dtype), np.zeros((n, nodes)),  # chance nodes
            np.zeros((n, nodes, throws)), np.full((n, nodes, throws), -1, dtype=np.int32),
            np.zeros((n, nodes)), np.zeros((n, nodes)), np.zeros(n, dtype=np.int64),
            d_count, d_next, d_info, np.full((n, nodes, m), -1, dtype=np.int32),  # decision
            d_n, np.zeros((n, nodes, m)), np.zeros((n, nodes, m)), np.zeros((n, nodes)),
            np.ones(n, dtype=np.int64))
    walks = n * leaves
    pending, pending_count, values = (np.zeros((walks, m), dtype=next_codes.dtype),
                                      np.zeros(walks, dtype=np.int64), np.zeros((walks, m)))
    kind = np.zeros(walks, dtype=np.int64)
    walk = (np.zeros((walks, MAX_DEPTH, 4), dtype=np.int64), np.zeros(walks, dtype=np.int64),
            kind, np.zeros((walks, 3), dtype=np.int64), pending, pending_count, values)
    probs = np.asarray(game.probs, dtype=np.float64)
    keys = np.asarray(keys, dtype=np.uint64)
    cum_probs = cumulative(probs)
    if leaf is None:
        chunk = sims if deadline is None else PLAYOUT_CHUNK
        for first in range(0, sims, chunk):
            _search_by_playouts(game.moves, game.mirror, game.throws, probs, cum_probs, m,
                                tree, walk, keys, first, min(sims, first + chunk))
            if not _in_time(deadline):
                break
    else:
        slots = np.arange(m)
        select, backup, mix = (_select_each, _backup_each, _mix_each) if n <= FEW_TREES \
            else (_select_all, _backup_all, _mix_all)
        for step, done in enumerate(range(0, sims, leaves)):
            select(game.moves, game.mirror, game.throws, probs, tree, walk, leaves,
                   min(leaves, sims - done))
            live = slots < pending_count[:, None]
            if live.any():
                values[live] = leaf(pending[live])
                if playouts:
                    mix(game.moves, game.mirror, game.throws, cum_probs, m, walk, keys,
                        leaves, step, playouts)
            backup(probs, tree, walk, leaves)
            if not _in_time(deadline):
                break
    return d_n[:, 0].copy(), _root_values(tree, leaf is not None)


def best_moves(counts, visits, values, by_value: bool) -> np.ndarray:
    """Each row's move to play among its legal ones: the best by value (a search with a
    valuing leaf), else the most visited (ties: the better value)."""
    legal = np.arange(visits.shape[1]) < np.asarray(counts)[:, None]
    score = values if by_value else visits + 1e-3 * values
    return np.argmax(np.where(legal, score, -np.inf), axis=1)
