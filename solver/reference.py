"""A plain, slow float64 reference solver for small variants.

Deliberately unlike the fast solver: no layers, no pairs, no sweep order, no
in-place updates. It lists every position's moves in Python, then runs Jacobi
value iteration on the whole game at once, V <- T(V), until nothing changes by
more than `tol`. The tests compare the fast solver's tables with it.
"""
import numpy as np

from tabula.games.game import OVER, layer_id, worths


def reference_solve(game, max_total=None, tol=1e-13, max_iterations=1_000_000):
    """Values (float64) of every non-terminal layer: {(a, b): array by rank}."""
    layers = game.solved_layers(max_total)
    offset, start = {}, 0
    for p in layers:
        offset[layer_id(*p)] = start
        start += game.layer_size(*p)
    n = start

    def index(code):
        return offset[int(game.layer_of(code))] + int(game.rank(code))

    # one row per (position, throw); each row lists its moves as (info, target index)
    infos, targets, row_of_move, row_prob = [], [], [], []
    out_codes = np.zeros(game.max_moves, dtype=np.int64)
    out_info = np.zeros(game.max_moves, dtype=np.int64)
    for p in layers:
        for r in range(game.layer_size(*p)):
            code = game.unrank(layer_id(*p), r)
            for throw, prob in zip(game.throws, game.probs):
                row = len(row_prob)
                row_prob.append(prob)
                k = game.moves(code, throw, out_codes, out_info)
                if k == 0:  # no legal move: the same board, the turn passes (info 0)
                    infos.append(0)
                    targets.append(index(game.mirror(code)))
                    row_of_move.append(row)
                for i in range(k):
                    info = int(out_info[i])
                    infos.append(info)
                    targets.append(0 if info & OVER else index(out_codes[i]))
                    row_of_move.append(row)
    infos = np.array(infos, dtype=np.int64)
    targets = np.array(targets)
    row_starts = np.flatnonzero(np.diff(np.concatenate([[-1], row_of_move])))
    row_prob = np.array(row_prob)
    position_of_row = np.repeat(np.arange(n), len(game.throws))

    V = np.full(n, 0.5)
    for _ in range(max_iterations):
        best = np.maximum.reduceat(worths(infos, V[targets]), row_starts)
        new = np.bincount(position_of_row, weights=row_prob * best, minlength=n)
        change = np.abs(new - V).max()
        V = new
        if change <= tol:
            break
    else:
        raise RuntimeError("reference solve did not converge")
    return {p: V[offset[layer_id(*p)]:offset[layer_id(*p)] + game.layer_size(*p)]
            for p in layers}
