"""The report stage's settings and their defaults (tabula eval, the pipeline)."""
from dataclasses import dataclass


@dataclass(frozen=True)
class ReportSettings:
    games: int = 1000   # games per player against the perfect player
    seed: int = 0
