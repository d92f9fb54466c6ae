"""Arrays on transparent huge pages (2 MiB) where the kernel allows it.

A sweep reads its successors' values at scattered places of arrays of hundreds of
megabytes; with 4 KiB pages nearly every read misses the TLB. Linux gives huge
pages to anonymous memory marked MADV_HUGEPAGE (the usual setting of
/sys/kernel/mm/transparent_hugepage/enabled is "madvise"); elsewhere these are
ordinary arrays.
"""
import mmap

import numpy as np


def empty(shape, dtype) -> np.ndarray:
    """Like np.empty (the pages hold zeros until written), on huge pages if possible."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    nbytes = max(count * dtype.itemsize, 1)
    if nbytes < 2 * 2**20 or not hasattr(mmap, "MADV_HUGEPAGE"):
        return np.empty(shape, dtype=dtype)
    memory = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    memory.madvise(mmap.MADV_HUGEPAGE)
    return np.frombuffer(memory, dtype=dtype, count=count).reshape(shape)


def full(shape, value, dtype) -> np.ndarray:
    array = empty(shape, dtype)
    array.fill(value)
    return array
