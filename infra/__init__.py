"""Infrastructure every stage shares, below all of them in the package order:
the user-error type, provenance (code version, machine, time), checked opening of
tabula's HDF5 files, and progress lines. It knows no game and no stage."""
__version__ = "0.1.0"
