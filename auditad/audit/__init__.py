"""The audit pipeline: settings, configuration, loading, and the run of one benchmark or many.

* `settings` -- every audit setting declared once (validation, CLI flags, schema, docs);
* `config` -- the TOML audit configuration (``docs/config.md``);
* `loader` -- reads a benchmark's files (or the bundled example) into memory;
* `sections` -- the computation of each report section (``run_<section>``: the statistics packages called with
  the audit's settings; the report's sections only render their results);
* `runner` -- runs the report's sections of one benchmark in order, collects
  ``summary.json``, evaluates the gates and writes the report folder atomically (`run_audit`);
* `bounded` -- keeps ``summary.json`` bounded at many classes.
* `oneshot` -- ``auditad.run_audit(embeddings, labels, **settings)``: the whole audit of arrays in one call,
  returning an ``AuditReport``.

The names below are imported lazily (this package stays light to import).

Examples
--------
>>> from auditad.audit import example_inputs, run_audit          # doctest: +SKIP
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
]

_LAZY = {
    "load_config": "config",
    "config_from_paths": "config",
    "AuditConfig": "config",
    "BenchmarkConfig": "config",
    "load_inputs": "loader",
    "example_inputs": "loader",
    "audit_benchmark": "runner",
    "run_audit": "runner",
    "BenchmarkInputs": "loader",
    "BenchmarkAudit": "runner",
    "AuditRun": "runner",
    "SCHEMA_VERSION": "runner",
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
