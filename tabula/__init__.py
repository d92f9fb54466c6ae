"""tabula: solve dice games exactly and distil the solutions into small networks.

This package is the application on top (commands, pipeline, terminal play)."""
from tabula.infra import __version__

__all__ = ["__version__"]
