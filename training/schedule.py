"""The learning-rate schedule: a cosine from the set rate to zero over the run, where
the run ends at its last step or at the trainer's time limit, whichever comes first.

Counting time as well as steps matters for recipes with a time limit (max_time): on a
slower machine the limit stops the run before its last epoch, and a cosine over steps
alone would leave the rate high there (docs/BENCHMARKS.md, "Other inputs, and every
position of the table"). Where the steps end first, as on the machine a recipe was
tuned on, the schedule is the plain cosine over steps.
"""
import math

import torch
from lightning.pytorch.callbacks import Timer


def cosine_factor(progress: float) -> float:
    """The rate's share of the set rate with `progress` (0..1) of the run done."""
    return 0.5 * (1.0 + math.cos(math.pi * min(1.0, max(0.0, progress))))


def time_fraction(timer: Timer | None) -> float:
    """The share of the time limit the training has used (0 without a limit); a
    resumed run counts the time before it (Lightning's Timer keeps it in checkpoints)."""
    remaining = None if timer is None else timer.time_remaining()
    if remaining is None:
        return 0.0
    elapsed = timer.time_elapsed()
    return elapsed / max(elapsed + remaining, 1e-9)


def cosine_to_limits(optimizer, steps: int, timer: Timer | None):
    """A step-wise scheduler whose rate follows cosine_factor of the larger of the
    steps done over `steps` and time_fraction(timer)."""
    steps = max(1, steps)
    return torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: cosine_factor(max(step / steps, time_fraction(timer))))
