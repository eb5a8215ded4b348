"""Architecture checks of the package: a private name never crosses modules.

A ``_name`` used by another module is a missing public (or shared-internal) function. Shared internal
*modules* (``auditad._format``, ``auditad._io``, ``auditad._validation``, ...) may be imported; their
public names may be used; private *names* of any module may not be imported from elsewhere, neither with
``from .x import _y`` nor as ``x._y``.
"""

from pathlib import Path


def _package_modules():
    import auditad

    root = Path(auditad.__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        yield name, path, path.name == "__init__.py"


def _module_exists(name: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _private_imports(name: str, path, is_package: bool) -> list[str]:
    """``from .x import _y`` and ``x._y`` where ``_y`` is a private name (not a module) of another auditad module."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if is_package else name.rpartition(".")[0]
    found, aliases = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source != "auditad" and not source.startswith("auditad."):
                continue
            for a in node.names:
                if _module_exists(f"{source}.{a.name}"):
                    aliases[a.asname or a.name] = f"{source}.{a.name}"
                    continue
                if a.name.startswith("_") and not a.name.startswith("__") and source != name:
                    found.append(f"{name}: from {source} import {a.name}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("auditad"):
                    aliases[a.asname or a.name] = a.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            attr, target = node.attr, aliases[node.value.id]
            if attr.startswith("_") and not attr.startswith("__") and target != name \
                    and not _module_exists(f"{target}.{attr}"):
                found.append(f"{name}: {node.value.id}.{attr} ({target})")
    return found


def test_no_module_imports_a_private_name_of_another_module():
    # shared internal *modules* (auditad._format, auditad._io, ...) may be imported; private *names* may not
    found = [hit for name, path, pkg in _package_modules() for hit in _private_imports(name, path, pkg)]
    assert found == []


def test_the_private_import_check_finds_what_it_should(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from .landscapes import _check_result\nfrom . import _format, nulls\n"
                   "x = nulls._resolve_q\ny = _format.stat\nfrom ._format import _check_target\n")
    hits = _private_imports("auditad.bad", bad, False)
    assert hits == ["auditad.bad: from auditad.landscapes import _check_result",
                    "auditad.bad: from auditad._format import _check_target",
                    "auditad.bad: nulls._resolve_q (auditad.nulls)"]


# --------------------------------------------------------------------------- layering (docs/architecture.md)
def _imports_of(name: str, path, is_package: bool) -> set[str]:
    """Every auditad module ``name`` imports, at module level or inside a function (lazy imports count)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if is_package else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source != "auditad" and not source.startswith("auditad."):
                continue
            for a in node.names:
                out.add(f"{source}.{a.name}" if _module_exists(f"{source}.{a.name}") else source)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name == "auditad" or a.name.startswith("auditad."))
    out.discard(name)
    return out


def _import_graph() -> dict[str, set[str]]:
    return {name: _imports_of(name, path, pkg) for name, path, pkg in _package_modules()}


def _family(module: str) -> str:
    """The layer a module belongs to: its first component below ``auditad`` (``auditad`` for the root)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "auditad"


FOUNDATION = {"auditad", "errors", "_validation", "_rng", "_io", "_json", "_format", "_progress", "_toml"}
COMPUTING = {"metrics", "nulls", "landscapes", "neighbors", "execution", "leakage", "protocol", "selection",
             "datasets", "synthetic", "manifest", "duplicates", "leaderboards"}
APPLICATION = {"gates", "report", "audit", "cli", "plotting", "results", "diff", "landscape_study"}
#: layer -> the layers it must never import (the data flows one way: CLI -> pipeline -> report -> statistics).
FORBIDDEN = {
    **{f: COMPUTING | APPLICATION for f in FOUNDATION},
    **{f: APPLICATION for f in COMPUTING},
    "plotting": {"gates", "report", "audit", "cli", "results", "diff", "landscape_study"},
    "gates": COMPUTING | APPLICATION - {"gates"},
    "report": {"audit", "cli"},
    "audit": {"cli"},
}


def test_layers_import_only_downwards():
    found = [f"{m} -> {t}" for m, targets in _import_graph().items() for t in sorted(targets)
             if _family(t) in FORBIDDEN.get(_family(m), set())]
    assert found == []


def test_every_module_belongs_to_a_declared_layer():
    unknown = {_family(m) for m in _import_graph()} - FOUNDATION - COMPUTING - APPLICATION - {"__main__"}
    assert unknown == set(), "add the new top-level module or package to a layer here and in docs/architecture.md"


def test_presentation_never_imports_the_pipeline():
    graph = _import_graph()
    offenders = {m: sorted(t for t in ts if _family(t) in {"audit", "cli"})
                 for m, ts in graph.items() if _family(m) == "report"}
    assert {m: t for m, t in offenders.items() if t} == {}
    defined = [name for name, path, _ in _package_modules() if _family(name) == "report"
               and "def run_audit(" in path.read_text(encoding="utf-8")]
    assert defined == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    import sys

    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle_between_modules():
    assert _cycles(_import_graph()) == []


def test_the_cycle_check_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_top_level_has_few_private_modules_and_no_module_is_long():
    import auditad

    root = Path(auditad.__file__).resolve().parent
    private = sorted(p.name for p in root.glob("_*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert len(private) <= 8, private
    long = {str(p.relative_to(root)): n for p in root.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800}
    assert long == {}


#: Public import paths that existed before the package was laid out by family: each still works.
OLD_PUBLIC_PATHS = [
    ("auditad.report", ("run_audit", "audit_benchmark", "load_config", "config_from_paths", "AuditConfig",
                        "BenchmarkConfig", "load_inputs", "example_inputs", "BenchmarkInputs", "BenchmarkAudit",
                        "AuditRun", "SCHEMA_VERSION", "schema_path")),
    ("auditad.report.checks", ("evaluate_gates", "run_gates", "GateResult", "verdict", "load_summary")),
    ("auditad.report.rules", ("parse_rule",)),
    ("auditad.report.settings", ("SETTINGS", "THRESHOLDS", "DEFAULT_GATES", "validate_settings")),
    ("auditad.report.config", ("load_config", "settings_to_toml", "AuditConfig")),
    ("auditad.report.loader", ("load_inputs", "example_inputs")),
    ("auditad.report.assemble", ("run_audit", "audit_benchmark", "SCHEMA_VERSION")),
    ("auditad.report.bounded", ("MAX_INLINE_CLASSES",)),
    ("auditad.report.export", ("write_appendix",)),
    ("auditad.scoring", ("KNNScorer", "ScoreResult", "knn_scores", "pool_sequences")),
    ("auditad.pseudo", ("PseudoAnomalies", "make_probe")),
    ("auditad.bounds", ("auc_bound", "AUCBoundResult", "domain_moments", "local_intrinsic_dimension")),
    ("auditad.metrics", ("auroc", "auroc_ci", "AurocCIResult", "score_metrics")),
    ("auditad.nulls", ("null_distribution", "null_sweep", "NullResult")),
    ("auditad.landscapes", ("landscape", "LandscapeResult", "landscape_correlations", "MetricRelationsResult",
                            "PAPER_RATIOS", "REGIONS", "metric_range")),
    ("auditad.plotting", ("plot_leakage_vs_auroc", "plot_protocol_heatmap")),
    ("auditad.results", ("audit_results",)),
    ("auditad.cli", ("main",)),
]


def test_old_public_import_paths_still_work():
    import importlib

    import auditad

    missing = [f"{mod}.{name}" for mod, names in OLD_PUBLIC_PATHS for name in names
               if not hasattr(importlib.import_module(mod), name)]
    assert missing == []
    assert importlib.import_module("auditad.report.checks") is importlib.import_module("auditad.gates.checks")
    assert importlib.import_module("auditad.scoring") is importlib.import_module("auditad.selection.scoring")
    assert [n for n in auditad.__all__ if not hasattr(auditad, n)] == []
