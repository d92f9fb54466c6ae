"""The report stage's settings and their defaults (tabula eval, the pipeline)."""
from dataclasses import dataclass

from tabula.infra.settings import MAX_SEED, Settings


@dataclass(frozen=True)
class ReportSettings(Settings):
    games: int = 1000   # games per player against the perfect player
    seed: int = 0
    LIMITS = {"games": (1, 10**8), "seed": (0, MAX_SEED)}
