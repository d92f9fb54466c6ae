"""Opening tabula's HDF5 files (tables, data sets) with one set of checks: the file
exists, is HDF5 and carries the expected `format` attribute."""
from contextlib import contextmanager
from pathlib import Path

import h5py
import numpy as np


def plain(value):
    """An HDF5 attribute as a plain Python value."""
    return value.item() if isinstance(value, np.generic) else value


@contextmanager
def open_checked(path: Path, file_format: str, error, noun: str, what: str):
    """Yield (open file, its attributes as plain values); raise `error` when the file
    is missing ("no NOUN PATH"), not HDF5, or not of `file_format` ("not WHAT")."""
    if not path.is_file():
        raise error(f"no {noun} {path}")
    try:
        handle = h5py.File(path, "r")
    except OSError as err:
        raise error(f"{path} is not a readable HDF5 {noun} ({err})") from None
    with handle as f:
        if f.attrs.get("format") != file_format:
            raise error(f"{path} is not {what}")
        yield f, {k: plain(v) for k, v in f.attrs.items()}
