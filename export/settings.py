"""The export stage's settings and their defaults (the command, the pipeline)."""
from dataclasses import dataclass

from tabula.infra.settings import Settings


@dataclass(frozen=True)
class ExportSettings(Settings):
    int8: bool = False   # also write an int8 model (MODEL.int8.onnx)
