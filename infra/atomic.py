"""Small files written whole or not at all: written under a temporary name beside
the target, then renamed over it (a kill leaves the old file or the new one, never
half of one)."""
import os
from pathlib import Path


def write_atomic(path, data: bytes | str):
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    if isinstance(data, str):
        tmp.write_text(data, encoding="utf-8")
    else:
        tmp.write_bytes(data)
    os.replace(tmp, path)
