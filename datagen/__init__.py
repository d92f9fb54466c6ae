"""Labelled position sets in HDF5 from a solved table."""
