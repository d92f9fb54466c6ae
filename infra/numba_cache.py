"""Make numba's on-disk cache work across processes for kernels that take compiled
functions as arguments (the solver, datagen and eval kernels take a game's moves,
rank, ... as first-class arguments).

The cache index of such a kernel is keyed by signatures that contain the argument
dispatchers. When another process loads the index, numba rebuilds each of them as
a new Dispatcher object that only weak references point to: its keys then never
equal the live dispatchers (every process recompiles), and once the rebuilt object
is garbage-collected, saving the index fails with "ReferenceError: underlying
object has vanished". Here a rebuilt dispatcher whose Python function is (the
same code as) a module's own compiled function resolves to that live dispatcher.
And a cached kernel that cannot be read back because code it names has moved is
compiled again.
"""
import sys

from numba.core.caching import Cache
from numba.core.dispatcher import Dispatcher

_rebuild = Dispatcher._rebuild.__func__


def _rebuild_as_live(cls, uuid, py_func, *args, **kwargs):
    live = getattr(sys.modules.get(getattr(py_func, "__module__", None)),
                   getattr(py_func, "__name__", ""), None)
    if isinstance(live, Dispatcher) and _same_code(live.py_func, py_func):
        return live
    return _rebuild(cls, uuid, py_func, *args, **kwargs)


def _same_code(a, b) -> bool:
    """The same function, possibly rebuilt by value from a pickle."""
    return a is b or (a.__qualname__ == getattr(b, "__qualname__", None)
                      and a.__code__.co_code == b.__code__.co_code)


Dispatcher._rebuild = classmethod(_rebuild_as_live)


_load_overload = Cache.load_overload


def _load_overload_or_none(self, sig, target_context):
    """A cached kernel that names code which has since moved or gone (a module
    renamed) is a cache miss: it is compiled again, not stopped by an ImportError."""
    try:
        return _load_overload(self, sig, target_context)
    except (ImportError, AttributeError):
        return None


Cache.load_overload = _load_overload_or_none
