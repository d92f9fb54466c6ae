"""numba's cache across processes: a dispatcher in a pickled signature (as in a
cache index written by another process) loads as the live dispatcher."""
import subprocess
import sys

SCRIPT = """
import gc, sys
from numba.core import serialize, types
from tabula.games import ur
if sys.argv[1] == "dump":
    sys.stdout.buffer.write(serialize.dumps((types.Dispatcher(ur.layer_of_bell), types.int64)))
else:
    key = serialize.loads(sys.stdin.buffer.read())
    gc.collect()
    serialize.dumps(key)   # what saving a cache index does
    print(key[0].dispatcher is ur.layer_of_bell)
"""


def test_pickled_dispatcher_loads_as_the_live_one_in_another_process():
    dumped = subprocess.run([sys.executable, "-c", SCRIPT, "dump"], capture_output=True,
                            check=True).stdout
    loaded = subprocess.run([sys.executable, "-c", SCRIPT, "load"], input=dumped,
                            capture_output=True, check=True)
    assert loaded.stdout.decode().strip() == "True"



def test_a_cached_kernel_that_names_moved_code_is_a_cache_miss(monkeypatch):
    """A cache written before a module moved (games/progress.py into
    games/combinatorics.py) names the old module; reading it must not stop on the
    ImportError but compile again (seen here: every solve stopped on
    ModuleNotFoundError until the stale cache was removed)."""
    from numba.core.caching import Cache
    import tabula.infra.numba_cache  # noqa: F401 - the patch under test

    def moved(self, sig, target_context):
        raise ModuleNotFoundError("No module named 'tabula.games.progress'")

    class Context:
        def refresh(self):
            pass

    monkeypatch.setattr(Cache, "_load_overload", moved)
    assert Cache.load_overload(Cache.__new__(Cache), None, Context()) is None
