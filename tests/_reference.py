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


# --------------------------------------------------------------------------- selection (scoring, LID)
def brute_anomaly_scores(R, Q=None, *, scoring="knn", form="reference", k=1, K=2, eps=1e-12):
    """kNN / LDN log-distance scores by full distance matrices.

    ``Q=None`` gives leave-one-out scores: reference sample i is deleted from the
    reference set (so also from every other reference's LDN neighbourhood) and
    then scored as a query.
    """
    R = np.asarray(R, dtype=np.float64)

    def score(ref, q):
        d = np.sqrt(((ref - q) ** 2).sum(axis=1))
        ds = np.sort(d)
        if scoring == "knn":
            return np.log(max(ds[k - 1], eps))
        if form == "query":
            return np.log(max(ds[k - 1], eps)) - np.log(max(ds[:K].mean(), eps))
        D = np.sqrt(((ref[:, None, :] - ref[None, :, :]) ** 2).sum(axis=2))
        np.fill_diagonal(D, np.inf)
        rho = np.sort(D, axis=1)[:, :K].mean(axis=1)
        ratios = np.maximum(d, eps) / np.maximum(rho, eps)
        return np.log(np.sort(ratios)[k - 1])

    if Q is None:
        return np.array([score(np.delete(R, i, axis=0), R[i]) for i in range(R.shape[0])])
    return np.array([score(R, q) for q in np.asarray(Q, dtype=np.float64)])


def brute_lid(X, k):
    """Levina-Bickel MLE per point with a double loop (self excluded)."""
    X = np.asarray(X, dtype=np.float64)
    out = []
    for i in range(X.shape[0]):
        d = np.sort(np.sqrt(((np.delete(X, i, axis=0) - X[i]) ** 2).sum(axis=1)))[:k]
        out.append(1.0 / (sum(np.log(d[k - 1] / d[j]) for j in range(k - 1)) / (k - 1)))
    return np.array(out)
