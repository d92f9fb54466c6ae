"""Labelled position sets in HDF5 from a solved table (not built yet: issue 4)."""
