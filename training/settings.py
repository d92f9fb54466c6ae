"""The train stage's own settings (beside LightningCLI's model/data/trainer sections)
and their defaults (tabula train, the pipeline)."""
from dataclasses import dataclass

from tabula.infra.settings import Settings


@dataclass(frozen=True)
class TrainSettings(Settings):
    seed: int = 0       # seed_everything
    patience: int = 5   # epochs without a better val_loss before stopping
    threads: int = 0    # torch threads (0: torch's default, all cores)
    LIMITS = {"seed": (0, 2**32 - 1), "patience": (0, None), "threads": (0, 1024)}
