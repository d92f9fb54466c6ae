"""Monte Carlo tree search over decision and chance nodes, for every game of the
contract: the player `mcts:SIMS[:LEAF]` (eval/players.py).

The tree alternates two kinds of node:
  decision node  a position and a throw: the mover picks one of the legal moves (a
                 throw with none is one move that passes the turn, as in eval.search);
                 each move is an edge with its visits and the mover's summed worth
  chance node    the position after a move, seen by whoever throws next: one child
                 decision node per throw
A move that wins ends its edge: its worth is 1. Values are winning chances; a value
backed up across an edge becomes the mover's worth by the contract's `worth` (1 - v
when the turn passes, v when the mover throws again), so no game needs its own code.

A chance node is not sampled: each simulation takes the throw whose visits lag its
probability most (argmax p_t (N + 1) - n_t), so a node's throws are visited in
proportion to their chances and the search is deterministic given its playouts.

Leaves, by the spec's LEAF:
  playout   (the default) UCT: a simulation adds one chance node and scores it by one
            random game played to its end; unvisited moves are tried first, then
            the move maximising Q + C_UCT sqrt(ln N / n)
  heuristic, or a network (a path to an .onnx model)
            PUCT: a simulation adds one decision node and scores all its moves at
            once by the leaf (one batched call); each move starts with that worth as
            one visit, and a prior P = softmax(worth / PRIOR_TEMPERATURE); the node's
            value is its best move's worth; selection maximises
            Q + C_PUCT P sqrt(N) / (1 + n)
The move played is the root's most visited (ties: the better Q).

Many decisions are searched together, one tree each, in lockstep: each simulation
step selects a leaf in every tree (compiled, on all cores), evaluates all the leaves
in one call, and backs them up, so a network sees large batches.
"""
import numpy as np
from numba import njit, prange

from tabula.games.game import AGAIN, OVER, worth
from tabula.infra.rng import below, cumulative, draw_throw, stream_key

C_UCT = 1.0               # exploration of UCT (values are winning chances, in 0..1)
C_PUCT = 1.0              # exploration of PUCT
PRIOR_TEMPERATURE = 0.05  # of the softmax that turns the leaf's worths into priors
MAX_DEPTH = 64            # decision nodes on a path; deeper, the chance node is a leaf
MAX_PLAYOUT = 5000        # plies of a random playout before it is called a draw (0.5)
TREE_BYTES = 256 << 20    # memory of the trees searched at once, at most

SINGLE, TERMINAL, PRIOR = 0, 1, 2   # what a simulation's leaf is


@njit(cache=True)
def _pick_move(d_count, d_n, d_w, d_p, d_visits, prior_mode):
    """The edge a simulation follows from one decision node."""
    best, best_score = 0, -np.inf
    total = d_visits
    for j in range(d_count):
        n = d_n[j]
        if prior_mode:
            score = d_w[j] / n + C_PUCT * d_p[j] * np.sqrt(total) / (1.0 + n)
        elif n == 0:
            return j
        else:
            score = d_w[j] / n + C_UCT * np.sqrt(np.log(total) / n)
        if score > best_score:
            best, best_score = j, score
    return best


@njit(cache=True)
def _pick_throw(probs, throw_visits, visits):
    """The throw whose visits lag its probability most."""
    best, best_score = 0, -np.inf
    for t in range(len(probs)):
        score = probs[t] * (visits + 1.0) - throw_visits[t]
        if score > best_score:
            best, best_score = t, score
    return best


@njit(cache=True)
def _select(i, moves, mirror, throws, probs, prior_mode, tree, walk):
    """One leaf of tree i: the path to it (rows of path: decision node, move, the
    chance node above the decision node and its throw, -1 at the root), and the codes
    it needs valued."""
    (c_code, c_n, c_tn, c_child, n_chance, d_count, d_next, d_info, d_child, d_n, d_w, d_p,
     d_visits, n_decision) = tree
    path, depth, kind, leaf, pending, pending_count, values = walk
    d, above, thrown, k = 0, -1, -1, 0
    while True:
        if prior_mode and d_visits[i, d] == 0:   # a decision node not yet valued
            kind[i] = PRIOR
            leaf[i, 0], leaf[i, 1], leaf[i, 2] = d, above, thrown
            pending_count[i] = d_count[i, d]
            for j in range(d_count[i, d]):
                pending[i, j] = d_next[i, d, j]
            break
        j = _pick_move(d_count[i, d], d_n[i, d], d_w[i, d], d_p[i, d],
                       d_visits[i, d], prior_mode)
        path[i, k, 0], path[i, k, 1], path[i, k, 2], path[i, k, 3] = d, j, above, thrown
        k += 1
        if d_info[i, d, j] & OVER:
            kind[i] = TERMINAL
            break
        c = d_child[i, d, j]
        new = c < 0
        if new:
            c = n_chance[i]
            n_chance[i] += 1
            c_code[i, c] = d_next[i, d, j]
            d_child[i, d, j] = c
        if (new and not prior_mode) or k >= MAX_DEPTH:
            kind[i], leaf[i, 1], pending_count[i] = SINGLE, c, 1
            pending[i, 0] = c_code[i, c]
            break
        t = _pick_throw(probs, c_tn[i, c], c_n[i, c])
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
    depth[i] = k


@njit(cache=True)
def _backup(i, tree, walk):
    """Tree i's leaf value carried up its path (values: the pending codes' values, for
    whoever throws next there)."""
    (c_code, c_n, c_tn, c_child, n_chance, d_count, d_next, d_info, d_child, d_n, d_w, d_p,
     d_visits, n_decision) = tree
    path, depth, kind, leaf, pending, pending_count, values = walk
    v = 0.0   # the value, for whoever throws at the chance node below the edge
    if kind[i] == SINGLE:
        v = values[i, 0]
        c_n[i, leaf[i, 1]] += 1.0
    elif kind[i] == PRIOR:
        d, c, t = leaf[i, 0], leaf[i, 1], leaf[i, 2]
        count = d_count[i, d]
        best, total = -np.inf, 0.0
        for j in range(count):
            w = worth(d_info[i, d, j], values[i, j])
            d_n[i, d, j], d_w[i, d, j] = 1.0, w
            best = max(best, w)
        for j in range(count):
            d_p[i, d, j] = np.exp((d_w[i, d, j] - best) / PRIOR_TEMPERATURE)
            total += d_p[i, d, j]
        for j in range(count):
            d_p[i, d, j] /= total
        d_visits[i, d] = count
        v = best
        if c >= 0:
            c_n[i, c] += 1.0
            c_tn[i, c, t] += 1.0
    for k in range(depth[i] - 1, -1, -1):
        d, j, c, t = path[i, k, 0], path[i, k, 1], path[i, k, 2], path[i, k, 3]
        w = worth(d_info[i, d, j], v)   # 1 for a move that won
        d_n[i, d, j] += 1.0
        d_w[i, d, j] += w
        d_visits[i, d] += 1.0
        if c >= 0:
            c_n[i, c] += 1.0
            c_tn[i, c, t] += 1.0
        v = w


@njit(cache=True)
def playout(moves, mirror, throws, cum_probs, max_moves, code, key):
    """One random game from `code` to its end: 1.0 if whoever throws first there wins
    (0.5 after MAX_PLAYOUT plies)."""
    next_codes = np.empty(max_moves, dtype=np.int64)
    infos = np.empty(max_moves, dtype=np.int64)
    mine = True   # whether the player to throw is the one the value is for
    for ply in range(MAX_PLAYOUT):
        throw = draw_throw(throws, cum_probs, key, 2 * ply)
        n = moves(code, throw, next_codes, infos)
        if n == 0:
            code, mine = mirror(code), not mine
            continue
        j = below(key, 2 * ply + 1, n)
        if infos[j] & OVER:
            return 1.0 if mine else 0.0
        code = next_codes[j]
        if not infos[j] & AGAIN:
            mine = not mine
    return 0.5


@njit(parallel=True, cache=True)
def _select_all(moves, mirror, throws, probs, prior_mode, tree, walk):
    for i in prange(len(walk[2])):
        _select(i, moves, mirror, throws, probs, prior_mode, tree, walk)


@njit(parallel=True, cache=True)
def _backup_all(tree, walk):
    for i in prange(len(walk[2])):
        _backup(i, tree, walk)


@njit(parallel=True, cache=True)
def _search_by_playouts(moves, mirror, throws, probs, cum_probs, max_moves, tree, walk, keys,
                        sims):
    """Every simulation of every tree, with playout leaves: one compiled loop, no
    Python between simulations."""
    kind, pending, values = walk[2], walk[4], walk[6]
    for i in prange(len(kind)):
        for sim in range(sims):
            _select(i, moves, mirror, throws, probs, False, tree, walk)
            if kind[i] == SINGLE:
                values[i, 0] = playout(moves, mirror, throws, cum_probs, max_moves,
                                       pending[i, 0], stream_key(keys[i], sim))
            _backup(i, tree, walk)


def trees_at_once(game, sims: int) -> int:
    """How many trees fit in TREE_BYTES."""
    per_node = game.max_moves * (8 * 6 + 4) + 8 * (2 + len(game.throws)) + 4 * len(game.throws)
    return max(1, TREE_BYTES // (per_node * (sims + 2)))


def search(game, counts, next_codes, infos, keys, sims: int, leaf=None):
    """Search each decision (decision form, eval.search) with `sims` simulations.
    keys: one uint64 random key per decision (its playouts). leaf: None for random
    playouts (UCT), else codes -> values for whoever throws next there (PUCT).
    Returns (visits, mean worth) of every root move, each (n, max_moves), zero beyond
    a row's count."""
    n = len(counts)
    visits, means = np.zeros((n, game.max_moves)), np.zeros((n, game.max_moves))
    step = trees_at_once(game, sims)
    for s in range(0, n, step):
        part = slice(s, min(n, s + step))
        visits[part], means[part] = _search_trees(game, counts[part], next_codes[part],
                                                  infos[part], keys[part], sims, leaf)
    return visits, means


def _search_trees(game, counts, next_codes, infos, keys, sims, leaf):
    n, m, nodes, throws = len(counts), game.max_moves, sims + 2, len(game.throws)
    d_count = np.zeros((n, nodes), dtype=np.int64)
    d_next = np.zeros((n, nodes, m), dtype=np.int64)
    d_info = np.zeros((n, nodes, m), dtype=np.int64)
    d_count[:, 0], d_next[:, 0], d_info[:, 0] = counts, next_codes, infos
    d_n = np.zeros((n, nodes, m))
    d_w = np.zeros((n, nodes, m))
    tree = (np.zeros((n, nodes), dtype=np.int64), np.zeros((n, nodes)),      # chance nodes
            np.zeros((n, nodes, throws)), np.full((n, nodes, throws), -1, dtype=np.int32),
            np.zeros(n, dtype=np.int64),
            d_count, d_next, d_info, np.full((n, nodes, m), -1, dtype=np.int32),  # decision
            d_n, d_w, np.zeros((n, nodes, m)), np.zeros((n, nodes)), np.ones(n, dtype=np.int64))
    pending, pending_count, values = (np.zeros((n, m), dtype=np.int64),
                                      np.zeros(n, dtype=np.int64), np.zeros((n, m)))
    kind = np.zeros(n, dtype=np.int64)
    walk = (np.zeros((n, MAX_DEPTH, 4), dtype=np.int64), np.zeros(n, dtype=np.int64), kind,
            np.zeros((n, 3), dtype=np.int64), pending, pending_count, values)
    probs = np.asarray(game.probs, dtype=np.float64)
    keys = np.asarray(keys, dtype=np.uint64)
    if leaf is None:
        _search_by_playouts(game.moves, game.mirror, game.throws, probs, cumulative(probs),
                            m, tree, walk, keys, sims)
    else:
        slots = np.arange(m)
        for _ in range(sims):
            _select_all(game.moves, game.mirror, game.throws, probs, True, tree, walk)
            live = (slots < pending_count[:, None]) & (kind != TERMINAL)[:, None]
            if live.any():
                values[live] = leaf(pending[live])
            _backup_all(tree, walk)
    root_n = d_n[:, 0]
    return root_n, np.where(root_n > 0, d_w[:, 0] / np.maximum(root_n, 1), 0.0)


def most_visited(counts, visits, means) -> np.ndarray:
    """Each row's most visited legal move (ties: the higher mean worth)."""
    legal = np.arange(visits.shape[1]) < np.asarray(counts)[:, None]
    return np.argmax(np.where(legal, visits + 1e-3 * means, -np.inf), axis=1)
