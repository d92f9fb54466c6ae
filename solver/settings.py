"""The solve stage's settings and their defaults (the command, the pipeline)."""
from dataclasses import dataclass

from tabula.infra.settings import Settings


@dataclass(frozen=True)
class SolveSettings(Settings):
    tol: float = 1e-9   # a layer is done when no sweep changes a value by more than this
    LIMITS = {"tol": (1e-15, 0.1)}
