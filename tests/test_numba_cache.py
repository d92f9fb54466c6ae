"""numba's cache across processes: a dispatcher in a pickled signature (as in a
cache index written by another process) loads as the live dispatcher."""
import subprocess
import sys

SCRIPT = """
import gc, sys
from numba.core import serialize, types
from tabula.games import ur
if sys.argv[1] == "dump":
    sys.stdout.buffer.write(serialize.dumps((types.Dispatcher(ur.layer_of), types.int64)))
else:
    key = serialize.loads(sys.stdin.buffer.read())
    gc.collect()
    serialize.dumps(key)   # what saving a cache index does
    print(key[0].dispatcher is ur.layer_of)
"""


def test_pickled_dispatcher_loads_as_the_live_one_in_another_process():
    dumped = subprocess.run([sys.executable, "-c", SCRIPT, "dump"], capture_output=True,
                            check=True).stdout
    loaded = subprocess.run([sys.executable, "-c", SCRIPT, "load"], input=dumped,
                            capture_output=True, check=True)
    assert loaded.stdout.decode().strip() == "True"
