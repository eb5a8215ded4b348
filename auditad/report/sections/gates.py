"""Report section: the gates (rules over ``summary.json``) and the verdict (`auditad.gates.checks`)."""

from __future__ import annotations

from typing import Mapping

from ..._format import number
from ...findings import verdict_text
from . import Section, info

ID = "gates"
# verdict_text (the verdict sentence of the gates) is auditad.findings.verdict_text, imported above for render.py


def build(ctx) -> Section:
    """The gates section from ``ctx.gate_results`` (a tuple of [`GateResult`][auditad.gates.checks.GateResult])."""
    from ...gates import checks

    results = list(ctx.gate_results)
    rows = [g.to_dict() for g in results]
    out = {"gates": rows, "verdict": checks.verdict(results).value}
    return Section(ID, info(ID).title, summary=out, reading=verdict_text(rows))


def table_rows(gates: list) -> list:
    """Display rows of the gates table (rule with level, status, value, message)."""
    return [
        {
            "rule": f"{g['level']}: {g['rule']}",
            "status": g["status"],
            "value": number(g["value"]),
            "message": g["message"],
        }
        for g in gates
    ]


def reading(summary: Mapping) -> str:
    """The verdict sentence of a summary."""
    return verdict_text(summary["gates"])
