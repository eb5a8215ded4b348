"""The declaration of the audit settings: one `Setting` per key of ``[settings]``, in `SETTINGS`.

Each setting declares its type, default, bounds, choices (taken from the computing modules' constants,
e.g. `auditad.protocol.BUILTIN_DETECTORS`, `auditad.selection.POOL_BY`), help text and command-line flag.
Everything else is generated from this declaration: the validation in `auditad.audit.settings`, the
command-line flags in `auditad.audit.settings_flags`, the JSON Schema and the documentation tables in
`auditad.audit.settings_docs`. Import the names from `auditad.audit.settings`, which re-exports them.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable

from ..gates.options import gate_option

__all__ = [
    "Setting",
    "SETTINGS",
    "SETTINGS_BY_NAME",
    "FORMER_NAMES",
    "DEFAULT_SETTINGS",
    "NULL_METHODS",
    "NULL_Q_NAMES",
    "DETECTOR_PARAMS",
    "DETECTOR_NAME_PATTERN",
    "detector_choices",
]


# --------------------------------------------------------------------------- choices from the computing modules
def _metrics_choices() -> tuple:
    from ..neighbors import METRICS

    return tuple(METRICS)


def _backend_choices() -> tuple:
    from ..neighbors import BACKENDS

    return tuple(BACKENDS)


def _protocol_choices() -> tuple:
    from ..protocol import PROTOCOLS

    return tuple(PROTOCOLS)


def detector_choices() -> tuple:
    """The detector names the ``detectors`` setting accepts besides the names of detector tables.

    Returns
    -------
    tuple of str
        The built-in detectors (`auditad.protocol.BUILTIN_DETECTORS`), then ``pyod:NAME`` for each
        detector of `auditad.protocol.PYOD_DETECTORS`.

    See Also
    --------
    auditad.audit.settings.check_detector_table : checks a named detector table against these names.
    """
    from ..protocol import BUILTIN_DETECTORS, PYOD_DETECTORS

    return tuple(BUILTIN_DETECTORS) + tuple(f"pyod:{c}" for c in PYOD_DETECTORS)


def _metric_name_choices() -> tuple:
    from ..metrics import METRIC_NAMES

    return tuple(METRIC_NAMES)


def _pool_by_choices() -> tuple:
    from ..selection import POOL_BY

    return tuple(POOL_BY)


def _ratio_presets() -> tuple:
    from ..landscapes import PAPER_RATIOS

    return tuple(PAPER_RATIOS)


#: Null methods and random-prediction rates of `auditad.nulls.null_distribution`.
NULL_METHODS = ("auto", "exact", "monte_carlo")
NULL_Q_NAMES = ("coin", "prior")

#: Parameters each built-in detector accepts in ``detector_params`` (name -> accepted Python types).
DETECTOR_PARAMS = {
    "knn": {"k": int},
    "iforest": {"n_estimators": int, "max_samples": (int, float, str)},
    "lof": {"n_neighbors": int},
}

#: Name of a detector defined by a table (``[detectors.NAME]`` / ``detector_params.NAME.detector``).
DETECTOR_NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$"


def _default_max_test_normals() -> int:
    from ..protocol import DEFAULT_MAX_TEST_NORMALS

    return int(DEFAULT_MAX_TEST_NORMALS)


#: The ``default_gates`` setting is one of the gate options (``--no-default-gates``).
_NO_DEFAULT_GATES = gate_option("default_gates")


# --------------------------------------------------------------------------- the declaration
@dataclass(frozen=True)
class Setting:
    """One audit setting.

    Attributes
    ----------
    name : str
        Key in ``[settings]`` and in ``summary.json["settings"]``.
    kind : str
        ``int``, ``float``, ``choice``, ``choices`` (list of choices), ``ints`` (an integer or a
        non-empty list), ``strings``, ``bool``, ``null_q``, ``auto_int`` (``"auto"`` or an integer), ``ratios``, ``detectors`` (list of choices or
        names of detector tables) or ``detector_params``.
    default
        Default value (None: not set).
    help : str
        Meaning (docs table, ``--help``).
    choices : callable or None
        Returns the allowed values (from the computing module's constant).
    low, high : float or None
        Bounds; ``low_open`` / ``high_open`` exclude them.
    flag : str or None
        Command-line flag of ``auditad audit`` (None: config file only).
    repeat : bool
        The flag is repeated for a list.
    nonzero : bool
        An integer that must not be 0.
    unique : bool
        A list whose entries must differ.
    flag_help : str or None
        Help of a ``bool`` setting's flag, which sets the opposite of the default (``--no-default-gates``
        turns ``default_gates`` off); None: ``help``.
    group : str
        Argument group of the flag in ``auditad audit --help``.
    deprecated : tuple of str
        Former names of the key, still accepted (with a `FutureWarning` naming the new one) in a
        configuration file and, as ``--former-name``, on the command line.
    """

    name: str
    kind: str
    default: Any
    help: str
    choices: Callable[[], tuple] | None = None
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    flag: str | None = None
    repeat: bool = False
    nonzero: bool = False
    unique: bool = False
    flag_help: str | None = None
    group: str = "protocol"
    deprecated: tuple = ()

    def allowed(self) -> tuple:
        """The allowed values (empty when any value of the type is allowed)."""
        return tuple(self.choices()) if self.choices is not None else ()


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "seed",
        "int",
        0,
        "Seeds every random step (splits, detectors, Monte Carlo nulls, pseudo-anomalies, "
        "bootstrap). Same config and seed give the same bytes.",
        low=0,
        flag="--seed",
        group="common",
    ),
    Setting(
        "leakage_k",
        "ints",
        [10, 1, 5, 20],
        "Neighbour counts of the leakage L_k; the first is the primary k "
        "(also the k of the per-class leakage in the protocol).",
        low=1,
        flag="--leakage-k",
        repeat=True,
        deprecated=("k",),
    ),
    Setting("metric", "choice", "euclidean", "Distance of the leakage.", choices=_metrics_choices, flag="--metric"),
    Setting(
        "backend",
        "choice",
        "auto",
        "kNN search of the leakage and the kNN detector (auto: exact below a few 10^5 samples).",
        choices=_backend_choices,
        flag="--backend",
    ),
    Setting(
        "project_dim",
        "auto_int",
        "auto",
        "Columns of the random PCA projection the approximate kNN search runs in before its exact re-rank "
        "(auto: 128 for rows of more than 256 columns, else none; 0: no projection).",
        low=0,
        flag="--project-dim",
    ),
    Setting(
        "protocol",
        "choice",
        "leave_one_class_out",
        "K-1 vs 1 (each class in turn is the anomaly) or 1 vs K-1.",
        choices=_protocol_choices,
        flag="--protocol",
    ),
    Setting(
        "detectors",
        "detectors",
        ["knn", "iforest", "lof"],
        "Detectors of the protocol audit: built-in names, "
        "PyOD detectors as pyod:NAME (decision_function, higher = more anomalous), or the name of a "
        "[detectors.NAME] table of the config.",
        choices=detector_choices,
        flag="--detector",
        repeat=True,
        unique=True,
    ),
    Setting(
        "detector_params",
        "detector_params",
        {},
        "Parameters per detector: knn = { k = 5 }, iforest = "
        '{ n_estimators = 100, max_samples = "auto" }, lof = { n_neighbors = 20 }; a named detector table '
        'NAME = { detector = "pyod:KNN", n_neighbors = 10 } (written [detectors.NAME] in the config) '
        "(config file only).",
    ),
    Setting(
        "epsilon",
        "float",
        0.05,
        "Near-random half-width epsilon of rho_rnd and rho_dir.",
        low=0.0,
        high=0.5,
        high_open=True,
        flag="--epsilon",
    ),
    Setting(
        "train_fraction",
        "float",
        0.8,
        "Share of each normal class used to fit the detectors.",
        low=0.0,
        high=1.0,
        low_open=True,
        high_open=True,
        flag="--train-fraction",
    ),
    Setting(
        "repeats", "int", 1, "Random train/test splits; the split-to-split spread is reported.", low=1, flag="--repeats"
    ),
    Setting(
        "confirm_repeats",
        "int",
        5,
        "With one split (--repeats 1): the candidate claims (classes significantly below 1/2, or told apart "
        "from random with an interval reaching 1/2 + epsilon; then undecided classes below 1/2), at most "
        "max(10, 0.1 K / this) per representation and detector, are re-run on this many new splits and seeds "
        "and decided on all draws; the others' intervals are widened by the variance between draws; 0 = off.",
        low=0,
        flag="--confirm-repeats",
    ),
    Setting(
        "contamination",
        "float",
        None,
        "Subsample the anomalies to this share of each test set (default: all of them).",
        low=0.0,
        high=1.0,
        low_open=True,
        high_open=True,
        flag="--contamination",
    ),
    Setting(
        "max_test_normals",
        "int",
        _default_max_test_normals(),
        "Per class-split task, at most this many test "
        "normals are scored (a stratified subsample, recorded per task); 0 = every test normal.",
        low=0,
        flag="--max-test-normals",
    ),
    Setting(
        "confidence_level",
        "float",
        0.95,
        "Confidence level of the DeLong intervals; rho_nonsig counts p >= 1 - confidence_level.",
        low=0.0,
        high=1.0,
        low_open=True,
        high_open=True,
        flag="--confidence-level",
        deprecated=("ci_level",),
    ),
    Setting(
        "n_jobs",
        "int",
        -1,
        "Parallel tasks of the protocol audit (fits of the per-task detectors in processes when they are many, "
        "the kNN/LOF task scoring on threads), the nulls (threads) and the model selection; -1 = all cores; "
        "results do not depend on it.",
        nonzero=True,
        flag="--n-jobs",
        group="execution",
    ),
    Setting(
        "null_metrics",
        "choices",
        ["auroc", "ap", "aupr_trap", "f1", "mcc_scaled"],
        "Metrics whose "
        "random-baseline null is computed at each class's test counts. The AUROC null is always computed: the "
        "observed AUROC(c) is placed on it.",
        choices=_metric_name_choices,
        flag="--null-metric",
        group="nulls",
        repeat=True,
    ),
    Setting(
        "null_q",
        "null_q",
        "coin",
        "Positive rate of the random binary predictions of the F1/MCC nulls: "
        "coin (1/2), prior (the anomaly share) or a number in [0, 1].",
        choices=lambda: NULL_Q_NAMES,
        low=0.0,
        high=1.0,
        flag="--null-q",
        group="nulls",
    ),
    Setting(
        "null_method",
        "choice",
        "auto",
        "Exact where feasible, else analytic/Monte Carlo.",
        choices=lambda: NULL_METHODS,
        flag="--null-method",
        group="nulls",
    ),
    Setting(
        "null_runs",
        "int",
        2000,
        "Monte Carlo runs of the nulls that are simulated.",
        low=1,
        flag="--null-runs",
        group="nulls",
    ),
    Setting(
        "landscape_metrics",
        "choices",
        ["auroc", "aupr_trap", "f1", "mcc_scaled"],
        "Metrics of the landscapes.",
        choices=_metric_name_choices,
        flag="--landscape-metric",
        group="landscapes",
        repeat=True,
    ),
    Setting(
        "landscape_resolution",
        "int",
        101,
        "Grid points per axis of the TPR x TNR landscapes.",
        low=2,
        high=1001,
        flag="--landscape-resolution",
        group="landscapes",
    ),
    Setting(
        "landscape_reference",
        "float",
        0.5,
        "Reference ratio of the difference maps and of the comparisons.",
        low=0.0,
        high=1.0,
        low_open=True,
        high_open=True,
        flag="--landscape-reference",
        group="landscapes",
    ),
    Setting(
        "landscape_ratios",
        "ratios",
        [],
        "Extra ratios to compare with: numbers in (0, 1) or preset names (Hermary, Mejri and Aouada, Table I).",
        choices=_ratio_presets,
        low=0.0,
        high=1.0,
        low_open=True,
        high_open=True,
        flag="--landscape-ratio",
        group="landscapes",
        repeat=True,
    ),
    Setting(
        "selection_estimators",
        "strings",
        [],
        "Estimators of the model selection (empty: inlier_variance, auc_bound, pseudo_auc).",
        flag="--selection-estimator",
        group="selection",
        repeat=True,
    ),
    Setting(
        "selection_probes",
        "strings",
        [],
        "Pseudo-anomaly probes of the model selection (empty: all that the metadata allows).",
        flag="--selection-probe",
        group="selection",
        repeat=True,
    ),
    Setting(
        "selection_pool_by",
        "choice",
        None,
        "Candidate attribute that splits the candidates into separate selection pools.",
        choices=_pool_by_choices,
        flag="--selection-pool-by",
        group="selection",
    ),
    Setting(
        "selection_n_boot",
        "int",
        1000,
        "Paired bootstrap replicates of the model selection (0 = none).",
        low=0,
        flag="--selection-n-boot",
        group="selection",
    ),
    # declared with the other gate options (auditad.gates.options): flag, help and default come from there
    Setting(
        "default_gates",
        "bool",
        _NO_DEFAULT_GATES.default,
        _NO_DEFAULT_GATES.config_help,
        flag=_NO_DEFAULT_GATES.flag,
        group="gates",
        flag_help=_NO_DEFAULT_GATES.help_for("audit"),
    ),
)

#: Name of a setting -> its declaration.
SETTINGS_BY_NAME = {s.name: s for s in SETTINGS}
#: Former name of a setting -> its setting.
FORMER_NAMES = {old: s for s in SETTINGS for old in s.deprecated}

#: Audit settings and their defaults.
DEFAULT_SETTINGS: dict[str, Any] = {s.name: copy.deepcopy(s.default) for s in SETTINGS}
