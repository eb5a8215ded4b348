"""Presentation: the report's sections, HTML rendering, and the Markdown/LaTeX/JUnit exports.

* `sections` -- one module per report section, ``build(ctx) -> Section``, and the registry;
* `render` -- jinja2 templates -> self-contained HTML, figures -> SVG / PDF;
* [`export`][auditad.report.export] -- JUnit XML, Markdown, LaTeX tables and the paper appendix;
* `tables` -- CSV, Markdown and LaTeX tables;
* `folder` -- one atomic writer for the standalone report folders.

The audit pipeline that runs the sections and writes the report folder is `auditad.audit`
(`auditad.audit.run_audit`); the gates are `auditad.gates`. This package imports neither
the pipeline nor the command line.
"""

from __future__ import annotations

__all__ = ["schema_path"]


def schema_path():
    """Path of the JSON Schema of ``summary.json`` shipped with the package.

    See Also
    --------
    - `auditad.audit.run_audit`: the full audit of several benchmarks.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: gates on written summaries.
    - [`auditad.report.export.write_appendix`][auditad.report.export.write_appendix]: the LaTeX appendix.
    """
    from importlib.resources import files

    return files("auditad").joinpath("schemas", "summary.schema.json")
