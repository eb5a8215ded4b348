"""Slow, obviously-correct reference implementations used as test oracles.

Each helper is written for clarity, not speed, and shares no code with auditad.
"""

import numpy as np


def brute_knn(X, Q=None, k=1):
    """k nearest neighbours by full float64 distance matrix; ties broken by index; self excluded when Q is None."""
    X = np.asarray(X, dtype=np.float64)
    self_search = Q is None
    Q = X if self_search else np.asarray(Q, dtype=np.float64)
    idx = np.empty((Q.shape[0], k), dtype=np.int64)
    dist = np.empty((Q.shape[0], k))
    for i in range(Q.shape[0]):
        d = np.sqrt(((X - Q[i]) ** 2).sum(axis=1))
        order = sorted(range(X.shape[0]), key=lambda j: (d[j], j))
        if self_search:
            order = [j for j in order if j != i]
        idx[i] = order[:k]
        dist[i] = d[order[:k]]
    return idx, dist


def brute_leakage(X, y, k):
    """L_k and per-sample leakage by an explicit double loop."""
    idx, _ = brute_knn(X, None, k)
    y = np.asarray(y)
    per = np.array([sum(y[j] != y[i] for j in idx[i]) / k for i in range(len(y))])
    return per.mean(), per
