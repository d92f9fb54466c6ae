"""GNU Backgammon's makehyper databases (hyperN.bd) read and set beside tabula's values
of the same positions (tests/test_hypergammon.py, benchmarks/bench_hypergammon.py).

A file is a 40-byte header, then 28 bytes a position: five chances as 24-bit fractions
(win, win a gammon, win a backgammon, lose a gammon, lose a backgammon), then four
equities as 24-bit values of e/6 + 0.5 (owned, centred, centred under the Jacoby rule,
the opponent's), one padding byte. The record of a position is the player on roll's
one-sided index (gnubg's PositionBearoff over 25 points) times C(25 + N, N) plus the
opponent's.
"""
import shutil
from math import comb
from pathlib import Path

import numpy as np

from tabula.games.backgammon import board_of
from tabula.games.backgammon_rules import PLACES, THEM
from tabula.infra.errors import TabulaError
from tabula.solver import contact

MAKEHYPER = shutil.which("makehyper") or "/usr/games/makehyper"
EQUITIES = ("owned", "centered", "centered_jacoby", "unavailable")   # the file's order


def read_makehyper(path, checkers: int):
    """(chances (n, 5), equities (n, 4)) of every record of a hyperN.bd file; a
    TabulaError where the file's size is not that of N checkers' file."""
    n = comb(25 + checkers, checkers)
    size = Path(path).stat().st_size
    if size != 40 + 28 * n * n:
        raise TabulaError(f"{path} is not a makehyper file of {checkers} checkers: "
                          f"{size:,} bytes, not {40 + 28 * n * n:,}")
    raw = np.fromfile(path, dtype=np.uint8, offset=40).reshape(n * n, 28).astype(np.uint32)
    fields = raw[:, 0:27:3] | (raw[:, 1:27:3] << 8) | (raw[:, 2:27:3] << 16)
    fractions = fields / 16777215.0
    return fractions[:, :5], (fractions[:, 5:] - 0.5) * 6.0


def records_of(game, codes) -> np.ndarray:
    """makehyper's record of each position (its one-sided indices are gnubg's)."""
    import gnubg
    n = comb(25 + game.pieces, game.pieces)
    index = {tuple(gnubg.positionfrombearoff(i, game.pieces, 25)): i for i in range(n)}
    records = []
    for code in codes:
        board = board_of(code)
        records.append(index[tuple(int(c) for c in board[1:PLACES])] * n
                       + index[tuple(int(c) for c in board[THEM + 1:])])
    return np.array(records)


def cubeless_equity(chances) -> np.ndarray:
    """The cubeless equity of rows whose first five columns are the chances (in
    contact.VALUES' order)."""
    return contact.cubeless_equity(*np.asarray(chances, dtype=np.float64)[:, :5].T)


def differences(chances, equities, records, values) -> dict:
    """Largest differences between makehyper's records and tabula's values (n, 9) of
    the same positions: the cubeless equity (the chances themselves depend on which of
    two equal plays is kept) and the four cubeful equities."""
    out = {"cubeless": float(np.abs(cubeless_equity(chances[records])
                                     - cubeless_equity(values)).max())}
    for k, name in enumerate(EQUITIES):
        column = contact.VALUES.index(name)
        out[name] = float(np.abs(equities[records, k] - values[:, column]).max())
    return out
