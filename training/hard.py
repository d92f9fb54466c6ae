"""Decisions the net gets wrong, drawn again: at the start of every epoch the net
plays a sample of the training decisions, and each batch then also carries some of
those it chose wrongly (a move worth less than the table's best), in a fresh random
order. The decision loss is an average over decisions, most of which the net
already gets right; this spends more of it where play is lost."""
import lightning as L
import numpy as np
import torch


SCORE_ROWS = 65536   # decisions scored at once


class HardDecisions(L.Callback):
    """Args:
        per_batch: wrongly chosen decisions added to each batch's own.
        sample: training decisions the net plays at each epoch's start.
    """

    def __init__(self, per_batch: int, sample: int = 2_000_000, seed: int = 0):
        self.per_batch, self.sample, self.seed = per_batch, sample, seed

    def on_train_epoch_start(self, trainer, model):
        batches = trainer.datamodule.splits["train"]
        decisions = batches.decisions
        rows = torch.as_tensor(np.random.default_rng([self.seed, trainer.current_epoch])
                               .choice(len(decisions.decisions[0]),
                                       min(self.sample, len(decisions.decisions[0])),
                                       replace=False))
        wrong = rows[wrong_choices(model, [t[rows.to(t.device)] for t in decisions.decisions])
                     .cpu()]
        order = torch.as_tensor(np.random.default_rng([self.seed, trainer.current_epoch, 1])
                                .permutation(len(wrong)))
        batches.hard = HardRows(tuple(t[wrong[order].to(t.device)] for t in decisions.decisions),
                                self.per_batch)
        model.log("hard_share", len(wrong) / max(1, len(rows)))


class HardRows:
    """Batch i's extra decisions: the next `per_batch` of `decisions`, cycling."""

    def __init__(self, decisions: tuple, per_batch: int):
        self.decisions, self.per_batch = decisions, per_batch

    def batch(self, i: int) -> tuple:
        n = len(self.decisions[0])
        if n == 0:
            return tuple(t[:0] for t in self.decisions)
        index = torch.arange(i * self.per_batch, (i + 1) * self.per_batch) % n
        return tuple(t[index.to(t.device)] for t in self.decisions)


def wrong_choices(model, decisions) -> torch.Tensor:
    """Which decisions (counts, next codes, infos, exact worths) the net chooses a
    move worth less than the best by more than 1e-6."""
    was_training = model.training
    model.eval()
    out = [model.decision_regrets(*(t[s:s + SCORE_ROWS] for t in decisions)) > 1e-6
           for s in range(0, len(decisions[0]), SCORE_ROWS)]
    model.train(was_training)
    return torch.cat(out) if out else torch.zeros(0, dtype=torch.bool)
