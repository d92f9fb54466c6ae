"""The solve stage's settings and their defaults (the command, the pipeline)."""
from dataclasses import dataclass


@dataclass(frozen=True)
class SolveSettings:
    tol: float = 1e-9   # a layer is done when no sweep changes a value by more than this
