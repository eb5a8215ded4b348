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
                base = base[: len(base) - node.level + 1]
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
            if (
                attr.startswith("_")
                and not attr.startswith("__")
                and target != name
                and not _module_exists(f"{target}.{attr}")
            ):
                found.append(f"{name}: {node.value.id}.{attr} ({target})")
    return found


def test_no_module_imports_a_private_name_of_another_module():
    # shared internal *modules* (auditad._format, auditad._io, ...) may be imported; private *names* may not
    found = [hit for name, path, pkg in _package_modules() for hit in _private_imports(name, path, pkg)]
    assert found == []


def test_the_private_import_check_finds_what_it_should(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from .landscapes import _check_result\nfrom . import _format, nulls\n"
        "x = nulls._resolve_q\ny = _format.stat\nfrom ._format import _check_target\n"
    )
    hits = _private_imports("auditad.bad", bad, False)
    assert hits == [
        "auditad.bad: from auditad.landscapes import _check_result",
        "auditad.bad: from auditad._format import _check_target",
        "auditad.bad: nulls._resolve_q (auditad.nulls)",
    ]


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
                base = base[: len(base) - node.level + 1]
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


FOUNDATION = {
    "auditad",
    "errors",
    "_validation",
    "_rng",
    "_io",
    "_json",
    "_format",
    "_progress",
    "_toml",
    "inputfiles",
    "_mapped_pages",
    "_memory",
    "findings",
}
COMPUTING = {
    "metrics",
    "nulls",
    "landscapes",
    "neighbors",
    "execution",
    "scheduler",
    "leakage",
    "protocol",
    "selection",
    "datasets",
    "synthetic",
    "manifest",
    "duplicates",
    "leaderboards",
    "diskarray",
    "timeseries",
    "ood",
}
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
    found = [
        f"{m} -> {t}"
        for m, targets in _import_graph().items()
        for t in sorted(targets)
        if _family(t) in FORBIDDEN.get(_family(m), set())
    ]
    assert found == []


def test_every_module_belongs_to_a_declared_layer():
    unknown = {_family(m) for m in _import_graph()} - FOUNDATION - COMPUTING - APPLICATION - {"__main__"}
    assert unknown == set(), "add the new top-level module or package to a layer here and in docs/architecture.md"


def test_presentation_never_imports_the_pipeline():
    graph = _import_graph()
    offenders = {
        m: sorted(t for t in ts if _family(t) in {"audit", "cli"}) for m, ts in graph.items() if _family(m) == "report"
    }
    assert {m: t for m, t in offenders.items() if t} == {}
    defined = [
        name
        for name, path, _ in _package_modules()
        if _family(name) == "report" and "def run_audit(" in path.read_text(encoding="utf-8")
    ]
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
    long = {
        str(p.relative_to(root)): n
        for p in root.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800
    }
    assert long == {}


#: Public import paths that existed before the package was laid out by family: each still works.
OLD_PUBLIC_PATHS = [
    (
        "auditad.report",
        (
            "run_audit",
            "audit_benchmark",
            "load_config",
            "config_from_paths",
            "AuditConfig",
            "BenchmarkConfig",
            "load_inputs",
            "example_inputs",
            "BenchmarkInputs",
            "BenchmarkAudit",
            "AuditRun",
            "SCHEMA_VERSION",
            "schema_path",
        ),
    ),
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
    ("auditad.protocol.neighbours", ("prepare_rows", "nearest", "lof_tables")),
    ("auditad.metrics", ("auroc", "auroc_ci", "AurocCIResult", "score_metrics")),
    ("auditad.nulls", ("null_distribution", "null_sweep", "NullResult")),
    (
        "auditad.landscapes",
        (
            "landscape",
            "LandscapeResult",
            "landscape_correlations",
            "MetricRelationsResult",
            "PAPER_RATIOS",
            "REGIONS",
            "metric_range",
        ),
    ),
    ("auditad.plotting", ("plot_leakage_vs_auroc", "plot_protocol_heatmap")),
    ("auditad.results", ("audit_results",)),
    ("auditad.cli", ("main",)),
]


def test_old_public_import_paths_still_work():
    import importlib

    import auditad

    missing = [
        f"{mod}.{name}"
        for mod, names in OLD_PUBLIC_PATHS
        for name in names
        if not hasattr(importlib.import_module(mod), name)
    ]
    assert missing == []
    assert importlib.import_module("auditad.report.checks") is importlib.import_module("auditad.gates.checks")
    assert importlib.import_module("auditad.scoring") is importlib.import_module("auditad.selection.scoring")
    assert [n for n in auditad.__all__ if not hasattr(auditad, n)] == []


# --------------------------------------------------------------------------- the report reads result objects
def _keys_imports(name: str, path) -> list[str]:
    """Names ending in ``_KEYS`` that a module imports (``from x import Y_KEYS``) or reads off a module
    (``x.Y_KEYS``): string-keyed column lists that belong to the result objects."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found += [
                f"{name}: from {node.module or '.'} import {a.name}" for a in node.names if a.name.endswith("_KEYS")
            ]
        elif isinstance(node, ast.Attribute) and node.attr.endswith("_KEYS"):
            found.append(f"{name}: .{node.attr}")
    return found


def test_the_report_imports_no_keys_constant():
    # results derive, the report reads: the report reads the attributes of the typed summaries
    # (auditad.protocol.DetectorSummary, ...), never a string-keyed column list such as SUMMARY_KEYS
    found = [
        hit for name, path, _ in _package_modules() if _family(name) == "report" for hit in _keys_imports(name, path)
    ]
    assert found == []


def test_the_keys_check_finds_what_it_should(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from ...protocol import SUMMARY_KEYS, MEAN\nfrom ... import protocol\nx = protocol.RATE_KEYS\n")
    assert _keys_imports("auditad.report.bad", bad) == [
        "auditad.report.bad: from protocol import SUMMARY_KEYS",
        "auditad.report.bad: .RATE_KEYS",
    ]


# --------------------------------------------------------------------------- function length and nesting
#: Longest function allowed, in lines from ``def`` to its last line with the docstring left out.
MAX_FUNCTION_LINES = 120
#: Deepest nesting of for / while / if / with / try blocks allowed inside one function.
MAX_NESTING = 4


def _functions(source: str):
    """``(name, line, node)`` of every function and method of ``source`` (nested ones included)."""
    import ast

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node.lineno, node


def _code_lines(node) -> int:
    """Lines of a function from its ``def`` to its last line (a nested function's included), docstring excluded."""
    import ast

    lines = node.end_lineno - node.lineno + 1
    first = node.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        lines -= first.end_lineno - first.lineno + 1
    return lines


def _nesting(node, depth: int = 0) -> int:
    """Deepest nesting of block statements inside ``node``; an ``elif`` counts as its ``if``, a nested function
    or class is a function of its own (checked on its own)."""
    import ast

    blocks = (
        ast.For,
        ast.AsyncFor,
        ast.While,
        ast.If,
        ast.With,
        ast.AsyncWith,
        ast.Try,
        *((ast.TryStar,) if hasattr(ast, "TryStar") else ()),
    )
    deepest = depth
    for field, value in ast.iter_fields(node):
        for child in value if isinstance(value, list) else [value]:
            if not isinstance(child, ast.AST) or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
            ):
                continue
            is_elif = isinstance(node, ast.If) and field == "orelse" and value == [child] and isinstance(child, ast.If)
            step = 1 if isinstance(child, blocks) and not is_elif else 0
            deepest = max(deepest, _nesting(child, depth + step))
    return deepest


def _package_functions():
    for name, path, _ in _package_modules():
        for func, line, node in _functions(path.read_text(encoding="utf-8")):
            yield f"{name}.{func} (line {line})", node


def test_no_function_is_longer_than_120_lines():
    long = {where: n for where, node in _package_functions() if (n := _code_lines(node)) > MAX_FUNCTION_LINES}
    assert long == {}, "split these into named helpers"


def test_no_function_nests_blocks_deeper_than_4():
    deep = {where: d for where, node in _package_functions() if (d := _nesting(node)) > MAX_NESTING}
    assert deep == {}, "move the inner loops into named helpers"


def test_the_length_and_nesting_checks_find_what_they_should():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    ((_, _, long),) = _functions(f'def f():\n    """Doc\n    string."""\n{body}\n')
    ((_, _, undocumented),) = _functions(f"def f():\n{body}\n")
    assert _code_lines(long) == MAX_FUNCTION_LINES + 1 and _code_lines(undocumented) == MAX_FUNCTION_LINES + 1
    deep = (
        "def f(xs):\n    for a in xs:\n        while a:\n            with open(a) as fh:\n"
        "                try:\n                    if fh:\n                        pass\n"
        "                except OSError:\n                    pass\n"
    )
    flat = (
        "def g(x):\n    if x == 1:\n        pass\n    elif x == 2:\n        pass\n    elif x == 3:\n"
        "        if x:\n            pass\n    else:\n        pass\n\n"
        "    def inner():\n        for a in x:\n            for b in a:\n                for c in b:\n"
        "                    pass\n"
    )
    assert [(name, _nesting(node)) for name, _, node in _functions(deep)] == [("f", 5)]
    assert sorted((name, _nesting(node)) for name, _, node in _functions(flat)) == [("g", 2), ("inner", 3)]
