"""Where work runs: in this process (`local`, the default) or on a Ray cluster
(`ray`, `ray:auto`, `ray:HOST:PORT`).

A run cuts its work into units that carry everything they need by value (a variant
string, a seed, a block of games, paths on a folder every node reads) and hands each
to `Cluster.submit`, which returns a concurrent.futures.Future. The local cluster
runs the unit at once, in this process, so a local run is today's run, in the same
order; Ray runs it as a task on any node, retried elsewhere if its node dies (a unit
is a pure function of its arguments, so a retry gives the same bytes). Nothing here
decides how work is cut: that is each stage's, and it is cut the same way wherever
it runs, so that a run's result does not depend on where its units ran.

Ray is imported only when asked for: the default needs nothing beyond the project.
"""
import os
import socket
from concurrent.futures import Future
from contextlib import contextmanager

from tabula.infra.errors import TabulaError

RETRIES = 3   # Ray: times a unit is run again after its worker or node died


class ClusterError(TabulaError):
    pass


class LocalCluster:
    """Units run one at a time in this process, as they are submitted."""
    in_process = True   # a unit may be handed objects that do not travel (a callback)

    def submit(self, fn, *args, cpus: int = 1) -> Future:
        future = Future()
        try:
            future.set_result(fn(*args))
        except BaseException as err:   # noqa: BLE001 - the caller's .result() raises it
            future.set_exception(err)
        return future

    def map(self, fn, arguments, cpus: int = 1):
        """fn(*args) for each args of `arguments`, in order, each run when it is
        asked for (so that the caller reports progress between units)."""
        for args in arguments:
            yield fn(*args)

    def close(self):
        pass


class RayCluster:
    """Units run as Ray tasks on the cluster at `address` (None: a Ray instance
    started on this machine for the run; "auto": the one RAY_ADDRESS or `ray start`
    names). Each task asks for `cpus` CPUs and sets the compiled kernels' threads to
    them."""
    in_process = False

    def __init__(self, address: str | None = None):
        try:
            import ray
        except ImportError:
            raise ClusterError("--cluster ray needs Ray: pip install 'ray>=2.40' (on every "
                               "node; docs/CLUSTER.md)") from None
        self.ray = ray
        self._remote = {}
        self._started = not ray.is_initialized()   # (a test or a caller may have started it)
        if self._started:
            where = address or "a Ray instance started here"
            _check_answers(address)
            try:
                ray.init(address=address, include_dashboard=False, log_to_driver=False,
                         logging_level="warning")
            except (ConnectionError, RuntimeError, ValueError) as err:
                reason = " ".join(str(err).split())[:300]
                raise ClusterError(f"cannot reach the Ray cluster at {where}: {reason}") \
                    from None

    def submit(self, fn, *args, cpus: int = 1) -> Future:
        remote = self._remote.get(cpus)
        if remote is None:
            remote = self._remote[cpus] = self.ray.remote(_run_unit).options(
                num_cpus=cpus, max_retries=RETRIES, retry_exceptions=False)
        return remote.remote(fn, cpus, os.getcwd(), *args).future()

    def map(self, fn, arguments, cpus: int = 1):
        """fn(*args) for each args of `arguments`, in order: all submitted at once."""
        futures = [self.submit(fn, *args, cpus=cpus) for args in arguments]
        for future in futures:
            yield future.result()

    def close(self):
        if self._started:
            self.ray.shutdown()


def _check_answers(address: str | None, seconds: float = 5.0):
    """A ClusterError at once where nothing answers at a HOST:PORT address (Ray itself
    would wait minutes for it)."""
    host, _, port = (address or "").rpartition("://")[2].rpartition(":")
    if not host or not port.isdigit():
        return   # none (a Ray started here) or "auto": Ray says at once if none is found
    try:
        socket.create_connection((host, int(port)), timeout=seconds).close()
    except OSError as err:
        raise ClusterError(f"nothing answers at {address} (the head node's address and "
                           f"port, as `ray start --head` printed it): {err}") from None


def _run_unit(fn, cpus, folder, *args):
    """A unit on a Ray worker, with the compiled kernels' threads set to its CPUs, in
    the folder the run started in where this node has it (so that the run's relative
    paths name the same files on a shared folder)."""
    import numba
    numba.set_num_threads(max(1, min(cpus, numba.config.NUMBA_NUM_THREADS)))
    if os.path.isdir(folder):
        os.chdir(folder)
    return fn(*args)


def cluster_address(text: str | None) -> str | None:
    """The Ray address `text` names ("" for a Ray started for the run), None for
    local; a ClusterError unless it is local, ray, ray:auto or ray:HOST:PORT."""
    text = (text or "local").strip()
    kind, _, address = text.partition(":")
    if text == "local":
        return None
    if kind != "ray":
        raise ClusterError(f"--cluster must be local, ray, ray:auto or ray:HOST:PORT, not "
                           f"{text[:100]!r}")
    return address


def open_cluster(text: str | None):
    """The cluster `text` names (see cluster_address), connected."""
    address = cluster_address(text)
    return LocalCluster() if address is None else RayCluster(address or None)


@contextmanager
def cluster_named(text: str | None):
    """The cluster `text` names, connected for a run and closed after it."""
    cluster = open_cluster(text)
    try:
        yield cluster
    finally:
        cluster.close()
