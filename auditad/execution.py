"""Where auditad's independent pieces of work run: in this process, or on Dask.

An audit is a list of independent tasks (benchmarks × representations × class-split tasks, or blocks of kNN
queries). `open_executor` turns a ``scheduler=`` value into an executor whose `DaskExecutor.map_ordered` runs
a function over the tasks and returns the results **in input order**, so a parallel run assembles exactly the
same results, in the same order, as a serial one (seeds are fixed per task by the caller, never by the
executor).

``scheduler=`` values (`parse_scheduler`):

``"serial"``
    A plain loop in this process (the default; no Dask needed).
``"local"`` or ``"local:N"``
    A ``dask.distributed.LocalCluster`` on this machine with ``N`` worker processes of one thread each
    (default: the number of CPUs), no dashboard; started when the executor is entered, closed when it is left.
``"tcp://host:8786"`` (or ``tls://``, ``ucx://``, ``ws://``, ``wss://``)
    An existing Dask cluster, reached through its scheduler address.

Pointing auditad at a cluster
-----------------------------
Any Dask deployment works as long as its workers can import the same auditad version (and numpy, scipy,
scikit-learn) as the client; the executor checks the versions on connection. Data travel from the client to
the workers through the scheduler, so a cluster on another network needs enough bandwidth for the embeddings.
Kubernetes (the ``dask/dask`` Helm chart, the dask-kubernetes operator), HPC (dask-jobqueue, ``dask-mpi``) and
plain machines (``dask scheduler`` on one host, ``dask worker tcp://<host>:8786 --nthreads 1`` on the others)
are described in the configuration guide (``[execution]``). A lost worker is survived (see `DaskExecutor`);
memory-mapped inputs travel by path (`DaskExecutor.share`).

Use one thread per worker: auditad's numerical kernels use BLAS threads of their own, and Dask's nannies
already limit those to one per process. The local clusters auditad starts also leave glibc's memory trimming
at its default, turn off the workers' statistical profiler and the scheduler's active memory manager
(`local_cluster_config`), which saves about 12 % and 4 % of the workers' time in the exact kNN search and the
repeated copying of shared rows; for a cluster you start yourself, set the same in its Dask configuration file
(e.g. ``~/.config/dask/distributed.yaml``):

    distributed:
      scheduler:
        active-memory-manager:
          start: false
      worker:
        profile:
          enabled: false
      nanny:
        pre-spawn-environ:
          OMP_NUM_THREADS: 1
          MKL_NUM_THREADS: 1
          OPENBLAS_NUM_THREADS: 1

References
----------
1. M. Rocklin, "Dask: Parallel Computation with Blocked algorithms and Task Scheduling", Proceedings of the
   14th Python in Science Conference (SciPy 2015), pp. 126-132.
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
import weakref
from concurrent.futures import ThreadPoolExecutor

from ._progress import check_stop
from .diskarray import call_opened, holds_token, memmap_token, readable_everywhere
from .errors import AuditadError, InvalidInputError
from .scheduler import (
    SCHEDULERS,
    SchedulerSpec,
    abandon_local_clusters,
    import_distributed,
    local_cluster_config,
    local_cluster_ids,
    parse_scheduler,
    probe_scheduler,
)

__all__ = [
    "SCHEDULERS",
    "ExecutionError",
    "SchedulerSpec",
    "parse_scheduler",
    "open_executor",
    "probe_scheduler",
    "SerialExecutor",
    "DaskExecutor",
    "SerialBatch",
    "DaskBatch",
    "local_cluster_config",
    "distributed",
    "abandon_local_clusters",
    "resolve_n_jobs",
    "map_in_threads",
]


def resolve_n_jobs(n_jobs, limit: int | None = None) -> int:
    """The number of workers that ``n_jobs`` asks for: a positive count as given, None or -1 one per CPU, -2 all
    CPUs but one, and so on (as scikit-learn); at most ``limit``, at least 1."""
    cpus = os.cpu_count() or 1
    n = cpus if n_jobs is None else int(n_jobs)
    if n < 1:
        n = cpus + 1 + n
    if limit is not None:
        n = min(n, int(limit))
    return max(1, n)


def map_in_threads(fn, items, workers: int) -> list:
    """``[fn(item) for item in items]``, in input order, on ``workers`` threads (a plain loop for one).

    For work that releases the GIL (numpy's gathers, sums and sorts, numba's nogil code): the results do not
    depend on the threads as long as each item's work is its own.
    """
    items = list(items)
    workers = min(int(workers), len(items))
    if workers <= 1:
        return [fn(item) for item in items]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(fn, items))


class ExecutionError(AuditadError, RuntimeError):
    """A task failed on an executor (a worker raised, died or was lost); no partial result is returned."""


#: Rounds in which a batch re-sends the shared data a lost worker held and restarts the tasks that needed it.
_RESUBMITS = 5


def distributed(executor) -> bool:
    """Whether ``executor`` runs tasks in other processes (a Dask executor); False for None and serial."""
    spec = getattr(executor, "spec", None)
    return executor is not None and spec is not None and spec.kind != "serial"


class SerialExecutor:
    """Runs tasks one after the other in this process (``scheduler="serial"``).

    See Also
    --------
    - `DaskExecutor`: the same interface on a Dask cluster.
    """

    spec = SchedulerSpec("serial")
    n_workers = 1

    def __enter__(self) -> "SerialExecutor":
        return self

    def __exit__(self, *exc) -> None:
        return None

    def share(self, obj):
        """An object every task will read (returned as is; see `DaskExecutor.share`)."""
        return obj

    def map_ordered(self, fn, items, **shared) -> list:
        """``[fn(item, **shared) for item in items]``.

        An exception of ``fn`` propagates unchanged (it is raised in this process, with its own traceback).
        """
        return [check_stop() or fn(item, **shared) for item in items]  # check_stop: a safe point between tasks

    def submit_ordered(self, fn, items, *, priority: int = 0, **shared) -> "SerialBatch":
        """Tasks to run later: here they run when `SerialBatch.results` is called (``priority`` is moot)."""
        return SerialBatch(self, fn, list(items), shared)

    def run_everywhere(self, fn, *args) -> None:
        """``fn(*args)`` in this process (the one worker there is; see `DaskExecutor.run_everywhere`)."""
        fn(*args)

    def to_dict(self) -> dict:
        return {**self.spec.to_dict(), "workers": 1}


class DaskExecutor:
    """Runs tasks on a ``dask.distributed`` cluster; results come back in input order.

    Parameters
    ----------
    spec : SchedulerSpec
        ``kind="local"`` starts a ``LocalCluster`` (``n_workers`` processes, one thread each, no dashboard) on
        entry and closes it on exit; ``kind="address"`` connects to an existing scheduler.
    timeout : float
        Seconds to wait for the scheduler (an address) or the cluster (local).
    allowed_failures : int, optional
        How many times a task may kill its worker before it is declared failed (Dask's
        ``distributed.scheduler.allowed-failures``, default 3). Applies to local clusters only (a remote
        scheduler has its own setting).
    worker_wait : float, default 20
        Seconds to wait for a worker when none is left, before failing with `ExecutionError`.
    share_by_path : bool, default True
        Send a memory-mapped array as its file's path when every worker can read it (`share`).

    Notes
    -----
    A task that raises fails the whole map with `ExecutionError` naming the task's position and the worker's
    exception; the other tasks are cancelled and nothing is returned. A worker that dies is restarted by its
    nanny and its task retried up to ``allowed_failures`` times, then the map fails the same way. A worker
    lost for good is survived while one is left: Dask runs its tasks again on the others, and the data shared
    with `share` that only it held is sent again from this process's copy, the tasks that needed it started
    again (up to 5 rounds per map): the same results, in the same order. With no worker left for
    ``worker_wait`` seconds the map fails ("no Dask worker is left").

    See Also
    --------
    - `open_executor`
    - `parse_scheduler`
    """

    def __init__(
        self,
        spec: SchedulerSpec,
        *,
        timeout: float = 10.0,
        allowed_failures: int | None = None,
        worker_wait: float = 20.0,
        share_by_path: bool = True,
    ):
        if spec.kind not in ("local", "address"):
            raise InvalidInputError(f"scheduler= must be a local cluster or an address for Dask, got {str(spec)!r}")
        if not (isinstance(timeout, (int, float)) and timeout > 0):
            raise InvalidInputError(f"timeout must be a positive number of seconds, got {timeout!r}")
        self.spec = spec
        self.timeout = float(timeout)
        self.allowed_failures = allowed_failures
        self.worker_wait, self.share_by_path = float(worker_wait), bool(share_by_path)
        self.client = None
        self.cluster = None
        # key of shared data -> [this process's copy, the future that replaced it or None]; token -> workers read it
        self._copies, self._readable = {}, {}

    @property
    def n_workers(self) -> int:
        if self.client is None:
            return 0
        with self._named_failure("asking for its workers"):
            return len(self.client.scheduler_info().get("workers", {}))

    def __enter__(self) -> "DaskExecutor":
        dd = import_distributed()  # dask.distributed (not the module function distributed())
        import logging

        import dask

        if self.spec.kind == "local":
            cfg = local_cluster_config()
            if self.allowed_failures is not None:
                cfg["distributed.scheduler.allowed-failures"] = int(self.allowed_failures)
            before = local_cluster_ids()
            try:
                with dask.config.set(cfg):
                    self.cluster = dd.LocalCluster(
                        n_workers=self.spec.n_workers,
                        threads_per_worker=1,
                        processes=True,
                        silence_logs=logging.ERROR,
                        dashboard_address=None,
                        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                        # a deep copy of the configuration for every nanny: a nanny's own copy shares the nested
                        # settings with the global configuration, so the workers it restarts after this block
                        # would otherwise start with Dask's defaults (a worker's statistical profiler, ...)
                        config=dask.config.merge(dask.config.config),
                    )  # not *:8787
                self.client = dd.Client(self.cluster, timeout=self.timeout)
            except Exception as exc:  # noqa: BLE001  (process spawning, ports, memory, ...)
                if self.cluster is not None:
                    self.cluster.close()
                    self.cluster = None
                raise ExecutionError(
                    f"could not start a local Dask cluster ({str(self.spec)!r}): {type(exc).__name__}: {exc}"
                ) from exc
            except BaseException:  # Ctrl-C or SIGTERM while the cluster starts: close what exists, quietly
                self.client, self.cluster = None, None
                abandon_local_clusters(before)
                raise
        else:
            probe_scheduler(self.spec.address, timeout=self.timeout)  # bounded: Dask's own handshake is not
            try:
                self.client = dd.Client(self.spec.address, timeout=self.timeout)
            except (OSError, TimeoutError, ValueError) as exc:
                raise InvalidInputError(
                    f"scheduler= {self.spec.address!r} could not be reached within {self.timeout:g} s "
                    f"({type(exc).__name__}: {exc})"
                ) from None
            self._check_versions()
        return self

    def __exit__(self, *exc) -> None:
        self._copies.clear()  # this process's copies of the shared data: nothing will be sent again
        if self.client is not None:
            self.client.close()
            self.client = None
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None

    def _check_versions(self) -> None:
        from . import __version__

        try:
            versions = self.client.run(_worker_version)
        except Exception as exc:  # noqa: BLE001  (anything a remote cluster can raise)
            raise ExecutionError(f"could not query the workers of {self.spec.address!r}: {exc}") from exc
        wrong = {w: v for w, v in versions.items() if v != __version__}
        if wrong:
            w, v = next(iter(wrong.items()))
            raise ExecutionError(
                f"the workers of {self.spec.address!r} run auditad {v} (e.g. {w}), this client {__version__}; "
                "install the same version on the workers"
            )

    def share(self, obj):
        """Send ``obj`` to the cluster once; pass the returned handle as a keyword of `map_ordered`.

        The data goes to one worker (the items of a dict, list or tuple one by one); others copy it when a
        task that needs it runs there. This process keeps its copy while the handle lives, to send it again
        when the worker holding it is lost (Dask's ``broadcast=True`` replication loops forever when a worker
        dies while it copies). A memory-mapped array travels as its file's path
        (`auditad.diskarray.MemmapToken`) when every worker can read the file (on a remote cluster: shared
        storage) unless ``share_by_path=False``.
        """
        self._require_open()
        if type(obj) is dict:
            return {k: self._share_one(v) for k, v in obj.items()}
        if type(obj) in (list, tuple):
            return type(obj)(self._share_one(v) for v in obj)
        return self._share_one(obj)

    def _share_one(self, obj):
        token = memmap_token(obj) if self.share_by_path else None
        if token is not None and readable_everywhere(self.client, token, self._readable):
            return token
        future = self._scatter(obj)
        self._copies[future.key] = [obj, None]
        weakref.finalize(future, self._copies.pop, future.key, None)
        return future

    def _scatter(self, obj):
        """``obj`` scattered to one worker, tried again (bounded) when a worker is lost meanwhile."""
        for attempt in range(3):
            try:  # hash=False: a content key could name data a finished map is releasing; [obj]: one piece
                with self._named_failure("sharing data with the workers"):
                    return self.client.scatter([obj], hash=False)[0]
            except ExecutionError:
                if attempt == 2:
                    raise
                self._wait_for_worker()

    def _live(self, value):
        """``value`` with each shared future that was lost replaced by a live one (sent again from the copy)."""
        dd = import_distributed()
        if type(value) is dict:
            return {k: self._live(v) for k, v in value.items()}
        if type(value) in (list, tuple):
            return type(value)(self._live(v) for v in value)
        entry = self._copies.get(value.key) if isinstance(value, dd.Future) else None
        if entry is None or value.status == "finished":
            return value
        if entry[1] is None or entry[1].status != "finished":
            entry[1] = self._scatter(entry[0])
        return entry[1]

    def _wait_for_worker(self) -> None:
        """Return when the cluster has a running worker; `ExecutionError` when none joins within ``worker_wait`` s.

        Polls the scheduler through the client's own view (``Client.scheduler_info``), never with
        ``Client.wait_for_workers``: for a client made from a cluster object (a local cluster), Dask hands that
        call to ``Cluster.wait_for_workers``, which replaces the cluster's table of workers with snapshots asked
        for over one connection, while the scheduler keeps that table up to date with add/remove events sent
        over another, batched every 5 ms. A snapshot taken just after a worker left arrives before the
        worker's "remove" event, which then finds no entry: the ``KeyError`` (in
        ``SpecCluster._update_worker_status``) ends the cluster's listener, and ``LocalCluster.close()``
        raises it at the end of the run. auditad waits for a worker exactly when one was just lost, so a
        loaded machine hit this (distributed 2023 to 2026.8 at least).
        """
        deadline = time.monotonic() + self.worker_wait
        while True:
            try:
                workers = self.client.scheduler_info().get("workers", {})
            except Exception as exc:  # noqa: BLE001  (a lost scheduler, closed comms, ...)
                raise self.no_worker_error() from exc
            if any(w.get("status", "running") == "running" for w in workers.values()):
                return
            if time.monotonic() >= deadline:
                raise self.no_worker_error()
            time.sleep(0.1)

    def no_worker_error(self) -> ExecutionError:
        """The error of a run that lost every worker (none joined within ``worker_wait`` seconds)."""
        return ExecutionError(
            f"no Dask worker is left on {str(self.spec)!r} (none joined within "
            f"{self.worker_wait:g} s); start workers and run the audit again"
        )

    def map_ordered(self, fn, items, **shared) -> list:
        """``[fn(item, **shared) for item in items]``, computed on the cluster, in input order.

        Raises
        ------
        ExecutionError
            When a task raises, a worker dies too often, or the cluster is lost; the message names the task's
            position, ``fn`` and the cause.
        """
        return self.submit_ordered(fn, items, **shared).results()

    def submit_ordered(self, fn, items, *, priority: int = 0, **shared) -> "DaskBatch":
        """Start ``fn(item, **shared)`` for every item on the cluster and return at once.

        The client can do other work meanwhile (e.g. a neighbour pass whose own query blocks, submitted later
        with a higher ``priority``, go first on the workers); `DaskBatch.results` waits and returns the
        results in input order, exactly as `map_ordered` would.

        Parameters
        ----------
        fn : callable
        items : iterable
        priority : int, default 0
            Dask's task priority: a worker with several ready tasks runs the higher priority first.
        **shared
            Keywords of every call; each travels to the workers once.
        """
        self._require_open()
        dd = import_distributed()
        items = list(items)
        name = getattr(fn, "__name__", type(fn).__name__)
        if not items:
            return DaskBatch(self, [], name)
        # every keyword travels once, as its own scattered piece of data: a large value passed to
        # client.map directly becomes a graph key named after the keyword, which collides between maps
        with self._named_failure(f"starting {name}"):
            try:
                shared = {
                    key: value if _holds_future(value, dd.Future) or holds_token(value) else self._share_one(value)
                    for key, value in shared.items()
                }
            except ExecutionError as exc:  # the data could not be sent: say for which computation
                raise ExecutionError(f"{exc} (while starting {name})") from exc
            if any(holds_token(value) for value in shared.values()):
                fn = functools.partial(call_opened, fn)  # the workers map the files themselves
            batch = DaskBatch(self, [], name, rerun=(fn, items, int(priority), shared))
            batch.futures = self._map(fn, items, int(priority), shared)
            return batch

    def _map(self, fn, items, priority, shared) -> list:
        return self.client.map(
            fn, items, pure=False, priority=priority, **{key: self._live(value) for key, value in shared.items()}
        )

    def run_everywhere(self, fn, *args) -> None:
        """``fn(*args)`` once in every worker process, e.g. to drop data a finished search cached there.

        Housekeeping only: a worker that cannot be reached (it died, the cluster is closing) has nothing left
        to clean, so failures are ignored.
        """
        self._require_open()
        try:
            self.client.run(fn, *args)
        except Exception:  # noqa: BLE001, S110  (a lost worker has no cache left to drop)
            pass

    def _require_open(self) -> None:
        if self.client is None:
            raise ExecutionError("the Dask executor is not open; use it as a context manager (with ...)")

    @contextlib.contextmanager
    def _named_failure(self, doing: str):
        """Turn what a lost worker or scheduler raises in the client (closed comms, timeouts, ...) into an
        `ExecutionError` naming the cluster and what the client was doing."""
        try:
            yield
        except ExecutionError:
            raise
        except Exception as exc:  # noqa: BLE001  (CommClosedError, OSError, TimeoutError, ...)
            raise ExecutionError(
                f"the Dask cluster {str(self.spec)!r} failed while {doing}: {type(exc).__name__}: {exc}"
            ) from exc

    def to_dict(self) -> dict:
        return {**self.spec.to_dict(), "workers": self.n_workers}


class SerialBatch:
    """Tasks of `SerialExecutor.submit_ordered`: they run, in order, when the results are asked for."""

    def __init__(self, executor, fn, items, shared):
        self._run = lambda: executor.map_ordered(fn, items, **shared)

    def results(self) -> list:
        """The results in input order (an exception of a task propagates unchanged)."""
        return self._run()

    def failure(self, wait: float = 2.0):
        """None: tasks run only in [`results`][auditad.results], where their exceptions propagate."""
        return None

    def cancel(self) -> None:
        """Nothing to stop: no task has started."""
        self._run = list


class DaskBatch:
    """Tasks started by `DaskExecutor.submit_ordered`."""

    def __init__(self, executor, futures, name, rerun=None):
        self.executor, self.futures, self.name = executor, futures, name
        self._rerun = rerun  # (fn, items, priority, shared): to start again the tasks a lost worker took along

    def results(self) -> list:
        """Wait for every task; the results in input order (tasks a lost worker took along started again).

        Raises
        ------
        ExecutionError
            When a task raises, a worker dies too often, no worker is left or the cluster is lost; the message
            names the task's position, the function and the cause. The other tasks are cancelled and nothing
            is returned.
        """
        from concurrent.futures import CancelledError

        if not self.futures:
            return []
        try:
            with self.executor._named_failure(f"running {self.name}"):  # lost scheduler, closed comms, ...
                for _ in range(_RESUBMITS + 1):
                    self._wait_done()
                    # the first task (in input order) that raised or killed its worker too often
                    failure = self._first_failure(("error",))
                    if failure is not None:
                        raise failure
                    # a result lost with a worker is computed again meanwhile, gather waits for it; a task whose
                    # shared data went too is cancelled (gather raises at once) and started again below
                    with contextlib.suppress(CancelledError):
                        return self.executor.client.gather(self.futures, errors="raise")
                    self._restart([pos for pos, fut in enumerate(self.futures) if fut.status == "cancelled"])
                pos = next(p for p, fut in enumerate(self.futures) if fut.status != "finished")
                raise ExecutionError(
                    f"task {pos} of {len(self.futures)} ({self.name}) lost its data with a "
                    f"worker {_RESUBMITS + 1} times on {str(self.executor.spec)!r}"
                )
        finally:
            self.cancel()

    def _wait_done(self) -> None:
        """Wait until every task finished, failed or was cancelled; `ExecutionError` when no worker is left."""
        from concurrent.futures import CancelledError

        dd = import_distributed()
        alone_since = None
        while True:
            check_stop()  # a safe point each second while the cluster computes
            try:
                dd.wait(self.futures, timeout=1.0)
                return
            except CancelledError:  # some were cancelled (their shared data was lost), all are done
                return
            except TimeoutError:
                pass
            alone_since = None if self.executor.n_workers > 0 else alone_since or time.monotonic()
            if alone_since is not None and time.monotonic() - alone_since > self.executor.worker_wait:
                raise self.executor.no_worker_error()

    def _restart(self, lost) -> None:
        """Start again the tasks at positions ``lost`` (their shared data sent again where it was lost)."""
        if self._rerun is None or not lost:
            return
        self.executor._wait_for_worker()
        fn, items, priority, shared = self._rerun
        for pos, fut in zip(lost, self.executor._map(fn, [items[p] for p in lost], priority, shared)):
            self.futures[pos] = fut

    def failure(self, wait: float = 2.0):
        """The `ExecutionError` of the first task (in input order) that failed, or None.

        For a caller whose own work failed meanwhile: a task of this batch that killed its worker also loses
        data other work needed, and is the cause to report. Waits up to ``wait`` seconds for the scheduler to
        mark it.
        """
        deadline = time.monotonic() + float(wait)
        while True:
            failure = self._first_failure(("error",))
            if failure is not None or time.monotonic() >= deadline:
                return failure
            time.sleep(0.05)

    def _first_failure(self, states):
        for pos, fut in enumerate(self.futures):
            if fut.status in states:
                exc = fut.exception() if fut.status == "error" else None
                cause = f"{type(exc).__name__}: {exc}" if exc is not None else f"the task was {fut.status}"
                error = ExecutionError(
                    f"task {pos} of {len(self.futures)} ({self.name}) failed on {str(self.executor.spec)!r}: {cause}"
                )
                error.__cause__ = exc
                return error
        return None

    def cancel(self) -> None:
        """Cancel the tasks that have not finished (after `results`, or when the caller gives up)."""
        client = self.executor.client
        pending = [f for f in self.futures if f.status in ("pending", "lost")]
        if pending and client is not None:
            try:
                client.cancel(pending)
            except Exception:  # noqa: BLE001, S110  (a lost cluster has nothing left to run)
                pass


def open_executor(
    scheduler=None,
    *,
    timeout: float = 10.0,
    allowed_failures: int | None = None,
    worker_wait: float = 20.0,
    share_by_path: bool = True,
):
    """The executor for a ``scheduler=`` value, to be used as a context manager.

    Parameters
    ----------
    scheduler : str, SchedulerSpec or None
        See `parse_scheduler` (``None`` = ``"serial"``).
    timeout : float
        Seconds to wait for a scheduler address before giving up.
    allowed_failures : int, optional
        Local clusters: worker deaths tolerated per task (Dask's default 3).
    worker_wait : float, default 20
        Seconds to wait for a worker when none is left (see `DaskExecutor`).
    share_by_path : bool, default True
        Memory-mapped arrays travel by path when the workers read them (`DaskExecutor.share`).

    Returns
    -------
    SerialExecutor or DaskExecutor

    Raises
    ------
    InvalidInputError
        A malformed ``scheduler=``, an address that cannot be reached (on entering the context), or Dask not
        installed for a Dask scheduler.

    See Also
    --------
    - `parse_scheduler`

    References
    ----------
    1. M. Rocklin, "Dask: Parallel Computation with Blocked algorithms and Task Scheduling", SciPy 2015.

    Examples
    --------
    >>> with open_executor("serial") as ex:
    ...     ex.map_ordered(abs, [-2, 1, -3])
    [2, 1, 3]
    """
    spec = parse_scheduler(scheduler)
    if spec.kind == "serial":
        return SerialExecutor()
    import_distributed()
    return DaskExecutor(
        spec, timeout=timeout, allowed_failures=allowed_failures, worker_wait=worker_wait, share_by_path=share_by_path
    )


def _holds_future(value, future_type) -> bool:
    """``value`` is a Future, or a dict/list/tuple holding one (as `DaskExecutor.share` returns)."""
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
    return isinstance(value, future_type) or any(isinstance(v, future_type) for v in items)


def _worker_version() -> str:
    import auditad

    return auditad.__version__
