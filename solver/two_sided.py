"""Exact two-sided tables of races whose sides never meet (games.game.Race; backgammon
bear-offs), with outcomes worth one or two points (gammons) and the doubling cube in
money play, in one pass.

Every move lowers the mover's pips, so a position (mover i, opponent j) depends only
on positions (j, k) of a lower pip total: the solver goes through the pip totals T
from the lowest, and all positions of one total are independent of each other (done
in parallel, so the result does not depend on the thread count).

Values, for the player on roll, per unit of cube value:
  win, win_gammon, lose_gammon   cubeless chances, checker play maximising the
                                 cubeless equity 2 win - 1 + win_gammon - lose_gammon
  centered, owned, unavailable   cubeful equities when the player on roll does not
                                 double now (gnubg's "no double" equities), the cube
                                 centred, owned by them, or owned by the opponent;
                                 checker play maximises the equity of that cube state.
A player with access to the cube doubles when that does not lower their equity; the
opponent then passes (the doubler wins 1) or takes (cube value 2, owned by the taker):
  E(centered) = max(ND(centered), min(2 ND(unavailable), 1)), likewise for owned,
  E(unavailable) = ND(unavailable).

Layout while solving: A[x, y] is the value of the position where the side of place y
(solver/side_moves.py) is on roll against the side of place x, so that the values a
position needs (its opponent on roll against each of its own successors) are rows of
contiguous memory.
"""
import numpy as np
from numba import njit, prange, vectorize

from tabula.infra.progress import Progress

from .side_moves import side_moves

CUBEFUL = ("centered", "owned", "unavailable")


@vectorize(["float64(float64, float64)"], cache=True)
def cube_equity(no_double, no_double_unavailable):
    """The equity with access to the cube: double when 2 ND(unavailable) >= ND (the
    opponent then takes or passes, whichever costs them less), else don't. A ufunc:
    of numbers, or elementwise of arrays (np.maximum inside compiled loops made the
    sweeps 17% slower than max)."""
    return max(no_double, min(2.0 * no_double_unavailable, 1.0))


def doubles(no_double, no_double_unavailable) -> bool:
    """The right cube action of a player with access to it (gnubg's rule): double when
    the equity after a take, 2 ND(unavailable), is at least that of not doubling, and
    the position is not too good to double (ND above the 1 a pass wins)."""
    return bool(2.0 * no_double_unavailable >= no_double and no_double <= 1.0)


def takes(no_double_unavailable) -> bool:
    """The right answer to a double: take when it costs less than the 1 a pass costs
    (the doubler's equity after a take is 2 ND(unavailable)); pass on equality."""
    return bool(2.0 * no_double_unavailable < 1.0)


@njit(parallel=True, cache=True)
def _solve_total(total, pips, pip_start, starts, targets, probs, gammon_loser, gammons,
                 win, win_gammon, lose_gammon, centered, owned, unavailable):
    """All positions whose two sides have `total` pips to go together."""
    n_throws = len(probs)
    top = len(pip_start) - 2
    first = pip_start[max(1, total - top)]
    last = pip_start[min(total - 1, top) + 1]
    for i in prange(first, last):
        vj = total - pips[i]
        j0 = pip_start[vj]
        m = pip_start[vj + 1] - j0
        if m == 0:
            continue
        acc = np.zeros((6, m))
        best = np.empty((7, m))
        for t in range(n_throws):
            best[0, :] = -np.inf     # cubeless equity of the best move, then its chances
            best[4:, :] = -np.inf    # cubeful equities
            for s in range(starts[i * n_throws + t], starts[i * n_throws + t + 1]):
                k = targets[s]
                if k == 0:           # the mover bears off their last checker
                    for c in range(m):
                        points = 2.0 if gammons and gammon_loser[j0 + c] else 1.0
                        if points > best[0, c]:
                            best[0, c] = points
                            best[1, c] = 1.0
                            best[2, c] = points - 1.0
                            best[3, c] = 0.0
                        for q in range(4, 7):
                            best[q, c] = max(best[q, c], points)
                    continue
                for c in range(m):
                    j = j0 + c
                    p = win[k, j]
                    gw = win_gammon[k, j] if gammons else 0.0
                    gl = lose_gammon[k, j] if gammons else 0.0
                    equity = 1.0 - 2.0 * p + gl - gw
                    if equity > best[0, c]:
                        best[0, c] = equity
                        best[1, c] = 1.0 - p
                        best[2, c] = gl
                        best[3, c] = gw
                    best[4, c] = max(best[4, c], -cube_equity(centered[k, j], unavailable[k, j]))
                    best[5, c] = max(best[5, c], -unavailable[k, j])
                    best[6, c] = max(best[6, c], -cube_equity(owned[k, j], unavailable[k, j]))
            for q in range(6):
                for c in range(m):
                    acc[q, c] += probs[t] * best[q + 1, c]
        for c in range(m):
            j = j0 + c
            win[j, i] = acc[0, c]
            if gammons:
                win_gammon[j, i] = acc[1, c]
                lose_gammon[j, i] = acc[2, c]
            centered[j, i] = acc[3, c]
            owned[j, i] = acc[4, c]
            unavailable[j, i] = acc[5, c]


def solve_two_sided(game, quiet: bool = False) -> dict:
    """Every value of every position of `game` (a Race game) with at most game.pieces
    checkers a side: {name: float32 array [mover's side index, opponent's side index]}.
    Entries with a side of no checker left hold the finished game's outcome (gnubg's
    convention: the side with none left has won)."""
    moves = side_moves(game)
    n = len(moves.order)
    gammons = game.pieces >= game.race.gammon_checkers
    gammon_loser = moves.checkers == game.race.gammon_checkers
    shape = (n, n) if gammons else (1, 1)
    arrays = {"win": np.zeros((n, n), np.float32),
              "win_gammon": np.zeros(shape, np.float32),
              "lose_gammon": np.zeros(shape, np.float32),
              **{name: np.zeros((n, n), np.float32) for name in CUBEFUL}}
    for name in ("win", *CUBEFUL):   # the finished games: on roll with nothing left, won
        arrays[name][:, 0] = 1.0
        arrays[name][0, :] = 0.0 if name == "win" else -1.0
    totals = range(2, 2 * int(moves.pips[-1]) + 1)
    counts = np.bincount(moves.pips)
    counts[0] = 0
    positions = [int(n) for n in np.convolve(counts, counts)[totals.start:totals.stop]]
    progress = Progress("solve", sum(positions), "positions", quiet=quiet)
    done = 0
    for total, count in zip(totals, positions):
        _solve_total(total, moves.pips, moves.pip_start, moves.starts, moves.targets,
                     game.probs, gammon_loser, gammons, arrays["win"], arrays["win_gammon"],
                     arrays["lose_gammon"], arrays["centered"], arrays["owned"],
                     arrays["unavailable"])
        done += count
        progress.update(done, note=f"pip total {total}")
    progress.done(f"{done:,} positions")
    place = moves.place
    out = {}
    for name in list(arrays):   # one array at a time, each freed once turned
        values = arrays.pop(name)
        if values.shape == (n, n):
            out[name] = np.ascontiguousarray(values[np.ix_(place, place)].T)
        del values
    return out
