"""The train stage's own settings (beside LightningCLI's model/data/trainer sections)
and their defaults (tabula train, the pipeline)."""
from dataclasses import dataclass

from tabula.infra.settings import MAX_SEED, Settings, SettingsError


@dataclass(frozen=True)
class TrainSettings(Settings):
    seed: int = 0       # seed_everything
    patience: int = 5   # epochs without a better monitored value before stopping
    threads: int = 0    # torch threads (0: torch's default, all cores)
    monitor: str = "val_loss"   # the validation metric best.ckpt and early stopping go by
    LIMITS = {"seed": (0, 2**32 - 1), "patience": (0, None), "threads": (0, 1024)}
    # val_decision_regret: what the net's choices give away (data.val_decisions)
    MONITORS = ("val_loss", "val_decision_regret")

    @classmethod
    def check(cls, values: dict, where: str = "") -> dict:
        super().check(values, where)
        monitor = values.get("monitor", cls.monitor)
        if monitor not in cls.MONITORS:
            raise SettingsError(f"{cls.said('monitor', where)} must be one of "
                                f"{', '.join(cls.MONITORS)}, not {monitor!r}")
        return values


@dataclass(frozen=True)
class TdSettings(Settings):
    """tabula td's settings (training/td.py)."""
    games: int = 100_000      # self-play games in all (a resumed run plays the rest)
    chunk: int = 1000         # games played at once, then one pass of training
    lam: float = 0.7          # TD's lambda for the chances
    lr: float = 1e-3          # Adam's learning rate at the first game
    lr_end: float = -1.0      # ... and at the last, by a cosine over the games (-1: lr)
    batch: int = 256          # positions a step of Adam
    seed: int = 0
    LIMITS = {"games": (1, 10**9), "chunk": (1, 100_000), "lam": (0.0, 1.0),
              "lr": (1e-7, 1.0), "lr_end": (-1.0, 1.0), "batch": (1, 1 << 20),
              "seed": (0, MAX_SEED)}
    FLAGS = {"lam": "lambda"}

    @classmethod
    def check(cls, values: dict, where: str = "") -> dict:
        super().check(values, where)
        if -1.0 < values.get("lr_end", -1.0) < 0.0:
            raise SettingsError(f"{cls.said('lr_end', where)} must be 0 or more (or -1: "
                                f"{cls.said('lr', where)} all through), not {values['lr_end']}")
        return values
