"""Exact values: layered value iteration into HDF5 tables."""
if __name__ == "solver":   # the old import path: the same modules as tabula.solver
    from tabula.infra.old_import_paths import hand_over
    hand_over(__name__)
