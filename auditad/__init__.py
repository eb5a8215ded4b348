"""auditad: audit the evaluation protocols of anomaly-detection benchmarks.

Start here:

auditad.run_audit(X, y)                     the whole audit of arrays: verdict, findings, report (AuditReport)
auditad.leakage(X, y, k=10)                 how much each class's neighbourhoods leak into other classes (L_k)
auditad.audit_protocol(X, y)                K-1 vs 1 class-split runs: per-class AUROC, rho_inv, rho_dir
auditad.null_distribution(n_pos, n_neg)     what a random detector scores at these class counts (p-values)
auditad.run_selection(bench)                judge anomaly-free model-selection estimators
auditad.audit.run_audit(inputs, out)        the pipeline over configured benchmarks (several, from files)
                                            (inputs: auditad.audit.example_inputs() or load_config + load_inputs)
$ auditad demo                              the full audit of a bundled example, from the command line
$ auditad audit --embeddings X.npy --labels y.csv --out report      the same on your data

Each returns a frozen ``...Result`` with ``to_frame()``, ``to_dict()`` and a notebook display.

Implementation note: the public names are loaded on first access (PEP 562 module ``__getattr__``):
``import auditad`` and ``auditad --version`` import no numerical library, and the command line
installs its signal handling before NumPy, SciPy or scikit-learn load, so a Ctrl-C at any moment
gives the one-line message.  ``from auditad import leakage`` gives the function, as before.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types

from .errors import (
    ApproximationWarning,
    AuditadError,
    AuditadWarning,
    InvalidInputError,
    SkippedItemWarning,
    UndefinedValueWarning,
)

__version__ = "0.3.0"

#: submodule -> the public names it defines, imported on first access.
_LAZY_MODULES = {
    "audit.oneshot": ("AuditReport", "run_audit"),
    "leakage": ("LeakageResult", "leakage"),
    "datasets": ("Benchmark", "load_benchmark", "load_example"),
    "neighbors": ("NeighborsResult", "kneighbors"),
    "protocol": (
        "Detector",
        "InstabilityResult",
        "IsolationForestDetector",
        "KNNDetector",
        "LOFDetector",
        "ProtocolResult",
        "audit_protocol",
        "instability_rates",
    ),
    "metrics": (
        "AurocCIResult",
        "OperatingPointResult",
        "ScoreMetricsResult",
        "aupr_trapezoid",
        "auroc",
        "auroc_ci",
        "average_precision",
        "best_f1",
        "f1_at_threshold",
        "mcc_at_threshold",
        "operating_point_metrics",
        "scaled_mcc",
        "score_metrics",
    ),
    "nulls": ("NullResult", "NullSweepResult", "null_distribution", "null_sweep"),
    "landscapes": (
        "PAPER_RATIOS",
        "LandscapeResult",
        "landscape",
        "landscape_correlations",
        "landscape_coverage",
        "landscape_difference",
        "landscape_regions",
        "minimal_tpr",
    ),
    "selection.scoring": ("KNNScorer", "ScoreResult", "knn_scores", "pool_sequences"),
    "selection.pseudo": ("PseudoAnomalies", "make_probe"),
    "selection.bounds": (
        "AUCBoundResult",
        "DomainMomentsResult",
        "LIDResult",
        "auc_bound",
        "domain_moments",
        "local_intrinsic_dimension",
    ),
    "selection": (
        "Candidate",
        "SelectionBenchmark",
        "SelectionResult",
        "SelectionTask",
        "TaskEmbeddings",
        "estimate_candidate",
        "run_selection",
    ),
    "synthetic": ("digits_benchmark", "make_selection_benchmark"),
    "manifest": ("load_manifest", "write_manifest"),
    "duplicates": ("DuplicatesResult", "find_duplicates", "train_test_overlap"),
    "leaderboards": (
        "Leaderboard",
        "LeaderboardAudit",
        "RankingResult",
        "FriedmanResult",
        "read_leaderboard",
        "combine_leaderboards",
        "audit_leaderboard",
        "rank_methods",
    ),
    "plotting.leaderboards": ("plot_critical_difference",),
}
_LAZY = {name: module for module, names in _LAZY_MODULES.items() for name in names}

__all__ = [
    "__version__",
    "run_audit",
    "AuditReport",
    "AuditadError",
    "InvalidInputError",
    "AuditadWarning",
    "UndefinedValueWarning",
    "ApproximationWarning",
    "SkippedItemWarning",
    "leakage",
    "LeakageResult",
    "kneighbors",
    "NeighborsResult",
    "Benchmark",
    "load_benchmark",
    "load_example",
    "audit_protocol",
    "instability_rates",
    "ProtocolResult",
    "InstabilityResult",
    "KNNDetector",
    "IsolationForestDetector",
    "LOFDetector",
    "Detector",
    "auroc",
    "auroc_ci",
    "AurocCIResult",
    "average_precision",
    "aupr_trapezoid",
    "best_f1",
    "f1_at_threshold",
    "mcc_at_threshold",
    "scaled_mcc",
    "score_metrics",
    "ScoreMetricsResult",
    "operating_point_metrics",
    "OperatingPointResult",
    "null_distribution",
    "null_sweep",
    "NullResult",
    "NullSweepResult",
    "landscape",
    "landscape_difference",
    "landscape_regions",
    "minimal_tpr",
    "landscape_coverage",
    "landscape_correlations",
    "LandscapeResult",
    "PAPER_RATIOS",
    "KNNScorer",
    "ScoreResult",
    "knn_scores",
    "pool_sequences",
    "PseudoAnomalies",
    "make_probe",
    "auc_bound",
    "AUCBoundResult",
    "domain_moments",
    "DomainMomentsResult",
    "local_intrinsic_dimension",
    "LIDResult",
    "Candidate",
    "TaskEmbeddings",
    "SelectionTask",
    "SelectionBenchmark",
    "SelectionResult",
    "estimate_candidate",
    "run_selection",
    "digits_benchmark",
    "make_selection_benchmark",
    "load_manifest",
    "write_manifest",
    "find_duplicates",
    "DuplicatesResult",
    "train_test_overlap",
    "read_leaderboard",
    "combine_leaderboards",
    "Leaderboard",
    "audit_leaderboard",
    "LeaderboardAudit",
    "rank_methods",
    "RankingResult",
    "FriedmanResult",
    "plot_critical_difference",
]


def __getattr__(name: str):
    """Import the submodule defining ``name`` on first access and cache the name here."""
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f".{module}", __name__), name)
        globals()[name] = value
        return value
    if not name.startswith("__") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f".{name}", __name__)  # a submodule: auditad.metrics, auditad.report
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public names only (not the modules this file imports for its own work)."""
    return sorted(__all__)


#: Modules that moved when the package was laid out by family: old import path -> new one. The old path
#: serves the same module object (``from auditad.report.checks import evaluate_gates`` keeps working).
_MOVED_MODULES = {
    "auditad.report.settings": "auditad.audit.settings",
    "auditad.report.config": "auditad.audit.config",
    "auditad.report.loader": "auditad.audit.loader",
    "auditad.report.assemble": "auditad.audit.runner",
    "auditad.report.bounded": "auditad.audit.bounded",
    "auditad.report.rules": "auditad.gates.rules",
    "auditad.report.checks": "auditad.gates.checks",
    "auditad.scoring": "auditad.selection.scoring",
    "auditad.pseudo": "auditad.selection.pseudo",
    "auditad.bounds": "auditad.selection.bounds",
    "auditad.protocol.neighbours": "auditad.protocol.neighbor_lists",  # one spelling with auditad.neighbors
}
#: Modules that moved with a `DeprecationWarning` (once per module): old import path -> new one (same object).
_DEPRECATED_MODULES = {
    "auditad.leaderboards.plotting": "auditad.plotting.leaderboards",  # every figure in auditad.plotting
    "auditad.results.leaderboard_page": "auditad.report.leaderboard_page",  # every page in auditad.report
}
#: Public names a package exported before they moved, served with a `DeprecationWarning` (once per name):
#: package -> {name: the module defining it now}. The package itself never imports the new module (a
#: statistics package may not import the figures).
_DEPRECATED_NAMES = {
    "auditad.leaderboards": {"plot_critical_difference": "auditad.plotting.leaderboards"},
    "auditad.results": {
        "render_results_html": "auditad.report.results_page",
        "results_markdown": "auditad.report.results_page",
    },
    "auditad.results.leaderboard": {  # a leaderboard's summary is built by the statistics package
        name: "auditad.leaderboards.summary"
        for name in (
            "leaderboard_summary",
            "CHECK_KEYS",
            "RANKING_KEYS",
            "MAX_SUMMARY_ITEMS",
            "LEADERBOARD_SCHEMA_VERSION",
        )
    },
}
_WARNED: set = set()


def _warn_moved(old: str, new: str) -> None:
    """One `DeprecationWarning` per old path and process, pointing at the importing code."""
    if old not in _WARNED:
        _WARNED.add(old)
        import warnings

        warnings.warn(f"{old} is deprecated: use {new} (the same object)", DeprecationWarning, stacklevel=3)


#: Names ``auditad.report`` exported before the audit pipeline left it: name -> the module defining it now.
_MOVED_REPORT_NAMES = {
    "load_config": "auditad.audit.config",
    "config_from_paths": "auditad.audit.config",
    "AuditConfig": "auditad.audit.config",
    "BenchmarkConfig": "auditad.audit.config",
    "load_inputs": "auditad.audit.loader",
    "example_inputs": "auditad.audit.loader",
    "BenchmarkInputs": "auditad.audit.loader",
    "audit_benchmark": "auditad.audit.runner",
    "run_audit": "auditad.audit.runner",
    "BenchmarkAudit": "auditad.audit.runner",
    "AuditRun": "auditad.audit.runner",
    "SCHEMA_VERSION": "auditad.audit.runner",
}


class _MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves the old import paths of moved modules, and the moved names of ``auditad.report``.

    An old module path loads the new module and puts that same object in ``sys.modules`` under the old
    name. ``auditad.report`` itself is loaded as usual, then given a module ``__getattr__`` that finds
    its former pipeline names in `auditad.audit` (so the presentation package never imports the
    pipeline itself).
    """

    def find_spec(self, fullname, path=None, target=None):
        if fullname in _MOVED_MODULES or fullname in _DEPRECATED_MODULES:
            return importlib.util.spec_from_loader(fullname, self)
        if fullname == f"{__name__}.report" or fullname in _DEPRECATED_NAMES:
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            if spec is not None and spec.loader is not None:
                spec.loader = _ReportLoader(spec.loader)
            return spec
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        # the import system takes whatever sys.modules holds under the name once exec_module returns
        old = module.__name__
        if old in _DEPRECATED_MODULES:
            _warn_moved(old, _DEPRECATED_MODULES[old])
            sys.modules[old] = importlib.import_module(_DEPRECATED_MODULES[old])
        else:
            sys.modules[old] = importlib.import_module(_MOVED_MODULES[old])


class _ReportLoader(importlib.abc.Loader):
    """Loads ``auditad.report`` (or a package of `_DEPRECATED_NAMES`), then serves its moved names."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        moved = _MOVED_REPORT_NAMES if module.__name__ == f"{__name__}.report" else {}
        deprecated = _DEPRECATED_NAMES.get(module.__name__, {})

        def __getattr__(name):
            target = moved.get(name) or deprecated.get(name)
            if target is None:
                raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")
            if name in deprecated:
                _warn_moved(f"{module.__name__}.{name}", f"{target}.{name}")
            return getattr(importlib.import_module(target), name)

        module.__getattr__ = __getattr__

    def __getattr__(self, name):  # is_package, get_code, get_source, ... of the real loader
        return getattr(self._loader, name)


if not any(isinstance(f, _MovedModuleFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, _MovedModuleFinder())


class _Package(types.ModuleType):
    """The package's module type: importing a submodule never hides the public name it shares.

    Python binds ``auditad.leakage`` to the submodule when ``auditad.leakage`` is first imported;
    the public name ``leakage`` is the function, so that binding is skipped (the submodule stays
    in ``sys.modules`` and ``from auditad.leakage import LeakageResult`` works as usual).
    """

    def __setattr__(self, name, value):
        if name in _LAZY and isinstance(value, types.ModuleType) and _LAZY[name] == name:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
