"""Queries of an NN-descent index (pynndescent) in fixed blocks, on several processes when asked.

pynndescent answers a batch of queries on one thread, and its own threaded batch search is not
reproducible (its queries share one random stream across threads: on 60 000 × 32 rows, 304 of 20 000
lists differed between two runs with the same seed). Each call of its search starts from the index's
random state and advances it query by query, so a query's candidates depend on the queries before it in
the same call. Answering the queries in fixed blocks of `QUERY_BLOCK_ROWS` makes every block's answer
depend on the block alone: the blocks can then go to forked processes, which share the index's memory
with this one (copy-on-write, nothing is sent), and the result is the same bit for bit whatever the
number of processes.
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
import warnings

import numpy as np

from ..execution import resolve_n_jobs

__all__ = ["QUERY_BLOCK_ROWS", "query_in_blocks", "query_processes"]

#: Queries per call of pynndescent's search (a batch of at most this many is one call, as before blocks).
QUERY_BLOCK_ROWS = 8192

# (index, float32 queries, k) of the search under way: what the forked processes read (set before the fork)
_FORKED = None


def query_processes(n_jobs, n_blocks: int) -> int:
    """Processes for ``n_blocks`` blocks: ``n_jobs`` (None or -1 = every CPU, -2 = all but one, ...), at most one
    per block; 1 where processes cannot share the index by forking (not Linux)."""
    if not sys.platform.startswith("linux"):
        return 1
    return resolve_n_jobs(n_jobs, n_blocks)


def _worker_signals():
    """Start of a forked worker: SIGTERM back to its default action, SIGINT ignored.

    The fork copies this process's Python signal handlers. Under the command line these record SIGTERM
    (`auditad.cli.terminal.SignalGuard`) instead of ending the process, so the SIGTERM with which the pool
    ends a worker still waiting for work would be recorded, and joining it would wait forever. Ctrl-C
    reaches the parent, which ends the pool."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _block(bounds):
    index, Q32, k = _FORKED
    return np.array(index.query(Q32[bounds[0] : bounds[1]], k=k)[0], dtype=np.int64)


def query_in_blocks(index, Q32: np.ndarray, k: int, n_jobs=1) -> np.ndarray:
    """``index.query(Q32, k)``'s candidate indices (int64, (m, k)), the queries answered in fixed blocks.

    Parameters
    ----------
    index : pynndescent.NNDescent
        A built index (its search prepared).
    Q32 : ndarray of shape (m, d), float32
    k : int
    n_jobs : int or None
        Processes (forked from this one) that answer the blocks; the result does not depend on it.
    """
    global _FORKED
    m = Q32.shape[0]
    blocks = [(a, min(a + QUERY_BLOCK_ROWS, m)) for a in range(0, m, QUERY_BLOCK_ROWS)]
    workers = query_processes(n_jobs, len(blocks))
    _FORKED = (index, Q32, int(k))
    try:
        if workers == 1:
            parts = [_block(b) for b in blocks]
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # (fork of a process with threads, Python 3.12+)
                with multiprocessing.get_context("fork").Pool(workers, initializer=_worker_signals) as pool:
                    parts = pool.map(_block, blocks, chunksize=1)
                    pool.close()  # the workers end on the pool's own sentinels, not on a signal
                    pool.join()
    finally:
        _FORKED = None
    return np.concatenate(parts) if parts else np.empty((0, int(k)), dtype=np.int64)
