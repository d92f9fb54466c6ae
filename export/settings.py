"""The export stage's settings and their defaults (the command, the pipeline)."""
from dataclasses import dataclass


@dataclass(frozen=True)
class ExportSettings:
    int8: bool = False   # also write an int8 model (MODEL.int8.onnx)
