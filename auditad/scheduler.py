"""What a ``scheduler=`` value names, and the local Dask clusters auditad starts.

This module holds the scheduler side of `auditad.execution` (which re-exports its public names):

- `parse_scheduler` reads a ``scheduler=`` value (``"serial"``, ``"local"``, ``"local:N"`` or a Dask scheduler
  address such as ``"tcp://host:8786"``) into a `SchedulerSpec`; `SCHEDULERS` lists the kinds it accepts.
- `probe_scheduler` checks, bounded in time and size, that a ``tcp://`` address answers like a Dask scheduler.
- `local_cluster_config` holds the Dask settings of the local clusters auditad starts; `local_cluster_ids` and
  `abandon_local_clusters` find and quietly close those a signal caught half-started.
- `import_distributed` imports ``dask.distributed``, with a named error when it is not installed.

The executors that run the tasks (`auditad.execution.SerialExecutor`, `auditad.execution.DaskExecutor`) and
`auditad.execution.open_executor` live in `auditad.execution`.

References
----------
1. M. Rocklin, "Dask: Parallel Computation with Blocked algorithms and Task Scheduling", Proceedings of the
   14th Python in Science Conference (SciPy 2015), pp. 126-132.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass

from .errors import InvalidInputError

__all__ = [
    "SCHEDULERS",
    "SchedulerSpec",
    "parse_scheduler",
    "probe_scheduler",
    "local_cluster_config",
    "local_cluster_ids",
    "abandon_local_clusters",
    "import_distributed",
]

#: The kinds of ``scheduler=`` value `parse_scheduler` accepts.
SCHEDULERS = ("serial", "local", "local:N", "tcp://host:port")

_ADDRESS = re.compile(r"^(tcp|tls|ucx|ws|wss)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?/?$")
_LOCAL = re.compile(r"^local(?::(\d+))?$")
_HELP = "'serial', 'local', 'local:N' (N >= 1 worker processes) or a Dask scheduler address such as 'tcp://host:8786'"


@dataclass(frozen=True)
class SchedulerSpec:
    """A parsed ``scheduler=`` value.

    Attributes
    ----------
    kind : {"serial", "local", "address"}
    n_workers : int or None
        Worker processes of a local cluster (``None`` otherwise).
    address : str or None
        Scheduler address of an existing cluster (``None`` otherwise).
    """

    kind: str
    n_workers: int | None = None
    address: str | None = None

    def __str__(self) -> str:
        if self.kind == "local":
            return f"local:{self.n_workers}"
        return self.address if self.kind == "address" else "serial"

    def to_dict(self) -> dict:
        return {"scheduler": str(self), "kind": self.kind, "n_workers": self.n_workers, "address": self.address}


def parse_scheduler(text) -> SchedulerSpec:
    """Parse a ``scheduler=`` value.

    Parameters
    ----------
    text : str or None
        ``"serial"`` (or ``None``), ``"local"`` (one worker per CPU), ``"local:N"`` with ``N >= 1``, or a Dask
        scheduler address ``scheme://host[:port]`` with scheme tcp, tls, ucx, ws or wss; white space around it
        is ignored.

    Returns
    -------
    SchedulerSpec

    Raises
    ------
    InvalidInputError
        For anything else; the message names ``scheduler=`` and the value.

    See Also
    --------
    - `auditad.execution.open_executor`: the executor for a parsed value.

    References
    ----------
    1. M. Rocklin, "Dask: Parallel Computation with Blocked algorithms and Task Scheduling", SciPy 2015.

    Examples
    --------
    >>> parse_scheduler("local:2")
    SchedulerSpec(kind='local', n_workers=2, address=None)
    >>> str(parse_scheduler("tcp://10.0.0.5:8786"))
    'tcp://10.0.0.5:8786'
    """
    if text is None:
        return SchedulerSpec("serial")
    if isinstance(text, SchedulerSpec):
        return text
    if not isinstance(text, str):
        raise InvalidInputError(f"scheduler= must be a string ({_HELP}), got {text!r}")
    value = text.strip()
    if value == "serial":
        return SchedulerSpec("serial")
    m = _LOCAL.match(value)
    if m:
        n = int(m.group(1)) if m.group(1) is not None else (os.cpu_count() or 1)
        if n < 1:
            raise InvalidInputError(f"scheduler= must be {_HELP}; got {text!r} (a local cluster needs N >= 1)")
        return SchedulerSpec("local", n_workers=n)
    m = _ADDRESS.match(value)
    if m and (m.group(3) is None or 1 <= int(m.group(3)) <= 65535):
        return SchedulerSpec("address", address=value.rstrip("/"))
    raise InvalidInputError(f"scheduler= must be {_HELP}; got {text!r}")


#: Largest greeting a Dask scheduler is believed to send (its handshake is ~60 bytes of msgpack).
_GREETING_MAX = 65_536


def probe_scheduler(address: str, *, timeout: float = 10.0) -> None:
    """Check that a ``tcp://`` address answers like a Dask scheduler, within ``timeout`` seconds in all.

    A Dask scheduler greets every new connection at once with its handshake: an 8-byte little-endian length,
    then at most a few hundred bytes of msgpack naming ``compression`` and ``pickle-protocol``. Dask's client
    waits for that greeting without a time limit and allocates whatever length the first 8 bytes declare, so a
    port held by another service (an HTTP server waits for a request and says nothing; a service that sends
    other bytes declares an absurd length) would hang the run or fail deep inside Dask. This probe reads the
    greeting itself, bounded in time and size, and closes the connection. Other schemes (tls, ucx, ws) are
    left to Dask.

    Raises
    ------
    InvalidInputError
        Naming ``scheduler=``, the address and what it answered (nothing, a closed connection, or the first
        bytes it sent).
    """
    import socket
    import struct

    m = _ADDRESS.match(address or "")
    if m is None or m.group(1) != "tcp":
        return
    host, port = m.group(2).strip("[]"), int(m.group(3) or 8786)
    deadline = time.monotonic() + timeout
    where = f"scheduler= {address!r}"
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:  # refused, unreachable, unknown host, timed out
        raise InvalidInputError(
            f"{where} could not be reached within {timeout:g} s ({type(exc).__name__}: {exc})"
        ) from None
    data, closed = b"", False
    try:
        with sock:
            while True:
                need = 8 + (struct.unpack("<Q", data[:8])[0] if len(data) >= 8 else 0)
                if len(data) >= 8 and (need > 8 + _GREETING_MAX or len(data) >= need):
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                sock.settimeout(left)
                try:
                    chunk = sock.recv(4096)
                except (socket.timeout, TimeoutError):
                    break
                if not chunk:
                    closed = True
                    break
                data += chunk
    except OSError as exc:
        raise InvalidInputError(
            f"{where}: the connection failed during the Dask handshake ({type(exc).__name__}: {exc})"
        ) from None
    declared = struct.unpack("<Q", data[:8])[0] if len(data) >= 8 else None
    if (
        declared is not None
        and declared <= _GREETING_MAX
        and len(data) >= 8 + declared
        and (b"pickle-protocol" in data or b"compression" in data)
    ):
        return
    if not data:
        answered = (
            "closed the connection without sending anything"
            if closed
            else f"accepted the connection but sent nothing within {timeout:g} s"
        )
    else:
        answered = f"answered {data[:24]!r}{'...' if len(data) > 24 else ''}"
        if declared is not None and declared > _GREETING_MAX:
            answered += f" (read as a Dask message of {declared:.3g} bytes)"
    raise InvalidInputError(
        f"{where} is not a Dask scheduler (it {answered}; a Dask scheduler greets every "
        "connection at once with its handshake): is this the scheduler's port (default 8786)?"
    )


def local_cluster_config() -> dict:
    """The Dask settings of the local clusters auditad starts (on top of the user's Dask configuration).

    Measured on 2 cores (exact kNN blocks of 12 500 queries × 100 000 rows × 128 dimensions, one per worker,
    6.7 s of CPU each in a plain process):

    * ``distributed.nanny.pre-spawn-environ`` without ``MALLOC_TRIM_THRESHOLD_``: Dask sets glibc's
      trim threshold to 64 kB, which makes every large temporary array a fresh ``mmap`` whose pages fault in
      again (7.6 s of CPU per block instead of 6.7 s). The one-thread BLAS settings are kept.
    * ``distributed.worker.profile.enabled: False``: the workers' statistical profiler samples every
      thread every 10 ms, holding the GIL (an idle worker used 3.5 % of a core); it only feeds the dashboard,
      which auditad does not start.
    * ``distributed.admin.tick.interval`` 1 s and ``distributed.admin.system-monitor.interval`` 5 s
      (from 20 ms and 0.5 s): the event loops' bookkeeping, 5 % of a core in the client.
    * ``distributed.scheduler.active-memory-manager.start: False``: shared data (`DaskExecutor.share`)
      goes to one worker and the others fetch a copy when they first need it. The memory manager's default
      policy drops, every 2 s, the copies that no waiting task needs (as between two searches of a pass, while
      the client re-ranks), so the next search fetches them again. Without it the copies go when the client
      releases the data. (The default audit at 100 000 × 128: +9.6 % wall against serial with the manager,
      +5.5 % and +0.9 % in two runs without.)

    With the first three an idle ``local:2`` cluster uses 0.12 s of CPU in 10 s (1.24 s with Dask's defaults).
    """
    import dask

    import_distributed()  # loads the distributed.* defaults into dask.config
    env = dict(dask.config.get("distributed.nanny.pre-spawn-environ", default={}) or {})
    env.pop("MALLOC_TRIM_THRESHOLD_", None)
    return {
        "distributed.nanny.pre-spawn-environ": env,
        "distributed.worker.profile.enabled": False,
        "distributed.admin.tick.interval": "1s",
        "distributed.admin.system-monitor.interval": "5s",
        "distributed.scheduler.active-memory-manager.start": False,
    }


def local_cluster_ids() -> set:
    """Ids of the Dask clusters of this process (none when dask.distributed was never imported).

    Returns
    -------
    set of int
        ``id()`` of every Dask ``SpecCluster`` (e.g. a ``LocalCluster``) alive in this process; an executor
        notes them before it starts a cluster, to spare them in `abandon_local_clusters` (its ``keep``).

    See Also
    --------
    - `abandon_local_clusters`: closes the clusters whose ids are not kept.
    """
    import sys

    spec = sys.modules.get("distributed.deploy.spec")
    return {id(c) for c in list(spec.SpecCluster._instances)} if spec is not None else set()


def abandon_local_clusters(keep: set | None = None, *, timeout: float = 3.0, ending: bool = False) -> None:
    """Close, without a word, the Dask clusters of this process that a signal caught half-started.

    A SIGTERM or Ctrl-C while ``LocalCluster`` starts leaves a cluster whose workers are still starting;
    Dask's exit handler then fails to close it (``Status.init``) and prints a 29-line traceback after
    auditad's last line. This closes each such cluster (but those whose ids are in ``keep``) within
    ``timeout`` seconds, ignoring what the close raises, and takes it out of the exit handler's list.
    ``ending=True`` (the process is about to exit) also silences the loggers of Dask, asyncio and tornado,
    whose half-started tasks fail as the process ends. Nothing happens without Dask imported.
    """
    import logging
    import sys

    spec = sys.modules.get("distributed.deploy.spec")
    if spec is None:
        return
    if ending:
        for name in ("distributed", "asyncio", "tornado"):
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    for cluster in list(spec.SpecCluster._instances):
        if keep is not None and id(cluster) in keep:
            continue
        try:
            cluster.close(timeout=timeout)
        except BaseException:  # noqa: BLE001, S110  (a half-started cluster fails its own close checks)
            pass
        cluster.shutdown_on_close = False
        spec.SpecCluster._instances.discard(cluster)


def import_distributed():
    """Import ``dask.distributed``, which every scheduler but ``"serial"`` needs.

    Returns
    -------
    module
        The ``distributed`` package (not to be confused with `auditad.execution.distributed`).

    Raises
    ------
    InvalidInputError
        When dask.distributed is not installed; the message says how to install it.

    See Also
    --------
    - `auditad.execution.open_executor`: imports it before it returns a Dask executor.
    """
    try:
        import distributed
    except ImportError:
        raise InvalidInputError(
            "scheduler= other than 'serial' needs dask.distributed, which is not installed; "
            "install it with: pip install 'auditad[distributed]'"
        ) from None
    return distributed
