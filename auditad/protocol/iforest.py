r"""Isolation Forest grown tree by tree on each tree's own subsample.

scikit-learn's ``IsolationForest`` draws ψ rows per tree but hands every tree
the *whole* training set (the drawn rows as non-zero sample weights), so each
of its trees touches all n rows although it grows on ψ = 256. Here each tree
is scikit-learn's own ``ExtraTreeRegressor(max_features=1, splitter="random",
max_depth=⌈log₂ ψ⌉)`` fitted on the ψ drawn rows only, and the score is

\[
s(x) = 2^{-E[h(x)]/c(\psi)},\qquad
h(x) = \text{depth of the leaf of } x + c(n_\text{leaf}),\qquad
c(m) = 2H(m-1) - 2(m-1)/m,
\]

with \(H(i) \approx \ln i + \gamma\) and scikit-learn's conventions
\(c(1) = 0\), \(c(2) = 1\) (F. T. Liu, K. M. Ting, Z.-H. Zhou, "Isolation
Forest", ICDM 2008, Eq. 1–2). The per-tree random numbers are drawn the way
scikit-learn draws them (the seeds of the bagging ensemble, the tree seeds,
the subsample rows and the random targets), so the forest is not only the same
model in distribution but, for an int ``random_state``, the very trees and the
same scores as ``IsolationForest(max_samples=ψ, random_state=...)`` of the
installed scikit-learn, at a cost of O(T·ψ) rows instead of O(T·n).
"""

from __future__ import annotations

import numbers

import numpy as np

from .._rng import seed_int
from .._validation import check_int, describe
from ..errors import InvalidInputError
from ..neighbors import chunk_rows

__all__ = [
    "RowSelection",
    "average_path_length",
    "fit_isolation_trees",
    "isolation_scores",
    "node_depths",
    "resolve_max_samples",
]

#: the bound of the ensemble seeds (scikit-learn's bagging draws them below the int32 maximum)
_MAX_INT = np.iinfo(np.int32).max


class RowSelection:
    """The rows ``rows`` of a matrix ``X``, gathered only when (and where) they are used.

    [`IsolationForestDetector`][auditad.protocol.IsolationForestDetector] receives a task's training rows
    in this form: the forest gathers the T·ψ rows its trees grow on and nothing else, and scoring
    gathers the queries chunk by chunk, always as float32 (the values the trees split on).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Finite float rows (the protocol validates its representations once).
    rows : ndarray of int, optional
        The selected rows; None selects all of ``X``.

    See Also
    --------
    - [`IsolationForestDetector`][auditad.protocol.IsolationForestDetector]: the detector that uses it.

    Examples
    --------
    >>> import numpy as np
    >>> sel = RowSelection(np.arange(6.0).reshape(3, 2), np.array([2, 0]))
    >>> sel.shape, sel.take(np.array([1])).tolist()
    ((2, 2), [[0.0, 1.0]])
    """

    def __init__(self, X: np.ndarray, rows: np.ndarray | None = None):
        self.X = X
        self.rows = None if rows is None else np.asarray(rows, dtype=np.intp)

    @property
    def shape(self) -> tuple[int, int]:
        """``(number of selected rows, number of columns)``."""
        n = self.X.shape[0] if self.rows is None else self.rows.size
        return (int(n), int(self.X.shape[1]))

    def __len__(self) -> int:
        return self.shape[0]

    def take(self, positions: np.ndarray) -> np.ndarray:
        """The selected rows at ``positions`` as a C-contiguous float32 array."""
        positions = np.asarray(positions, dtype=np.intp)
        index = positions if self.rows is None else self.rows[positions]
        return np.ascontiguousarray(self.X[index], dtype=np.float32)

    def chunks(self):
        """``(slice, float32 rows)`` of consecutive blocks of about 16 MB."""
        n, d = self.shape
        step = chunk_rows(d)
        for a in range(0, n, step):
            b = min(n, a + step)
            if self.rows is None:
                yield slice(a, b), np.ascontiguousarray(self.X[a:b], dtype=np.float32)
            else:
                yield slice(a, b), self.take(np.arange(a, b))

    def __array__(self, dtype=None, copy=None):
        out = self.take(np.arange(self.shape[0]))
        return out if dtype is None else out.astype(dtype, copy=False)


def average_path_length(n) -> np.ndarray:
    r"""\(c(m)\), the average path length of an unsuccessful search in a binary search tree of m points.

    \(c(m) = 2(\ln(m-1) + \gamma) - 2(m-1)/m\) for m > 2, \(c(2) = 1\), \(c(m) = 0\) for m ≤ 1: the
    correction added at a leaf holding m training rows, and the normaliser \(c(\psi)\) of the score; the
    same operations as scikit-learn's ``IsolationForest`` (so the same bits).

    Parameters
    ----------
    n : int or array-like of int

    Returns
    -------
    ndarray of float64, the shape of ``n``

    See Also
    --------
    - [`IsolationForestDetector`][auditad.protocol.IsolationForestDetector]: the detector built on it.

    References
    ----------
    1. F. T. Liu, K. M. Ting, Z.-H. Zhou, "Isolation Forest", IEEE ICDM 2008, Eq. 1.

    Examples
    --------
    >>> average_path_length([1, 2, 256]).round(4).tolist()
    [0.0, 1.0, 10.2448]
    """
    m = np.asarray(n)
    out = np.zeros(m.shape)
    big = m > 2
    out[m == 2] = 1.0
    out[big] = 2.0 * (np.log(m[big] - 1.0) + np.euler_gamma) - 2.0 * (m[big] - 1.0) / m[big]
    return out


def node_depths(tree_) -> np.ndarray:
    """Depth of every node of a fitted scikit-learn tree, the root at depth 1 (int64).

    scikit-learn's ``Tree.compute_node_depths`` where it exists (1.3 and later), else the same from
    the child arrays (the depth-first builder numbers every child after its parent).

    Parameters
    ----------
    tree_ : sklearn.tree._tree.Tree
        The ``tree_`` attribute of a fitted tree.

    Returns
    -------
    ndarray of int64, shape (node_count,)

    See Also
    --------
    - [`IsolationForestDetector`][auditad.protocol.IsolationForestDetector]: adds these depths per leaf.
    """
    compute = getattr(tree_, "compute_node_depths", None)
    if callable(compute):
        return np.asarray(compute(), dtype=np.int64)
    left, right = np.asarray(tree_.children_left), np.asarray(tree_.children_right)
    depth = np.ones(int(tree_.node_count), dtype=np.int64)
    for node in range(int(tree_.node_count)):
        if left[node] != -1:
            depth[left[node]] = depth[right[node]] = depth[node] + 1
    return depth


def resolve_max_samples(max_samples, n: int) -> int:
    """ψ, the rows per tree: ``"auto"`` -> min(256, n); an int -> min(int, n); a float f in (0, 1] -> ⌊f·n⌋.

    As scikit-learn's ``IsolationForest`` (which also warns when an int exceeds n; here ψ = n silently,
    since small classes are common in a class-split protocol).

    Parameters
    ----------
    max_samples : "auto", int or float
    n : int
        Training rows.

    Returns
    -------
    int

    See Also
    --------
    - [`IsolationForestDetector`][auditad.protocol.IsolationForestDetector]: its ``max_samples`` parameter.

    Examples
    --------
    >>> resolve_max_samples("auto", 100), resolve_max_samples(64, 1000), resolve_max_samples(0.5, 1000)
    (100, 64, 500)
    """
    if isinstance(max_samples, str) and max_samples == "auto":
        return min(256, int(n))
    if isinstance(max_samples, numbers.Integral) and not isinstance(max_samples, bool):
        if int(max_samples) < 1:
            raise InvalidInputError(f"max_samples must be >= 1, got {max_samples!r}")
        return min(int(max_samples), int(n))
    if isinstance(max_samples, numbers.Real) and not isinstance(max_samples, bool):
        if not 0.0 < float(max_samples) <= 1.0:
            raise InvalidInputError(f"max_samples as a fraction must be in (0, 1], got {max_samples!r}")
        psi = int(float(max_samples) * int(n))
        if psi < 1:
            raise InvalidInputError(f"max_samples={max_samples!r} of {n} training rows draws no row per tree")
        return psi
    raise InvalidInputError(
        f"max_samples must be 'auto', an int >= 1 or a float in (0, 1], got {describe(max_samples)}"
    )


def _ensemble_draws(random_state, n: int, n_estimators: int):
    """The random targets of the n rows and the ensemble seeds, drawn as scikit-learn's ``IsolationForest.fit``
    draws them (the targets first; with an int both streams start from the seed)."""
    from sklearn.utils import check_random_state

    if isinstance(random_state, np.random.Generator):
        random_state = seed_int(random_state)
    elif random_state is not None and not isinstance(random_state, np.random.RandomState):
        if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral) or random_state < 0:
            raise InvalidInputError(
                f"random_state must be None, a non-negative int or a numpy random generator, "
                f"got {describe(random_state)}"
            )
        random_state = int(random_state)
    targets = check_random_state(random_state).uniform(size=n)
    seeds = check_random_state(random_state).randint(_MAX_INT, size=n_estimators)
    return targets, seeds


def _tree_draws(stream: np.random.RandomState, seed, n: int, n_features: int, psi: int) -> tuple[int, np.ndarray]:
    """The tree seed and the sorted subsample rows of one ensemble seed, as scikit-learn's bagging draws them:
    the tree seed is the first number of a stream seeded with ``seed``; a second such stream draws a permutation
    of all features (no number is consumed), then ψ of the n rows without replacement. ``stream`` is reseeded
    (constructing a RandomState costs ~0.2 ms, reseeding one ~5 µs)."""
    from sklearn.utils.random import sample_without_replacement

    stream.seed(seed)
    tree_seed = int(stream.randint(_MAX_INT))
    stream.seed(seed)
    sample_without_replacement(n_features, n_features, random_state=stream)
    if psi / n <= 0.01:  # scikit-learn's "tracking selection" there, one Python call per number: vectorised
        return tree_seed, _tracking_selection(stream, n, psi)
    return tree_seed, np.sort(sample_without_replacement(n, psi, random_state=stream))


def _tracking_selection(stream: np.random.RandomState, n: int, psi: int) -> np.ndarray:
    """The sorted first ψ distinct numbers of ``stream.randint(n)`` draws: the rows scikit-learn's tracking
    selection keeps (it redraws a number already drawn); the draws come in blocks, the same stream."""
    drawn = np.empty(0, dtype=np.int64)
    while True:
        drawn = np.concatenate([drawn, stream.randint(n, size=psi + 32)])
        _, first = np.unique(drawn, return_index=True)
        if first.size >= psi:
            return np.sort(drawn[np.sort(first)[:psi]])


def fit_isolation_trees(X, n_estimators: int, max_samples="auto", random_state=None):
    """Fit an isolation forest whose every tree sees only its own ψ rows.

    Parameters
    ----------
    X : ndarray of shape (n, d) or RowSelection
        Finite training rows (only the drawn rows are read; they are fitted as float32).
    n_estimators : int
        Trees T.
    max_samples : "auto", int or float
        ψ by `resolve_max_samples`.
    random_state : None, int, numpy.random.RandomState or numpy.random.Generator
        The draws of scikit-learn's ``IsolationForest`` with the same value (a Generator
        gives an int seed first).

    Returns
    -------
    trees : list of sklearn.tree.ExtraTreeRegressor
    node_values : list of ndarray
        Per tree and node, depth − 1 + c(rows in the node): h(x) of a point that ends in that leaf.
    psi : int

    See Also
    --------
    - `isolation_scores`: the scores of the fitted trees.
    - [`IsolationForestDetector`][auditad.protocol.IsolationForestDetector]: the detector built on them.

    References
    ----------
    1. F. T. Liu, K. M. Ting, Z.-H. Zhou, "Isolation Forest", IEEE ICDM 2008, Algorithms 1–2.
    """
    from sklearn import config_context
    from sklearn.tree import ExtraTreeRegressor

    sel = X if isinstance(X, RowSelection) else RowSelection(X)
    n, d = sel.shape
    T = check_int(n_estimators, name="n_estimators", low=1)
    psi = resolve_max_samples(max_samples, n)
    depth = int(np.ceil(np.log2(max(psi, 2))))
    targets, seeds = _ensemble_draws(random_state, n, T)
    trees, node_values, stream = [], [], np.random.RandomState(0)
    with config_context(skip_parameter_validation=True):  # the parameters below are fixed and valid
        for seed in seeds:
            tree_seed, rows = _tree_draws(stream, seed, n, d, psi)
            rows_x = sel.take(rows)
            if not np.isfinite(rows_x).all():
                raise InvalidInputError("X has NaN or infinite entries in the rows drawn for a tree")
            stream.seed(tree_seed)  # the stream the tree would seed from tree_seed, without a new RandomState
            tree = ExtraTreeRegressor(max_features=1, splitter="random", max_depth=depth, random_state=stream)
            tree.fit(rows_x, targets[rows], check_input=False)
            tree.random_state = tree_seed
            trees.append(tree)
            node_values.append(node_depths(tree.tree_) + average_path_length(tree.tree_.n_node_samples) - 1.0)
    return trees, node_values, psi


def isolation_scores(trees, node_values, psi: int, X) -> np.ndarray:
    r"""Anomaly scores \(2^{-E[h(x)]/c(\psi)}\) of the rows of ``X`` (higher = more anomalous).

    The rows are scored in chunks of about 16 MB as float32; per row the path lengths are summed tree by
    tree in the forest's order, as scikit-learn does, so the result has the same bits as
    ``-IsolationForest.score_samples`` on the same trees. With \(c(\psi) = 0\) (one training row) every
    score is ½, as there.

    Parameters
    ----------
    trees, node_values, psi
        As returned by `fit_isolation_trees`.
    X : ndarray of shape (m, d) or RowSelection

    Returns
    -------
    ndarray of float64, shape (m,)

    See Also
    --------
    - `fit_isolation_trees`: fits the trees.
    """
    sel = X if isinstance(X, RowSelection) else RowSelection(X)
    depths = np.zeros(sel.shape[0])
    for part, rows_x in sel.chunks():
        if not np.isfinite(rows_x).all():
            raise InvalidInputError("X has NaN or infinite entries in the rows to score")
        acc = np.zeros(rows_x.shape[0])
        for tree, values in zip(trees, node_values):
            acc += values[tree.apply(rows_x, check_input=False)]
        depths[part] = acc
    denominator = len(trees) * average_path_length([psi])
    return 2 ** (-np.divide(depths, denominator, out=np.ones_like(depths), where=denominator != 0))
