"""The datagen stage's settings and their defaults (the command, the pipeline)."""
from dataclasses import dataclass

from tabula.infra.settings import MAX_SEED, Settings, SettingsError


@dataclass(frozen=True)
class DatagenSettings(Settings):
    games: int = 10000          # self-play games of the perfect player
    explore: float = 0.3        # largest per-decision exploration rate
    uniform: int = 100000       # positions drawn uniformly within layers
    seed: int = 0
    val_frac: float = 0.05      # share of positions held out for validation
    test_frac: float = 0.05     # share of positions held out for testing
    alternatives: bool = False  # also record the results of the moves not chosen
    perfect_games: int = 0      # further games that never explore (the games eval scores)
    LIMITS = {"games": (0, 10**9), "perfect_games": (0, 10**9), "uniform": (0, 10**10),
              "explore": (0.0, 1.0), "seed": (0, MAX_SEED), "val_frac": (0.0, 0.5),
              "test_frac": (0.0, 0.5)}

    @classmethod
    def check(cls, values: dict, where: str = "") -> dict:
        super().check(values, where)
        merged = {**cls().__dict__, **values}
        if merged["games"] + merged["uniform"] + merged["perfect_games"] == 0:
            names = ", ".join(cls.said(name, where) for name in ("games", "uniform"))
            raise SettingsError(f"{names} and {cls.said('perfect_games', where)} cannot all "
                                "be 0")
        return values
