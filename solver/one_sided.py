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


def throws_to_bear_off(game, pieces: int | None = None, rank_by=None,
                       moves=None) -> np.ndarray:
    """float64 [side index, r]: the chance that the side needs exactly r throws.
    rank_by (optional, by side index): choose moves by these average numbers of throws
    instead of the exact ones, to replay another table's choices (where two moves are
    within its rounding of each other, it may have taken the other). moves: the
    game's side_moves of `pieces`, if made already."""
    moves = side_moves(game, pieces) if moves is None else moves
    key = np.empty(0) if rank_by is None else np.asarray(rank_by, dtype=np.float64)[moves.order]
    return _by_side(moves, _distributions(moves.starts, moves.targets, game.probs,
                                          int(moves.pips[-1]), key))


def throws_to_first_off(game, moves=None) -> np.ndarray:
    """float64 [side index, r]: for a side of all its pieces (the race's
    gammon_checkers), the chance that it needs exactly r throws to bear off its first
    one, playing to need the fewest on average (what gnubg's one-sided database holds
    beside the other: a gammon is lost unless one piece is off in time); zeros for
    other sides. moves: the game's side_moves of that many pieces, if made already."""
    full = game.race.gammon_checkers
    moves = side_moves(game, full) if moves is None else moves
    done = moves.checkers[moves.targets] < full    # a move that bears a piece off
    targets = np.where(done, 0, moves.targets).astype(moves.targets.dtype)
    dist = _distributions(moves.starts, targets, game.probs, int(moves.pips[-1]), np.empty(0))
    dist[moves.checkers < full] = 0.0
    return _by_side(moves, dist)


def bear_off_chances(off, first, mine, theirs) -> np.ndarray:
    """The cubeless chances (solver/contact.py: win, win a gammon, win a backgammon,
    lose a gammon, lose a backgammon) of the player on roll where both sides bear off,
    by side index (mine, theirs) into throws_to_bear_off's `off` and
    throws_to_first_off's `first`. It throws first: it wins when it needs r throws and
    the other side r or more; it wins a gammon when the other side has not borne a
    piece off in the r - 1 throws it had, and loses one when it has none off after s
    throws of its own where the other side needs s. No backgammon: no piece is in the
    other side's home board."""
    width = max(off.shape[1], first.shape[1])
    off, first = (np.pad(d, ((0, 0), (0, width - d.shape[1]))) for d in (off, first))

    def at_least(dist):   # [i, r]: the chance of needing r throws or more
        return np.cumsum(dist[:, ::-1], axis=1)[:, ::-1]
    mine_off, theirs_off = off[mine], off[theirs]
    out = np.zeros((len(mine), 5))
    out[:, 0] = (mine_off * at_least(theirs_off)).sum(axis=1)
    out[:, 1] = (mine_off * at_least(first[theirs])).sum(axis=1)
    out[:, 3] = (theirs_off[:, :-1] * at_least(first[mine])[:, 1:]).sum(axis=1)
    return out


def _by_side(moves, dist) -> np.ndarray:
    """Rows by side index, cut after the last throw count with a chance."""
    last = int(np.flatnonzero(dist.any(axis=0))[-1])
    return dist[moves.place, :last + 1]
