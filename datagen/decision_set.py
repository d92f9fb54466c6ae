"""Decision sets (format tabula-decisions): decisions (a position, every legal move
of a throw, each move's exact worth) from the positions of one split of a data
file, each tagged with the kinds it belongs to. Made from the test split, whose
positions no training record holds, a set measures a player without the table
(`tabula eval decisions`, eval/decision_score.py); made from the training split,
it feeds the decision losses where the table is not at hand (data.decision_set).
`tabula eval decision-set` writes one; the GPU run of a game too large for this
machine brings both back.

Where no table exists, a tree search's self-play writes one (datagen/search_data.py):
each move's worth is then the search's, not exact, and the set also holds each
move's share of the search's visits (the issue 51 labels).

Kinds (a decision may have several; each comes from the game's own account of its
moves, Game.events, or of its position, Game.position_kinds):
  near-tie   the two best moves within NEAR_TIE of each other
  bear-off, capture, backward, water, enter, rosette: some move does that
  blockade   (Senet) a side holds three or more squares in a row
"""
import hashlib
import json
import os
from pathlib import Path

import h5py
import numpy as np

from tabula.datagen.datafile import DataError, DataFile
from tabula.games import game_of
from tabula.games.game import OVER, unpack_info
from tabula.infra.batch import all_throws
from tabula.infra.h5files import open_checked
from tabula.infra.schemas import DecisionSetAttributes, check
from tabula.infra.manifest import stamp
from tabula.datagen.decisions import decisions_with_positions

FORMAT = "tabula-decisions"
FORMAT_VERSION = 1
NEAR_TIE = 0.001   # winning chance: a tenth of a point
EVENT_KINDS = {"bears": "bear-off", "captures": "capture", "swaps": "capture",
               "moves": "backward", "drowns": "water", "enters": "enter",
               "lands": "rosette"}   # the first word of a Game.events phrase


def decision_kinds(game, code: int, count: int, infos, worths) -> set:
    """The kinds of one decision (see the module docstring)."""
    marks = game.presentation.position_kinds
    kinds = set(marks(code)) if marks else set()
    best = np.sort(worths[:count])[::-1]
    if best[0] - best[1] <= NEAR_TIE:
        kinds.add("near-tie")
    for info in infos[:count]:
        for phrase in game.presentation.events(code, unpack_info(int(info))):
            word = phrase.split()[0]
            kinds.add(EVENT_KINDS.get(word, word))
    return kinds


def make_decision_set(table, data_path, out, count: int, seed: int, split: str = "test") -> dict:
    """Write `count` decisions (or fewer: positions with one legal move are skipped)
    from distinct positions of `split` of the data file `data_path`; the throws from
    `seed`."""
    data = DataFile(data_path)
    data.check_made_from(table)
    game = table.game
    codes = np.unique(data.read(split, "codes"))
    rng = np.random.default_rng(seed)
    codes = codes[rng.permutation(len(codes))[:2 * count]]   # about half have a choice
    positions, counts, next_codes, infos, worths = decisions_with_positions(table, codes, seed)
    keep = slice(0, count)
    positions, counts, next_codes, infos, worths = (a[keep] for a in (
        positions, counts, next_codes, infos, worths))
    made_from = {"table_sha256": table.attrs["sha256"], "data_sha256": data.attrs["data_sha256"],
                 "split": split, "seed": seed}
    return write_decision_set(out, game, (positions, counts, next_codes, infos, worths),
                              made_from)


def write_decision_set(out, game, decisions: tuple, made_from: dict, shares=None) -> dict:
    """Write `decisions` (positions, counts, next codes, infos, worths), each tagged with
    its kinds, to `out` (via OUT.partial); made_from: the attributes naming what made
    them. shares: for decisions searched by a tree search, each move's share of the
    root's visits (the search's choice distribution, a decision loss's target)."""
    positions, counts, next_codes, infos, worths = decisions
    tags = [decision_kinds(game, int(c), int(k), i, w)
            for c, k, i, w in zip(positions, counts, infos, worths)]
    names = sorted(set().union(*tags)) if tags else []
    bits = np.array([sum(1 << names.index(t) for t in tag) for tag in tags], dtype=np.int64)
    attrs = {**stamp(FORMAT, FORMAT_VERSION, game), **made_from,
             "kinds": json.dumps(names), "near_tie": NEAR_TIE}
    attrs["machine"] = json.dumps(attrs["machine"])   # HDF5 attributes hold no dicts
    arrays = {"codes": positions, "counts": counts, "next_codes": next_codes, "infos": infos,
              "worths": worths, "kinds": bits}
    if shares is not None:
        arrays["shares"] = shares
    attrs["decisions_sha256"] = decisions_sha256(game, names, arrays)
    partial = Path(f"{out}.partial")
    try:
        with h5py.File(partial, "w") as f:
            f.attrs.update(attrs)
            for name, array in arrays.items():
                f.create_dataset(name, data=array, compression="gzip", shuffle=True)
        os.replace(partial, out)
    finally:
        partial.unlink(missing_ok=True)
    return {"out": str(out), "decisions": len(positions),
            "kinds": {n: int((bits >> i & 1).sum()) for i, n in enumerate(names)}}


ARRAYS = ("codes", "counts", "next_codes", "infos", "worths", "kinds")   # + "shares"


def decisions_sha256(game, kinds: list, arrays: dict) -> str:
    """The checksum of what a decision set says: its variant and kinds, then its arrays
    in ARRAYS order (and the shares, where there are)."""
    digest = hashlib.sha256(json.dumps([game.name, game.rules, game.pieces, kinds]).encode())
    for name in (*ARRAYS, "shares"):
        if name in arrays:
            digest.update(np.ascontiguousarray(arrays[name], dtype=np.float64 if name in (
                "worths", "shares") else np.int64).tobytes())
    return digest.hexdigest()


class DecisionSet:
    """A decision set opened for reading (the arrays of write_decision_set; shares is
    None but in a set searched by a tree search)."""

    def __init__(self, path):
        self.path = Path(path)
        with open_checked(self.path, FORMAT, DataError, "decision set",
                          "a tabula decision set (tabula eval decision-set)") as (f, attrs):
            self.attrs = attrs
            where = f"{self.path} has broken attributes"
            said = check(DecisionSetAttributes, attrs, where, DataError)
            self.game, self.kinds = game_of(said, where, DataError), said.kinds
            arrays = {}
            for name in (*ARRAYS, "shares"):
                if name in f:
                    arrays[name] = f[name][()]
                elif name != "shares":
                    raise DataError(f"{self.path} lacks {name}")
        if decisions_sha256(self.game, self.kinds, arrays) != said.decisions_sha256:
            raise DataError(f"{self.path} is not what was written (checksum differs): the "
                            "file is damaged, make it again")
        self.codes, self.counts, self.next_codes, self.infos, self.worths, self.kind_bits = (
            arrays[name] for name in ARRAYS)
        self.shares = arrays.get("shares")
        self._check()

    def _check(self):
        """The arrays' shapes and values, beyond the file's format: two or more moves
        a decision, worths winning chances, and visit shares a distribution over each
        decision's moves."""
        n, m = len(self.codes), self.game.max_moves
        wide = (self.next_codes, self.infos, self.worths) + (
            (self.shares,) if self.shares is not None else ())
        if n == 0:
            raise DataError(f"{self.path} holds no decision")
        if any(a.ndim != 1 or len(a) != n for a in (self.codes, self.counts, self.kind_bits)) \
                or any(a.shape != (n, m) for a in wide) or \
                any(a.dtype.kind not in "iu" for a in (self.codes, self.counts, self.next_codes,
                                                       self.infos, self.kind_bits)):
            raise DataError(f"{self.path} holds arrays of different shapes or kinds")
        if not ((self.counts >= 2) & (self.counts <= m)).all():
            raise DataError(f"{self.path} holds a decision without 2 to {m} moves")
        if not (np.isfinite(self.worths) & (self.worths >= 0) & (self.worths <= 1)).all():
            raise DataError(f"{self.path} holds a worth that is not a winning chance")
        if not ((self.kind_bits >= 0) & (self.kind_bits < 1 << len(self.kinds))).all():
            raise DataError(f"{self.path} tags a decision with a kind it does not name")
        self._check_moves()
        if self.shares is None:
            return
        beyond = np.arange(m) >= self.counts[:, None]
        if not (np.isfinite(self.shares).all() and (self.shares >= 0).all()
                and (self.shares[beyond] == 0).all()
                and np.allclose(self.shares.sum(1), 1, atol=1e-4)):
            raise DataError(f"{self.path} holds visit shares that are not a distribution "
                            "over each decision's moves")

    def _check_moves(self):
        """Every decision is a position of the game and the legal moves of one of its
        throws, in the game's order (the moves a set's maker saw), and a move that wins
        is worth a win: a set of garbage codes or moves is refused, not scored."""
        game, m = self.game, self.game.max_moves
        if not game.are_positions(self.codes).all():
            raise DataError(f"{self.path} holds a code that is no position of "
                            f"{game.describe()}")
        counts, next_codes, infos = all_throws(game.moves, game.mirror, game.throws, m,
                                               self.codes)
        live = (np.arange(m) < self.counts[:, None])[:, None, :]
        same = ((next_codes == self.next_codes[:, None, :]) &
                (infos == self.infos[:, None, :])) | ~live
        if not ((counts == self.counts[:, None]) & same.all(axis=2)).any(axis=1).all():
            raise DataError(f"{self.path} holds a decision whose moves are not the legal "
                            f"moves of any throw of {game.describe()}")
        won = live[:, 0, :] & ((self.infos & OVER) != 0)
        if not (self.worths[won] == 1.0).all():
            raise DataError(f"{self.path} holds a winning move not worth a win")
