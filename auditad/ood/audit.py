"""`audit_ood`: copies, ID share, near/far placement and detector metrics of every OOD set of a benchmark."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._rng import check_random_state, seed_int
from .._validation import check_choice, check_embeddings, check_float, check_int, check_labels, check_same_length
from ..errors import InvalidInputError
from ..findings import verdict
from .checks import NEAR_RATIO, ood_findings
from .contamination import contamination, placement
from .detection import detection_metrics, rank_correlation
from .neighbourhood import id_reference_lists, set_neighbourhood
from .result import OODAuditResult, OODSetResult

__all__ = ["audit_ood", "DEFAULT_TEST_ROWS", "GROUP_PLACEMENTS"]

#: Most held-out ID rows (the ID side of every detector metric and of the ID-likeness calibration).
DEFAULT_TEST_ROWS = 20_000
#: Group names that declare a placement: a set in group ``near`` measured ``far`` (or the reverse) is flagged.
GROUP_PLACEMENTS = ("near", "far")


def _check_sets(ood_sets, d: int, X_id) -> dict:
    if not isinstance(ood_sets, Mapping) or len(ood_sets) == 0:
        raise InvalidInputError("ood_sets must be a non-empty mapping {name: array}, got " + type(ood_sets).__name__)
    out = {}
    for name, X in ood_sets.items():
        if not isinstance(name, str) or not name.strip():
            raise InvalidInputError(f"ood_sets: every OOD set needs a non-empty name, got {name!r}")
        if getattr(X, "shape", (1,))[:1] == (0,) or (isinstance(X, (list, tuple)) and not X):
            raise InvalidInputError(f"ood_sets[{name!r}] is empty: an OOD set needs at least one row")
        A = check_embeddings(X, name=f"ood_sets[{name!r}]", dtype=None)
        if A.shape[1] != d:
            raise InvalidInputError(
                f"ood_sets[{name!r}] has {A.shape[1]} columns, the ID embeddings X_id have {d}: both must come "
                "from the same representation"
            )
        if A.shape == X_id.shape and _same_values(A, X_id):
            raise InvalidInputError(f"ood_sets[{name!r}] is identical to the ID set X_id")
        out[name] = A
    return out


def _same_values(A, B) -> bool:
    """Equal values at the lower of the two precisions (the ID set saved again as float32 is the ID set)."""
    if A.dtype != B.dtype:
        low = np.result_type(np.float32, min(A.dtype, B.dtype, key=lambda t: t.itemsize))
        return bool(np.array_equal(A.astype(low, copy=False), B.astype(low, copy=False)))
    return bool(np.array_equal(A, B))


def _check_groups(groups, names) -> dict:
    """{set name: group name} from {group: [set names]}."""
    if groups is None:
        return {}
    if not isinstance(groups, Mapping):
        raise InvalidInputError(f"groups must be a mapping {{group: [set names]}}, got {type(groups).__name__}")
    of = {}
    for g, members in groups.items():
        members = [members] if isinstance(members, str) else list(members)
        if not members:
            raise InvalidInputError(f"groups[{g!r}] names no OOD set")
        for m in members:
            if m not in names:
                raise InvalidInputError(f"groups[{g!r}] names {m!r}, which is not an OOD set ({', '.join(names)})")
            if m in of:
                raise InvalidInputError(f"OOD set {m!r} is in two groups, {of[m]!r} and {g!r}")
            of[m] = str(g)
    return of


def _split(n: int, n_test, rng) -> tuple[np.ndarray, np.ndarray]:
    if n_test is None:
        n_test = min(DEFAULT_TEST_ROWS, max(1, round(0.2 * n)))
    n_test = check_int(n_test, name="n_test", low=1, high=n - 2)
    perm = rng.permutation(n)
    return np.sort(perm[n_test:]), np.sort(perm[:n_test])


def _nearest_classes(cls_codes, classes, id_counts, n_id: int) -> tuple:
    counts = np.bincount(cls_codes, minlength=classes.size)
    m = cls_codes.size
    rows = [
        {
            "class": classes[c].item() if hasattr(classes[c], "item") else classes[c],
            "n": int(counts[c]),
            "share": counts[c] / m,
            "ratio_to_id_share": (counts[c] / m) / (id_counts[c] / n_id),
        }
        for c in np.argsort(-counts, kind="stable")
        if counts[c] > 0
    ]
    return tuple(rows)


def _other_detectors(detectors, k, backend, X_id, train, Q, seed):
    """{name: scores of Q} of the detectors other than the built-in kNN, fitted on the ID training rows."""
    from ..protocol import resolve_detectors

    others = [d for d in detectors if d != "knn"]
    out = {}
    X_tr = X_id[train] if others else None  # (a copy of the training rows: only these detectors need one)
    for det in resolve_detectors(others, k=k, backend=backend) if others else ():
        det = det.fresh(seed)
        out[det.name] = np.asarray(det.fit(X_tr).score_samples(Q), dtype=np.float64)
    return out


def _samples_frame(m, nearest_idx, nearest_dist, y_id, copies, cont, share):
    import pandas as pd

    return pd.DataFrame(
        {
            "row": np.arange(m),
            "id_likeness": cont.score,
            "id_neighbour_share": share,
            "nearest_id_class": y_id[nearest_idx],
            "nearest_id_row": nearest_idx,
            "nearest_id_distance": nearest_dist,
            "exact_copy": copies.exact_copy,
            "exact_id_row": copies.exact_train_row,
            "exact_id_class": np.where(copies.exact_copy, y_id[np.maximum(copies.exact_train_row, 0)], None),
            "near_copy": copies.near_copy,
            "near_id_row": copies.near_train_row,
            "id_like": cont.id_like,
        }
    )


def _settings(**kw) -> dict:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in kw.items()}


def audit_ood(
    X_id,
    y_id,
    ood_sets,
    *,
    groups=None,
    k=10,
    detector_k=5,
    detectors=("knn",),
    metric="euclidean",
    backend="auto",
    n_test=None,
    near_ratio=NEAR_RATIO,
    near_threshold="auto",
    confidence_level=0.95,
    n_boot=200,
    random_state=0,
    progress=False,
) -> OODAuditResult:
    r"""Audit the OOD sets of an out-of-distribution benchmark against its in-distribution (ID) set.

    The ID rows are split into training rows and ``n_test`` held-out rows (a random sample). Per OOD set:

    1. **Copies**: OOD rows bit-identical to an ID row, or nearer to one than the near-duplicate threshold
       \(\tau = 0.13\cdot\operatorname{median}\) of the held-out ID rows' distances to their nearest ID
       training row ([`train_test_overlap`][auditad.duplicates.train_test_overlap]); the ID row and class of
       each copy.
    2. **ID share**: the ID-likeness \(p_i\) of every OOD row (the kNN posterior of ID in the pool
       ``ID training ∪ OOD set``, size imbalance removed) and the adjusted-count estimate of the set's ID
       share with its interval ([`contamination`][auditad.ood.contamination.contamination]).
    3. **Placement**: \(\lambda = \bar s/\pi\), the chance-normalised ID share of the OOD rows'
       neighbourhoods, near at or above ``near_ratio`` ([`placement`][auditad.ood.contamination.placement]),
       compared with the ``groups`` the user declared (a group named ``near`` or ``far``).
    4. **Detectors**: fitted on the ID training rows, scored on the held-out ID rows and the OOD rows;
       AUROC, AUPR-in/out, FPR@95TPR with intervals and random nulls
       ([`detection_metrics`][auditad.ood.detection.detection_metrics]); the built-in ``knn`` is the distance
       to the ``detector_k``-th nearest ID training row (Sun et al. 2022). Across sets, Spearman's ρ between
       λ and each detector's AUROC.

    Parameters
    ----------
    X_id : array-like of shape (n, d)
        ID embeddings.
    y_id : array-like of shape (n,)
        ID class labels.
    ood_sets : mapping of str to array-like of shape (m_j, d)
        The OOD sets by name.
    groups : mapping of str to list of str, optional
        Declared groups, e.g. ``{"near": ["cifar100", "tin"], "far": ["svhn"]}``.
    k : int
        Neighbours of the ID-likeness and the placement.
    detector_k : int
        k of the kNN detector.
    detectors : sequence of str
        ``"knn"``, ``"lof"``, ``"iforest"`` or ``"pyod:NAME"`` (see
        [`resolve_detectors`][auditad.protocol.resolve_detectors]).
    metric : {"euclidean", "cosine"}
    backend : {"auto", "exact", "approximate"}
        Of every neighbour search ([`kneighbors`][auditad.neighbors.kneighbors]).
    n_test : int, optional
        Held-out ID rows (default: 20 % of the ID rows, at most `DEFAULT_TEST_ROWS`).
    near_ratio : float
        Placement threshold on λ.
    near_threshold : "auto" or float > 0
        Near-copy distance.
    confidence_level : float
    n_boot : int
        Bootstrap resamples of the AUPR and FPR intervals.
    random_state : None, int or Generator
        Seeds the split, the searches and the bootstraps.
    progress : bool
        Progress bar of the main neighbour search.

    Returns
    -------
    OODAuditResult

    See Also
    --------
    - [`OODAuditResult`][auditad.ood.OODAuditResult]
    - [`auditad.leakage.leakage`][auditad.leakage.leakage]: the class leakage the placement statistic follows.

    References
    ----------
    J. Bitterwolf, M. Müller, M. Hein, "In or Out? Fixing ImageNet Out-of-Distribution Detection
    Evaluation", ICML 2023 (ID objects in popular OOD test sets). J. Yang, P. Wang, D. Zou, et al.,
    "OpenOOD v1.5: Enhanced Benchmark for Out-of-Distribution Detection", arXiv:2306.09301, 2023 (near and
    far OOD, the metrics). D. Sun, Y. Ming, X. Zhu, Y. Li, "Out-of-Distribution Detection with Deep Nearest
    Neighbors", ICML 2022 (the kNN score).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 4)); y = np.repeat([0, 1], 200)
    >>> res = audit_ood(X, y, {"far": rng.normal(8, 1, size=(100, 4))}, backend="exact", n_boot=20)
    >>> res["far"].placement.placement, res["far"].detectors[0].auroc
    ('far', 1.0)
    """
    X_id = check_embeddings(X_id, name="X_id", dtype=None)
    y_id = check_labels(y_id, name="y_id")
    check_same_length(X_id, y_id, names=("X_id", "y_id"))
    sets = _check_sets(ood_sets, X_id.shape[1], X_id)
    group_of = _check_groups(groups, list(sets))
    k = check_int(k, name="k", low=1)
    detector_k = check_int(detector_k, name="detector_k", low=1)
    confidence_level = check_float(confidence_level, name="confidence_level", low=0.5, high=1, high_open=True)
    near_ratio = check_float(near_ratio, name="near_ratio", low=0, low_open=True)
    n_boot = check_int(n_boot, name="n_boot", low=10)
    detectors = (detectors,) if isinstance(detectors, str) else tuple(detectors)
    if not detectors:
        raise InvalidInputError("detectors must name at least one detector")
    from ..neighbors import BACKENDS, METRICS

    check_choice(metric, METRICS, name="metric")
    check_choice(backend, BACKENDS, name="backend")
    rng = check_random_state(random_state)
    seed = seed_int(rng)
    train, test = _split(X_id.shape[0], n_test, rng)
    if k >= train.size or detector_k > train.size:
        raise InvalidInputError(f"k={k} and detector_k={detector_k} must be below the {train.size} ID training rows")
    X_te = X_id[test]
    names = list(sets)
    Q = np.concatenate([X_te, *sets.values()], axis=0)
    is_test = np.zeros(X_id.shape[0], dtype=bool)
    is_test[test] = True
    lists = id_reference_lists(
        X_id, is_test, Q, k=max(k, detector_k), metric=metric, backend=backend, random_state=seed, progress=progress
    )
    ctx = _Context(X_id, y_id, train, test, lists, k, metric, backend, seed, confidence_level)
    tau = ctx.near_threshold(near_threshold)
    all_copies = ctx.copies(Q[X_te.shape[0] :], tau)  # one hashing of the ID rows for every OOD set
    other_scores = _other_detectors(detectors, detector_k, backend, X_id, train, Q, seed)
    results, offset = [], X_te.shape[0]
    for name in names:
        rows = np.arange(offset, offset + sets[name].shape[0])
        offset += rows.size
        results.append(
            ctx.one_set(
                name,
                sets[name],
                rows,
                copies=_slice(all_copies, rows - X_te.shape[0]),
                near_ratio=near_ratio,
                group=group_of.get(name),
                detectors=detectors,
                detector_k=detector_k,
                other_scores=other_scores,
                n_boot=n_boot,
            )
        )
    det_names = [d.detector for d in results[0].detectors]
    correlation = {
        d: rank_correlation(
            [s.placement.ratio for s in results],
            [next(x.auroc for x in s.detectors if x.detector == d) for s in results],
            confidence_level=confidence_level,
        )
        for d in det_names
    }
    findings = tuple(ood_findings(results))
    classes = np.unique(y_id)
    return OODAuditResult(
        sets=tuple(results),
        findings=findings,
        verdict=verdict(findings),
        correlation=correlation,
        settings=_settings(
            k=k,
            detector_k=detector_k,
            detectors=detectors,
            metric=metric,
            backend=backend,
            near_ratio=near_ratio,
            confidence_level=confidence_level,
            n_boot=n_boot,
            random_state=random_state if isinstance(random_state, (int, type(None))) else "generator",
        ),
        id_summary={
            "n": int(X_id.shape[0]),
            "d": int(X_id.shape[1]),
            "n_classes": int(classes.size),
            "n_train": int(train.size),
            "n_test": int(test.size),
            "near_threshold": tau,
        },
        neighbors=lists.search,
    )


class _Context:
    """What every OOD set of one audit shares: the ID split and the neighbour lists of every query."""

    def __init__(self, X_id, y_id, train, test, lists, k, metric, backend, seed, level):
        self.X_id, self.y_id, self.train, self.test = X_id, y_id, train, test
        self.lists, self.k = lists, k
        self.metric, self.backend, self.seed, self.level = metric, backend, seed, level
        self.classes, codes, self.counts = np.unique(y_id, return_inverse=True, return_counts=True)
        self.codes = codes.ravel()
        self.n_te = test.size
        self.X_te = X_id[test]

    def near_threshold(self, value):
        from ..duplicates import NEAR_THRESHOLD_FACTOR

        if isinstance(value, str) and value == "auto":
            d1 = self.lists.train_dist[: self.n_te, 0]
            pos = d1[d1 > 0]
            return float(NEAR_THRESHOLD_FACTOR * np.median(pos)) if pos.size else 0.0
        return check_float(value, name="near_threshold", low=0, low_open=True)

    def copies(self, X_ood, tau):
        """Exact and near ID copies of the rows of every OOD set (``X_ood``: the sets one after the other)."""
        from ..duplicates import train_test_overlap

        rows = slice(self.n_te, self.n_te + X_ood.shape[0])
        neighbors = (self.lists.whole_idx[rows], self.lists.whole_dist[rows])
        return train_test_overlap(self.X_id, X_ood, near_threshold=tau if tau > 0 else None, neighbors=neighbors)

    def one_set(self, name, X_o, rows, *, copies, near_ratio, group, detectors, detector_k, other_scores, n_boot):
        te = np.arange(self.n_te)
        idx, dist = self.lists.whole_idx[rows], self.lists.whole_dist[rows]
        d_tr = self.lists.train_dist
        hood = set_neighbourhood(
            X_o,
            self.X_te,
            d_tr[rows],
            d_tr[te],
            k=self.k,
            metric=self.metric,
            backend=self.backend,
            random_state=self.seed,
            n_train=self.train.size,
        )
        cont = contamination(
            hood.id_share_ood, hood.chance_ood, hood.id_share_test, hood.chance_test, confidence_level=self.level
        )
        place = placement(hood.id_share_ood, hood.chance_ood, threshold=near_ratio, confidence_level=self.level)
        scores = dict(other_scores)
        if "knn" in detectors:
            scores = {"knn": d_tr[:, detector_k - 1], **scores}
        dets = tuple(
            detection_metrics(
                s[te],
                s[rows],
                detector=det,
                ood_set=name,
                confidence_level=self.level,
                n_boot=n_boot,
                random_state=self.seed,
            )
            for det, s in scores.items()
        )
        g = None if group is None else group.lower()
        contradicts = g in GROUP_PLACEMENTS and place.placement in GROUP_PLACEMENTS and g != place.placement
        return OODSetResult(
            name=name,
            n=int(X_o.shape[0]),
            copies=copies,
            contamination=cont,
            placement=place,
            detectors=dets,
            samples=_samples_frame(X_o.shape[0], idx[:, 0], dist[:, 0], self.y_id, copies, cont, hood.id_share_ood),
            nearest_classes=_nearest_classes(self.codes[idx[:, 0]], self.classes, self.counts, self.y_id.size),
            group=group,
            contradicts_group=bool(contradicts),
        )


def _slice(overlap, rows):
    """The copies of some of the OOD rows (``rows``: consecutive positions), as their own OverlapResult."""
    from ..duplicates import OverlapResult

    sl = slice(int(rows[0]), int(rows[-1]) + 1)
    m = sl.stop - sl.start
    near = overlap.near_copy is not None  # None: every held-out ID row has an identical training row (tau = 0)
    return OverlapResult(
        test_rows=np.arange(m, dtype=np.int64),
        n_train=overlap.n_train,
        exact_copy=overlap.exact_copy[sl],
        exact_train_row=overlap.exact_train_row[sl],
        near_threshold=overlap.near_threshold if near else 0.0,
        near_copy=overlap.near_copy[sl] if near else np.zeros(m, dtype=bool),
        near_train_row=overlap.near_train_row[sl] if near else np.full(m, -1, dtype=np.int64),
        near_distance=overlap.near_distance[sl] if near else np.full(m, np.nan),
        complete=overlap.complete,
    )
