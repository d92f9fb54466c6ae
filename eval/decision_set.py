"""Held-out decision sets (format tabula-decisions): decisions (a position, every
legal move of a throw, each move's exact worth) taken from positions that no
training record holds, each tagged with the kinds it belongs to, so that a player
can be measured without the table: its error rate and loss per decision, overall
and by kind (`tabula eval decisions`). The GPU run of a game too large for this
machine writes one beside its training data; `tabula datagen decisions` writes one
from a table here.

Kinds (a decision may have several; each comes from the game's own account of its
moves, Game.events, or of its position, Game.position_kinds):
  near-tie   the two best moves within NEAR_TIE of each other
  bear-off, capture, backward, water, enter, rosette: some move does that
  blockade   (Senet) a side holds three or more squares in a row
"""
import json
import os
from pathlib import Path

import h5py
import numpy as np

from tabula.datagen.datafile import DataError, DataFile
from tabula.eval.measures import ERROR_THRESHOLD
from tabula.games import get_game
from tabula.games.game import unpack_info
from tabula.infra.h5files import open_checked
from tabula.infra.manifest import stamp
from tabula.training.decisions import decisions_with_positions

FORMAT = "tabula-decisions"
FORMAT_VERSION = 1
NEAR_TIE = 0.001   # winning chance: a tenth of a point
EVENT_KINDS = {"bears": "bear-off", "captures": "capture", "swaps": "capture",
               "moves": "backward", "drowns": "water", "enters": "enter",
               "lands": "rosette"}   # the first word of a Game.events phrase


def decision_kinds(game, code: int, count: int, infos, worths) -> set:
    """The kinds of one decision (see the module docstring)."""
    kinds = set(game.position_kinds(code)) if game.position_kinds else set()
    best = np.sort(worths[:count])[::-1]
    if best[0] - best[1] <= NEAR_TIE:
        kinds.add("near-tie")
    for info in infos[:count]:
        for phrase in game.events(code, unpack_info(int(info))):
            word = phrase.split()[0]
            kinds.add(EVENT_KINDS.get(word, word))
    return kinds


def make_decision_set(table, data_path, out, count: int, seed: int) -> dict:
    """Write `count` decisions (or fewer: positions with one legal move are skipped)
    from the test split of the data file `data_path`, whose positions no training
    record holds; the throws from `seed`."""
    data = DataFile(data_path)
    if data.attrs["table_sha256"] != table.attrs["sha256"]:
        raise DataError(f"{data_path} was not made from {table.path}")
    game = table.game
    codes = np.unique(data.read("test", "codes"))
    rng = np.random.default_rng(seed)
    codes = codes[rng.permutation(len(codes))[:2 * count]]   # about half have a choice
    positions, counts, next_codes, infos, worths = decisions_with_positions(table, codes, seed)
    keep = slice(0, count)
    positions, counts, next_codes, infos, worths = (a[keep] for a in (
        positions, counts, next_codes, infos, worths))
    tags = [decision_kinds(game, int(c), int(k), i, w)
            for c, k, i, w in zip(positions, counts, infos, worths)]
    names = sorted(set().union(*tags)) if tags else []
    bits = np.array([sum(1 << names.index(t) for t in tag) for tag in tags], dtype=np.int64)
    attrs = {**stamp(FORMAT, FORMAT_VERSION, game), "table_sha256": table.attrs["sha256"],
             "data_sha256": data.attrs["data_sha256"], "split": "test", "seed": seed,
             "kinds": json.dumps(names), "near_tie": NEAR_TIE}
    attrs["machine"] = json.dumps(attrs["machine"])   # HDF5 attributes hold no dicts
    partial = Path(f"{out}.partial")
    with h5py.File(partial, "w") as f:
        f.attrs.update(attrs)
        for name, array in (("codes", positions), ("counts", counts),
                            ("next_codes", next_codes), ("infos", infos),
                            ("worths", worths), ("kinds", bits)):
            f.create_dataset(name, data=array, compression="gzip", shuffle=True)
    os.replace(partial, out)
    return {"out": str(out), "decisions": len(positions),
            "kinds": {n: int((bits >> i & 1).sum()) for i, n in enumerate(names)}}


class DecisionSet:
    """A decision set opened for reading (the arrays of make_decision_set)."""

    def __init__(self, path):
        self.path = Path(path)
        with open_checked(self.path, FORMAT, DataError, "decision set",
                          "a tabula decision set (tabula datagen decisions)") as (f, attrs):
            self.attrs = attrs
            self.game = get_game(attrs["game"], int(attrs["pieces"]))
            self.kinds = json.loads(attrs["kinds"])
            for name in ("codes", "counts", "next_codes", "infos", "worths", "kinds"):
                setattr(self, name if name != "kinds" else "kind_bits", f[name][:])


def score(decision_set: DecisionSet, player, seed: int = 0) -> dict:
    """The player's error rate and loss per decision (percentage points of winning
    chance), overall and by kind."""
    s = decision_set
    rand = np.random.default_rng(seed).random(len(s.codes))
    chosen = player.choose(s.codes, s.counts, s.next_codes, s.infos.astype(np.int64), rand)
    live = np.arange(s.next_codes.shape[1]) < s.counts[:, None]
    best = np.where(live, s.worths, -np.inf).max(1)
    loss = 100 * (best - np.take_along_axis(s.worths, chosen[:, None], 1)[:, 0])

    def summary(mask):
        n = int(mask.sum())
        return {"decisions": n,
                "error_rate": float((loss[mask] > 100 * ERROR_THRESHOLD).mean()) if n else None,
                "loss_per_decision_points": float(loss[mask].mean()) if n else None}

    return {"player": player.spec, "set": str(s.path), **summary(np.ones(len(loss), bool)),
            "by_kind": {name: summary((s.kind_bits >> i & 1) == 1)
                        for i, name in enumerate(s.kinds)},
            "model_sha256": player.model_sha256}
