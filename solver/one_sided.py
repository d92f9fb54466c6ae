"""One-sided tables of races whose sides never meet (games.game.Race): for each side,
the distribution of the number of throws it needs to bear off all its pieces when it
plays to need the fewest throws on average (what gnubg's one-sided database holds).
A side's distribution depends on its own pieces only, so this covers every side of up
to 15 pieces (54,264 sides in a bear-off) in seconds."""
import numpy as np
from numba import njit

from .side_moves import side_moves


@njit(cache=True)
def _distributions(starts, targets, probs, max_throws, rank_by):
    n = len(starts) // len(probs)
    n_throws = len(probs)
    dist = np.zeros((n, max_throws + 1))
    mean = np.zeros(n)
    dist[0, 0] = 1.0
    key = rank_by if len(rank_by) else mean
    for q in range(1, n):        # by pips to go: every move reaches a lower q's pips
        for t in range(n_throws):
            best = -1
            for s in range(starts[q * n_throws + t], starts[q * n_throws + t + 1]):
                k = targets[s]
                if best < 0 or key[k] < key[best]:
                    best = k
            for r in range(max_throws):
                dist[q, r + 1] += probs[t] * dist[best, r]
            mean[q] += probs[t] * (1.0 + mean[best])
    return dist


def throws_to_bear_off(game, pieces: int | None = None, rank_by=None) -> np.ndarray:
    """float64 [side index, r]: the chance that the side needs exactly r throws.
    rank_by (optional, by side index): choose moves by these average numbers of throws
    instead of the exact ones, to replay another table's choices (where two moves are
    within its rounding of each other, it may have taken the other)."""
    moves = side_moves(game, pieces)
    max_throws = int(moves.pips[-1])     # every throw moves at least one pip
    key = np.empty(0) if rank_by is None else np.asarray(rank_by, dtype=np.float64)[moves.order]
    dist = _distributions(moves.starts, moves.targets, game.probs, max_throws, key)
    last = int(np.flatnonzero(dist.any(axis=0))[-1])
    return dist[moves.place, :last + 1]
