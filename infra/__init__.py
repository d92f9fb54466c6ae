"""Infrastructure every stage shares, below all of them in the package order:
the user-error type, provenance (code version, machine, time), checked opening of
tabula's HDF5 files, and progress lines. It knows no game and no stage."""
if __name__ == "infra":   # the old import path: the same modules as tabula.infra
    from tabula.infra.old_import_paths import hand_over
    hand_over(__name__)
__version__ = "0.1.0"
