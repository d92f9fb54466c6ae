"""The datagen stage's settings and their defaults (the command, the pipeline)."""
from dataclasses import dataclass


@dataclass(frozen=True)
class DatagenSettings:
    games: int = 10000          # self-play games of the perfect player
    explore: float = 0.3        # largest per-decision exploration rate
    uniform: int = 100000       # positions drawn uniformly within layers
    seed: int = 0
    val_frac: float = 0.05      # share of positions held out for validation
    test_frac: float = 0.05     # share of positions held out for testing
    alternatives: bool = False  # also record the results of the moves not chosen
