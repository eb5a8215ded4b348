"""Neighbourhood class leakage L_k ("Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection").

How much the semantic classes of a class-split benchmark overlap in a
representation space: the share of each sample's k nearest neighbours that
carry another class label.  A high L_k warns that a "K−1 vs 1" protocol on
this representation probes overlapping geometry rather than semantic novelty.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .neighbors import kneighbors
from ._validation import check_embeddings, check_int, check_labels, check_same_length
from .errors import InvalidInputError

__all__ = ["LeakageResult", "leakage", "CONFUSION_DENSE_MAX_CLASSES"]

#: Largest class count for which ``LeakageResult.to_dict()`` holds the dense K × K confusion
#: matrix and ``confusion_frame()`` returns the square table.  Above it the dictionary's
#: ``confusion`` is an empty list (use `LeakageResult.top_confusions` or
#: ``confusion_frame(long=True)``), so the summary stays O(K) in size.
CONFUSION_DENSE_MAX_CLASSES = 100


@dataclass(frozen=True)
class LeakageResult:
    """Neighbourhood class leakage of one labelled embedding set.

    Attributes
    ----------
    ks : tuple of int
        Neighbour counts, in the order given; ``k`` (= ``ks[0]``) is the primary one.
    classes : ndarray
        Sorted unique class labels.
    class_sizes : ndarray of int
        Samples per class, aligned with ``classes``.
    per_sample : ndarray of shape (n, len(ks))
        ℓ_k(i) for each sample and each k.
    L : ndarray of shape (len(ks),)
        L_k for each k.
    per_class : ndarray of shape (n_classes, len(ks))
        L_k(c): mean of ℓ_k over the samples of class c.
    confusion_sparse : scipy.sparse.csr_array of shape (n_classes, n_classes)
        At the primary k: M[c, c'] = share of class c's neighbour slots that
        fall in class c' (rows sum to 1); at most n·k non-zeros, so memory is
        O(n·k + K) whatever the number of classes.  [`confusion`][auditad.leakage.LeakageResult.confusion] is its
        dense form (K × K, built on request).
    chance_per_sample : ndarray of shape (n,)
        (n − n_{y_i}) / (n − 1): the leakage expected if neighbours were drawn
        at random.
    metric, backend : str
        Distance and the kNN backend that ran.
    recall : float or None
        Measured recall of the approximate backend (None for exact search).
    neighbors : NeighborsResult or None
        The neighbour lists the leakage was computed from (``max(ks)`` neighbours per sample),
        kept only with ``leakage(..., keep_neighbors=True)`` so that other diagnostics (e.g.
        `auditad.duplicates.find_duplicates`) reuse them without a second search.

    See Also
    --------
    - [`leakage`][auditad.leakage.leakage]: computes it.
    - `auditad.plotting.plot_leakage_curve`: L_k against k.

    References
    ----------
    "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    """

    ks: tuple
    classes: np.ndarray
    class_sizes: np.ndarray
    per_sample: np.ndarray = field(repr=False)
    L: np.ndarray
    per_class: np.ndarray
    confusion_sparse: object = field(repr=False)
    chance_per_sample: np.ndarray = field(repr=False)
    metric: str
    backend: str
    recall: float | None = None
    neighbors: object = field(default=None, repr=False)

    # ------------------------------------------------------------------ accessors
    @property
    def k(self) -> int:
        """The primary neighbour count."""
        return int(self.ks[0])

    @property
    def L_k(self) -> float:
        """L_k at the primary k."""
        return float(self.L[0])

    @property
    def confusion(self) -> np.ndarray:
        """Dense K × K confusion matrix at the primary k (rows sum to 1); K² memory, built on each access."""
        return self.confusion_sparse.toarray()

    def top_confusions(self, n: int | None = 20):
        """The largest off-diagonal confusion shares: which classes' neighbours fall in which other class.

        Parameters
        ----------
        n : int or None
            Rows to return (None = every non-zero off-diagonal entry).

        Returns
        -------
        pandas.DataFrame
            Columns ``class``, ``neighbour_class``, ``share`` (M[c, c']), sorted by share,
            then by class order.
        """
        frame = self.confusion_frame(long=True)
        frame = frame[frame["class"] != frame["neighbour_class"]]
        frame = frame.sort_values("share", ascending=False, kind="stable").reset_index(drop=True)
        return frame if n is None else frame.head(check_int(n, name="n", low=0))

    @property
    def per_class_leakage(self) -> np.ndarray:
        """L_k(c) at the primary k, aligned with ``classes``."""
        return self.per_class[:, 0]

    @property
    def chance(self) -> float:
        """Mean chance level: the L_k of randomly drawn neighbours."""
        return float(self.chance_per_sample.mean())

    @property
    def chance_per_class(self) -> np.ndarray:
        """Chance level per class, (n − n_c)/(n − 1)."""
        n = int(self.class_sizes.sum())
        return (n - self.class_sizes) / (n - 1)

    @property
    def ratio_to_chance(self) -> float:
        """L_k / chance: 1 means the geometry does not separate the classes at all."""
        return self.L_k / self.chance if self.chance > 0 else float("nan")

    def leakage_at(self, k: int) -> float:
        """L_k for one of the computed ``ks``."""
        if k not in self.ks:
            raise InvalidInputError(f"k={k!r} was not computed; available ks: {list(self.ks)}")
        return float(self.L[self.ks.index(k)])

    # ------------------------------------------------------------------ export
    def per_class_frame(self):
        """Tidy table: one row per (class, k) with leakage, size and chance level."""
        import pandas as pd

        rows = []
        for ci, c in enumerate(self.classes):
            for j, k in enumerate(self.ks):
                rows.append(
                    {
                        "class": _plain(c),
                        "k": int(k),
                        "n": int(self.class_sizes[ci]),
                        "leakage": float(self.per_class[ci, j]),
                        "chance": float(self.chance_per_class[ci]),
                    }
                )
        return pd.DataFrame(rows)

    def confusion_frame(self, *, long: bool = False):
        """The class-confusion matrix at the primary k as a labelled DataFrame.

        Parameters
        ----------
        long : bool
            False: the square K × K table (refused above ``CONFUSION_DENSE_MAX_CLASSES``
            classes); True: one row per non-zero entry with columns ``class``,
            ``neighbour_class``, ``share`` (row-major order), O(n·k) rows at most.
        """
        import pandas as pd

        labels = np.array([_plain(c) for c in self.classes], dtype=object)
        if long:
            coo = self.confusion_sparse.tocoo()
            order = np.lexsort((coo.col, coo.row))
            return pd.DataFrame(
                {
                    "class": labels[coo.row[order]],
                    "neighbour_class": labels[coo.col[order]],
                    "share": coo.data[order].astype(float),
                }
            )
        if self.classes.size > CONFUSION_DENSE_MAX_CLASSES:
            raise InvalidInputError(
                f"the square confusion table of {self.classes.size} classes is too large "
                f"(more than {CONFUSION_DENSE_MAX_CLASSES}); use long=True or top_confusions()"
            )
        return pd.DataFrame(
            self.confusion,
            index=pd.Index(list(labels), name="class"),
            columns=pd.Index(list(labels), name="neighbour_class"),
        )

    def to_frame(self):
        """Tidy table of L_k against k (columns k, leakage, chance, ratio_to_chance)."""
        import pandas as pd

        return pd.DataFrame(
            {
                "k": [int(k) for k in self.ks],
                "leakage": [float(v) for v in self.L],
                "chance": self.chance,
                "ratio_to_chance": [float(v) / self.chance for v in self.L],
            }
        )

    def to_dict(self) -> dict:
        """JSON-safe dictionary (full precision); ``L_k`` is L at the primary k.

        Size is O(K · len(ks)): ``confusion`` holds the dense K × K matrix only up to
        ``CONFUSION_DENSE_MAX_CLASSES`` classes and is an empty list above (see
        [`top_confusions`][auditad.leakage.LeakageResult.top_confusions]).
        """
        dense = self.classes.size <= CONFUSION_DENSE_MAX_CLASSES
        return {
            "k": self.k,
            "L_k": self.L_k,
            "chance": self.chance,
            "ratio_to_chance": self.ratio_to_chance,
            "metric": self.metric,
            "backend": self.backend,
            "recall": self.recall,
            "n": int(self.class_sizes.sum()),
            "by_k": {str(int(k)): float(v) for k, v in zip(self.ks, self.L)},
            "classes": [_plain(c) for c in self.classes],
            "per_class": [
                {
                    "class": _plain(c),
                    "n": int(self.class_sizes[i]),
                    "leakage": float(self.per_class[i, 0]),
                    "chance": float(self.chance_per_class[i]),
                    "by_k": {str(int(k)): float(self.per_class[i, j]) for j, k in enumerate(self.ks)},
                }
                for i, c in enumerate(self.classes)
            ],
            "confusion": [[float(v) for v in row] for row in self.confusion] if dense else [],
        }

    def _repr_html_(self) -> str:
        """Notebook display: L_k against k, L_k(c) per class as bars and as a table (labels escaped)."""
        from ._format import html_block, html_table, stat, svg_bars

        by_k = html_table(
            [{"k": int(k), "L_k": float(v), "L_k / chance": float(v) / self.chance} for k, v in zip(self.ks, self.L)],
            kinds={"L_k / chance": "real"},
        )
        labels = [_plain(c) for c in self.classes]
        bars = svg_bars(labels, self.per_class_leakage, title=f"L_k(c) per class at k = {self.k}")
        per_class = html_table(
            [
                {"class": c, "n": int(n), "L_k(c)": float(v), "chance": float(ch)}
                for c, n, v, ch in zip(labels, self.class_sizes, self.per_class_leakage, self.chance_per_class)
            ],
            caption=f"per class at k = {self.k}",
            max_rows=20,
        )
        recall = f", recall {stat(self.recall)}" if self.recall is not None else ""
        return html_block(
            f"Neighbourhood class leakage L_k = {stat(self.L_k)} at k = {self.k} "
            f"(chance {stat(self.chance)}; {self.metric}, {self.backend} kNN{recall})",
            by_k,
            bars,
            per_class,
            note=f"n = {int(self.class_sizes.sum())}, {len(self.classes)} classes; L_k near 0: "
            "neighbours share the class; near chance: the geometry ignores the classes.",
        )

    def summary_text(self) -> str:
        """A plain-text table for the terminal."""
        from ._format import text_table

        per_k = [(int(k), f"{v:.4f}", f"{v / self.chance:.3f}") for k, v in zip(self.ks, self.L)]
        per_class = [
            (_plain(c), int(self.class_sizes[i]), f"{self.per_class[i, 0]:.4f}", f"{self.chance_per_class[i]:.4f}")
            for i, c in enumerate(self.classes)
        ]
        return "\n".join(
            [
                f"Neighbourhood class leakage ({self.metric}, {self.backend} kNN"
                + (f", recall {self.recall:.4f}" if self.recall is not None else "")
                + ")",
                f"  n = {int(self.class_sizes.sum())}, classes = {len(self.classes)}, chance level = {self.chance:.4f}",
                "",
                text_table(per_k, header=("k", "L_k", "L_k/chance"), align="r", widths=(5, 8, 10), indent="  "),
                "",
                f"  per class at k = {self.k}:",
                text_table(
                    per_class, header=("class", "n", "L_k(c)", "chance"), align="r", widths=(5, 6, 8, 8), indent="  "
                ),
            ]
        )


def _plain(value):
    """numpy scalar -> plain Python value for JSON and tables."""
    return value.item() if hasattr(value, "item") else value


def leakage(
    X,
    y,
    *,
    k=10,
    metric="euclidean",
    backend="auto",
    random_state=None,
    block_memory_mb=256,
    recall_sample=200,
    progress=False,
    executor=None,
    keep_neighbors=False,
    project_dim="auto",
    self_lists=None,
) -> LeakageResult:
    r"""Neighbourhood class leakage L_k of a labelled embedding set.

    For each sample i with k nearest neighbours \(N_k(i)\) in the pool
    (i itself excluded; a duplicate of x_i at distance 0 is a neighbour; ties at
    the k-th distance broken by index):

    \[
    \ell_k(i) = \frac{1}{k} \sum_{j \in N_k(i)} \mathbb{1}[y_j \neq y_i],
    \qquad L_k = \frac{1}{n} \sum_{i=1}^{n} \ell_k(i).
    \]

    The chance level of sample i is \((n - n_{y_i})/(n - 1)\), the
    expected leakage of k neighbours drawn at random without replacement.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Embeddings of the whole labelled pool.
    y : array-like of shape (n,)
        Semantic class labels (integers or strings); at least 2 classes.
        A class with a single sample is allowed (its neighbours are all of
        other classes, so its leakage is 1).
    k : int or sequence of int
        Neighbour count(s). Several values are computed from one neighbour
        search with ``max(k)`` neighbours. The first is the primary k.
    metric : {"euclidean", "cosine"}
    backend : {"auto", "exact", "approximate"}
        See [`auditad.neighbors.kneighbors`][auditad.neighbors.kneighbors].
    random_state : None, int or Generator
        Seeds the approximate backend and its recall sample.
    block_memory_mb : float
        Memory budget of the exact search.
    recall_sample : int
        Queries used to measure the approximate backend's recall (0 = skip).
    progress : bool
        Progress bar of the neighbour search on stderr.
    executor : executor, optional
        Runs the exact search's query blocks on it ([`auditad.neighbors.kneighbors`][auditad.neighbors.kneighbors]);
        same result.
    keep_neighbors : bool
        Keep the neighbour lists in `LeakageResult.neighbors` (memory: n · max(k) indices and
        distances), e.g. for `auditad.duplicates.find_duplicates` ``(X, neighbors=...)``.
    project_dim : "auto" or int, default "auto"
        The approximate backend's random PCA projection before its exact re-rank
        ([`auditad.neighbors.kneighbors`][auditad.neighbors.kneighbors]): ``"auto"`` projects rows of more than 256
        columns to 128, ``0`` never projects.
    self_lists : callable, optional
        Approximate backend: the neighbour lists from an index built elsewhere
        ([`auditad.neighbors.kneighbors`][auditad.neighbors.kneighbors]); `auditad.run_audit` builds one index
        over every row for its leakage and its protocol stages.

    Returns
    -------
    LeakageResult

    References
    ----------
    "Testing the Test: Score-Direction Instability in Class-Split Anomaly
    Detection" (its training-free neighbourhood class leakage diagnostic). Reference points: Fashion-MNIST L_k ≈ 0.24 (stable),
    CIFAR-10 and Imagenette L_k > 0.76 (unstable).

    See Also
    --------
    - [`auditad.kneighbors`][auditad.neighbors.kneighbors]: the neighbour search used here.
    - [`auditad.audit_protocol`][auditad.protocol.audit_protocol]: per-class AUROC, compared with L_k(c) in the protocol
      audit.
    - [`LeakageResult.top_confusions`][auditad.leakage.LeakageResult.top_confusions]: which classes mix with which.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> leakage(X, [0, 0, 1, 1], k=1, backend="exact").L_k
    0.0
    >>> leakage(X, [0, 1, 0, 1], k=1, backend="exact").L_k
    1.0
    """
    X = check_embeddings(X, name="X", dtype=None)  # float32 stays float32: kneighbors works in float64 per chunk
    y = check_labels(y, name="y", min_classes=2)
    check_same_length(X, y, names=("X", "y"))
    ks = _check_ks(k, X.shape[0])
    if not isinstance(keep_neighbors, (bool, np.bool_)):
        raise InvalidInputError(f"keep_neighbors must be True or False, got {keep_neighbors!r}")
    kmax = max(ks)
    nn = kneighbors(
        X,
        k=kmax,
        metric=metric,
        backend=backend,
        random_state=random_state,
        block_memory_mb=block_memory_mb,
        recall_sample=recall_sample,
        progress=progress,
        executor=executor,
        project_dim=project_dim,
        self_lists=self_lists,
    )
    classes, codes, sizes = np.unique(y, return_inverse=True, return_counts=True)
    codes = codes.ravel()
    other = codes[nn.indices] != codes[:, None]  # (n, kmax) bool
    cum = np.cumsum(other, axis=1)
    per_sample = np.stack([cum[:, kk - 1] / kk for kk in ks], axis=1)
    L = per_sample.mean(axis=0)
    n_cls = classes.size
    per_class = np.stack(
        [np.bincount(codes, weights=per_sample[:, j], minlength=n_cls) / sizes for j in range(len(ks))], axis=1
    )
    k0 = ks[0]
    conf = _sparse_confusion(codes, nn.indices[:, :k0], n_cls)
    n = X.shape[0]
    chance = (n - sizes[codes]) / (n - 1)
    return LeakageResult(
        ks=tuple(ks),
        classes=classes,
        class_sizes=sizes.astype(np.int64),
        per_sample=per_sample,
        L=L,
        per_class=per_class,
        confusion_sparse=conf,
        chance_per_sample=chance,
        metric=metric,
        backend=nn.backend,
        recall=nn.recall,
        neighbors=nn if keep_neighbors else None,
    )


def _sparse_confusion(codes: np.ndarray, neighbours: np.ndarray, n_cls: int):
    """Row-normalised class-confusion counts as a CSR array: O(n·k) memory, never K × K."""
    from scipy import sparse

    n, k = neighbours.shape
    rows = np.repeat(codes, k)
    cols = codes[neighbours].ravel()
    counts = sparse.coo_array((np.ones(rows.size), (rows, cols)), shape=(n_cls, n_cls)).tocsr()
    counts.sum_duplicates()
    totals = np.bincount(codes, minlength=n_cls) * float(k)  # every sample has k neighbour slots
    counts.data /= np.repeat(totals, np.diff(counts.indptr))
    return counts


def _check_ks(k, n) -> list[int]:
    ks = list(k) if isinstance(k, (list, tuple, np.ndarray)) else [k]
    if not ks:
        raise InvalidInputError("k must be an int or a non-empty list of ints, got an empty list")
    out = []
    for kk in ks:
        kk = check_int(kk, name="k", low=1)
        if kk >= n:
            raise InvalidInputError(f"k must be smaller than the number of samples ({n}), got k={kk}")
        if kk not in out:
            out.append(kk)
    return out
