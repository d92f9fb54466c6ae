"""tabula: solve dice games exactly and distil the solutions into small networks."""
__version__ = "0.1.0"
