"""A player's score on a decision set (datagen/decision_set.py): error rate and loss
per decision, overall and by kind, without the table."""
import numpy as np

from tabula.eval.measures import ERROR_THRESHOLD


def score(decision_set, player, seed: int = 0) -> dict:
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
