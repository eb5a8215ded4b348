"""Report layer: checks (pass/warn/fail gates), assembly of plain values and figures, rendering, export.

* :mod:`~auditad.report.settings` -- every audit setting declared once (validation, CLI flags, schema, docs);
* :mod:`~auditad.report.config` -- the TOML audit configuration (``docs/config.md``);
* :mod:`~auditad.report.loader` -- reads a benchmark's files (or the bundled example) into memory;
* :mod:`~auditad.report.sections` -- one module per report section, ``build(ctx) -> Section``, and the registry;
* :mod:`~auditad.report.assemble` -- runs the sections of one benchmark in order, collects ``summary.json``,
  evaluates the gates and writes the report folder atomically (:func:`run_audit`);
* :mod:`~auditad.report.bounded` -- keeps ``summary.json`` bounded at many classes;
* :mod:`~auditad.report.render` -- jinja2 templates -> self-contained HTML, figures -> SVG / PDF;
* :mod:`~auditad.report.checks` -- gate rules over summary paths;
* :mod:`~auditad.report.export` -- JUnit XML, Markdown, LaTeX tables and the paper appendix.

The names below are imported lazily (this package stays light to import).

Examples
--------
>>> from auditad.report import example_inputs, run_audit       # doctest: +SKIP
>>> run = run_audit([example_inputs(seed=0)], "auditad-demo")    # doctest: +SKIP
>>> run.index                                                     # doctest: +SKIP
PosixPath('auditad-demo/index.html')
"""

from __future__ import annotations

__all__ = [
    "load_config",
    "config_from_paths",
    "AuditConfig",
    "BenchmarkConfig",
    "load_inputs",
    "example_inputs",
    "audit_benchmark",
    "run_audit",
    "BenchmarkInputs",
    "BenchmarkAudit",
    "AuditRun",
    "SCHEMA_VERSION",
    "schema_path",
]

_LAZY = {
    "load_config": "config", "config_from_paths": "config", "AuditConfig": "config", "BenchmarkConfig": "config",
    "load_inputs": "loader", "example_inputs": "loader", "audit_benchmark": "assemble", "run_audit": "assemble",
    "BenchmarkInputs": "loader", "BenchmarkAudit": "assemble", "AuditRun": "assemble",
    "SCHEMA_VERSION": "assemble",
}


def schema_path():
    """Path of the JSON Schema of ``summary.json`` shipped with the package.

    See Also
    --------
    run_audit : the full audit of several benchmarks.
    auditad.report.checks.run_gates : gates on written summaries.
    auditad.report.export.write_appendix : the LaTeX appendix.

    References
    ----------
    1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly Detection".
    2. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
       of Anomaly Detection".
    3. K. Wilkinghoff, Z.-H. Tan, "Can We Predict Anomaly Detection Performance from
       Embedding-Space Geometry?".
    """
    from importlib.resources import files

    return files("auditad").joinpath("schemas", "summary.schema.json")


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
