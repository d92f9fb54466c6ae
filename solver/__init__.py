"""Exact values: layered value iteration into HDF5 tables."""
