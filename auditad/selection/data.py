r"""The data model of a selection benchmark: candidates, tasks and their embeddings, validated on construction.

A *selection benchmark* is a set of tasks (one detection problem each:
normal reference data, optionally a labelled test set and an auxiliary pool
of other normals) and a set of candidate systems (an embedding, optionally a
sequence pooling, and a kNN/LDN scoring), as in K. Wilkinghoff and Z.-H. Tan,
"Can We Predict Anomaly Detection Performance from Embedding-Space
Geometry?", Sec. 5. Files on disk are read by [`auditad.manifest.load_manifest`][auditad.manifest.load_manifest].
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Mapping

import numpy as np

from .._json import json_safe
from .._validation import check_binary_labels, check_choice, check_embeddings, check_int
from ..errors import InvalidInputError
from .pseudo import check_metadata
from .scoring import parse_pooling
from .choices import LDN_FORMS, METRICS, SCORINGS, SPLITS

__all__ = ["Candidate", "TaskEmbeddings", "SelectionTask", "SelectionBenchmark"]


@dataclass(frozen=True)
class Candidate:
    r"""A candidate system: an embedding (by name), an optional sequence pooling and a scoring function.

    The candidate scores a sample \(x\) of a task against the task's
    reference set \(R\) in its embedding (pooled first when ``pooling``
    is set):

    \[
    z(x) = \log d_k(x; R) \quad(\text{knn}),\qquad
    \tilde z(x) = \log \min_{r\in R} \frac{d(x, r)}{\rho_K(r)} \quad(\text{ldn, reference form})
    \]

    (see [`auditad.selection.scoring.KNNScorer`][auditad.selection.scoring.KNNScorer] for the query form).

    Parameters
    ----------
    name : str
        Unique name of the candidate.
    embedding : str
        Key of the embeddings in every task (`SelectionTask.embeddings`).
    pooling : str, optional
        Pooling spec (``"mean"``, ``"max"``, ``"gem:3"``, ``"rdp:2"``, see
        `POOLING_METHODS`) for sequence embeddings
        (n, T, d); must be None for (n, d) embeddings. Stored canonically
        (``"gem:3"`` for ``"GeM:3.0"``).
    scoring : {"knn", "ldn"}, default "knn"
        `SCORINGS`.
    k : int, default 1
        Neighbour rank of the score (the paper's candidates use 1).
    K : int, default 2
        LDN neighbourhood size (the paper uses 2).
    ldn_form : {"reference", "query"}, default "reference"
        `LDN_FORMS`.
    metric : {"euclidean", "cosine"}, default "euclidean"
        `METRICS`.
    family : str, optional
        Representation family for figures (default: ``embedding``).

    Raises
    ------
    auditad.errors.InvalidInputError
        An empty name or embedding, an unknown scoring / ldn_form / metric /
        pooling, or ``k``, ``K`` < 1.

    See Also
    --------
    - [`SelectionTask`][auditad.selection.SelectionTask]
    - [`SelectionBenchmark`][auditad.selection.SelectionBenchmark]
    - [`auditad.selection.scoring.KNNScorer`][auditad.selection.scoring.KNNScorer]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 5.

    Examples
    --------
    >>> Candidate("beats-gem", "beats", pooling="GeM:3.0", scoring="ldn").pooling
    'gem:3'
    >>> Candidate("pca8-knn", "pca8").to_dict()["family"]
    'pca8'
    """

    name: str
    embedding: str
    pooling: str | None = None
    scoring: str = "knn"
    k: int = 1
    K: int = 2
    ldn_form: str = "reference"
    metric: str = "euclidean"
    family: str | None = None

    def __post_init__(self):
        for attr in ("name", "embedding"):
            if not isinstance(getattr(self, attr), str) or not getattr(self, attr):
                raise InvalidInputError(f"candidate {attr} must be a non-empty string, got {getattr(self, attr)!r}")
        check_choice(self.scoring, SCORINGS, name=f"candidate {self.name!r} scoring")
        check_choice(self.ldn_form, LDN_FORMS, name=f"candidate {self.name!r} ldn_form")
        check_choice(self.metric, METRICS, name=f"candidate {self.name!r} metric")
        object.__setattr__(self, "k", check_int(self.k, name=f"candidate {self.name!r} k", low=1))
        object.__setattr__(self, "K", check_int(self.K, name=f"candidate {self.name!r} K", low=1))
        if self.pooling is not None:
            name, param = parse_pooling(self.pooling)
            object.__setattr__(self, "pooling", name if param is None else f"{name}:{param:g}")
        if self.family is None:
            object.__setattr__(self, "family", self.embedding)

    def to_dict(self) -> dict:
        """JSON-safe dict of the fields."""
        return {f.name: json_safe(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class TaskEmbeddings:
    """The embeddings of one task in one representation.

    Parameters
    ----------
    reference : ndarray of shape (n, d) or (n, T, d)
        Normal reference data (vectors, or sequences to be pooled); at least 2 rows.
    test : ndarray of shape (m, d) or (m, T, d), optional
        Test samples in the same representation (rows aligned with the task's
        ``test_labels``).
    auxiliary : ndarray of shape (n_aux, d) or (n_aux, T, d), optional
        The auxiliary pool of other normals (rows aligned with the task's
        ``auxiliary_meta``), used by the Cross-* pseudo-anomaly probes.

    Notes
    -----
    The arrays are checked (finite, same dimension) when the task enters a
    [`SelectionBenchmark`][auditad.selection.SelectionBenchmark], not here.

    See Also
    --------
    - [`SelectionTask`][auditad.selection.SelectionTask]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 5.

    Examples
    --------
    >>> import numpy as np
    >>> TaskEmbeddings(reference=np.zeros((5, 3))).test is None
    True
    """

    reference: np.ndarray
    test: np.ndarray | None = None
    auxiliary: np.ndarray | None = None


@dataclass(frozen=True)
class SelectionTask:
    """One model-selection task (e.g. one machine type / section, or one normal class).

    Parameters
    ----------
    name : str
        Unique name of the task.
    embeddings : mapping of str -> TaskEmbeddings
        One entry per embedding used by the candidates.
    test_labels : array-like of shape (m,), optional
        1 = anomaly; needed for the true AUC (and so for judging estimators).
    reference_meta, auxiliary_meta : mapping of column -> labels, optional
        ``"domain"``, ``"class"``, ``"attribute"`` labels of the reference rows and
        of the auxiliary rows.
    home : mapping, optional
        Declared home values of the metadata columns (default: most frequent in
        the reference, see [`auditad.selection.pseudo.home_values`][auditad.selection.pseudo.home_values]).
    split : {"development", "evaluation"}, optional
        `SPLITS`; used by the Fixed-selection baseline.
    group : str, optional
        Dataset the task belongs to; Fixed selection is per group.

    Notes
    -----
    Validation happens when the task enters a [`SelectionBenchmark`][auditad.selection.SelectionBenchmark]
    (it needs the candidates to know which embeddings must exist).

    See Also
    --------
    - [`TaskEmbeddings`][auditad.selection.TaskEmbeddings]
    - [`SelectionBenchmark`][auditad.selection.SelectionBenchmark]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 5.

    Examples
    --------
    >>> import numpy as np
    >>> t = SelectionTask("fan", {"e": TaskEmbeddings(np.zeros((4, 2)))})
    >>> t.has_truth
    False
    """

    name: str
    embeddings: Mapping[str, TaskEmbeddings]
    test_labels: np.ndarray | None = None
    reference_meta: Mapping[str, np.ndarray] = field(default_factory=dict)
    auxiliary_meta: Mapping[str, np.ndarray] = field(default_factory=dict)
    home: Mapping[str, str] | None = None
    split: str | None = None
    group: str | None = None

    @property
    def has_truth(self) -> bool:
        """True when the task has test labels (its true AUCs are known)."""
        return self.test_labels is not None


@dataclass(frozen=True)
class SelectionBenchmark:
    """Tasks × candidates, validated on construction.

    Parameters
    ----------
    tasks : sequence of SelectionTask
        Unique names; every task holds every embedding the candidates use.
    candidates : sequence of Candidate
        Unique names.
    name : str, default "benchmark"
    info : mapping, optional
        Free JSON-safe information (e.g. the ground truth of a synthetic benchmark).

    Raises
    ------
    auditad.errors.InvalidInputError
        No task or candidate, duplicate names, a missing embedding, sequences
        without a pooling (or vectors with one), non-finite or misaligned
        arrays, fewer than 2 reference samples, test labels that are not
        binary, metadata of the wrong length, an unknown split.

    See Also
    --------
    - [`auditad.selection.run_selection`][auditad.selection.run_selection]
    - [`auditad.manifest.load_manifest`][auditad.manifest.load_manifest]
    - [`auditad.synthetic.make_selection_benchmark`][auditad.synthetic.make_selection_benchmark]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 5.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> task = SelectionTask("t", {"e": TaskEmbeddings(rng.normal(size=(20, 3)), rng.normal(size=(6, 3)))},
    ...                      test_labels=[0, 0, 0, 1, 1, 1])
    >>> SelectionBenchmark([task], [Candidate("e-knn", "e")]).n_tasks
    1
    """

    tasks: tuple
    candidates: tuple
    name: str = "benchmark"
    info: Mapping = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "tasks", tuple(self.tasks))
        object.__setattr__(self, "candidates", tuple(self.candidates))
        _validate_benchmark(self)

    @property
    def n_tasks(self) -> int:
        """Number of tasks."""
        return len(self.tasks)


def _validate_benchmark(bench: SelectionBenchmark) -> None:
    if not bench.tasks:
        raise InvalidInputError("the benchmark has no tasks")
    if not bench.candidates:
        raise InvalidInputError("the benchmark has no candidates")
    for c in bench.candidates:
        if not isinstance(c, Candidate):
            raise InvalidInputError(f"candidates must be Candidate objects, got {type(c).__name__}")
    names = [c.name for c in bench.candidates]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InvalidInputError(f"candidate names must be unique, repeated: {dup}")
    tnames = [t.name for t in bench.tasks]
    dup = sorted({n for n in tnames if tnames.count(n) > 1})
    if dup:
        raise InvalidInputError(f"task names must be unique, repeated: {dup}")
    used = sorted({c.embedding for c in bench.candidates})
    pooled = {c.embedding: c for c in bench.candidates if c.pooling is not None}
    unpooled = {c.embedding: c for c in bench.candidates if c.pooling is None}
    for t in bench.tasks:
        if not isinstance(t, SelectionTask):
            raise InvalidInputError(f"tasks must be SelectionTask objects, got {type(t).__name__}")
        where = f"task {t.name!r}"
        if t.split is not None and t.split not in SPLITS:
            raise InvalidInputError(f"{where}: split must be one of {list(SPLITS)} or None, got {t.split!r}")
        labels = None
        if t.test_labels is not None:
            labels = check_binary_labels(t.test_labels, name=f"{where} test_labels")
            object.__setattr__(t, "test_labels", labels)
        n_ref = n_aux = None
        embs = dict(t.embeddings)
        for e in used:
            if e not in embs:
                raise InvalidInputError(
                    f"{where} has no embeddings {e!r} (used by candidate(s) "
                    f"{[c.name for c in bench.candidates if c.embedding == e]})"
                )
            te = embs[e]
            if not isinstance(te, TaskEmbeddings):
                raise InvalidInputError(f"{where} embeddings {e!r} must be a TaskEmbeddings, got {type(te).__name__}")
            ref = np.asarray(te.reference)
            ndim = ref.ndim if ref.ndim in (2, 3) else 2
            R = check_embeddings(ref, name=f"{where} embeddings {e!r} reference", ndim=ndim)
            if R.shape[0] < 2:
                raise InvalidInputError(
                    f"{where} embeddings {e!r}: the reference set has {R.shape[0]} sample(s); "
                    "at least 2 are needed (leave-one-out inlier scores)"
                )
            if ndim == 3 and e in unpooled:
                raise InvalidInputError(
                    f"{where} embeddings {e!r} are sequences {R.shape}; candidate {unpooled[e].name!r} needs a pooling"
                )
            if ndim == 2 and e in pooled:
                raise InvalidInputError(
                    f"{where} embeddings {e!r} are vectors {R.shape}; candidate "
                    f"{pooled[e].name!r} has pooling {pooled[e].pooling!r}"
                )
            parts = {"reference": R}
            for part in ("test", "auxiliary"):
                A = getattr(te, part)
                if A is None:
                    continue
                A = check_embeddings(A, name=f"{where} embeddings {e!r} {part}", ndim=ndim)
                if A.shape[-1] != R.shape[-1]:
                    raise InvalidInputError(
                        f"{where} embeddings {e!r}: {part} has {A.shape[-1]} dimensions but "
                        f"the reference has {R.shape[-1]}"
                    )
                parts[part] = A
            if n_ref is None:
                n_ref = R.shape[0]
            elif R.shape[0] != n_ref:
                raise InvalidInputError(
                    f"{where}: reference sets of different embeddings must have the same rows "
                    f"(metadata is shared), got {R.shape[0]} for {e!r} and {n_ref} before"
                )
            if labels is not None:
                if "test" not in parts:
                    raise InvalidInputError(f"{where} has test_labels but embeddings {e!r} have no test set")
                if parts["test"].shape[0] != labels.size:
                    raise InvalidInputError(
                        f"{where} embeddings {e!r}: test has {parts['test'].shape[0]} rows but "
                        f"test_labels has {labels.size}"
                    )
            if "auxiliary" in parts and n_aux is not None and parts["auxiliary"].shape[0] != n_aux:
                raise InvalidInputError(f"{where}: auxiliary pools of different embeddings differ in size")
            if "auxiliary" in parts and n_aux is None:
                n_aux = parts["auxiliary"].shape[0]
            embs[e] = TaskEmbeddings(
                reference=parts["reference"], test=parts.get("test"), auxiliary=parts.get("auxiliary")
            )
        object.__setattr__(t, "embeddings", embs)
        object.__setattr__(
            t, "reference_meta", check_metadata(t.reference_meta or {}, n_ref, name=f"{where} reference_meta")
        )
        aux_meta = t.auxiliary_meta or {}
        if aux_meta and n_aux is None:
            raise InvalidInputError(f"{where} has auxiliary_meta but no auxiliary embeddings")
        if n_aux is not None and not aux_meta:
            raise InvalidInputError(f"{where} has auxiliary embeddings but no auxiliary_meta to say what they are")
        object.__setattr__(t, "auxiliary_meta", check_metadata(aux_meta, n_aux or 0, name=f"{where} auxiliary_meta"))
        if n_aux is not None:
            missing = [e for e in used if embs[e].auxiliary is None]
            if missing:
                raise InvalidInputError(f"{where}: embeddings {missing} have no auxiliary pool while others do")
