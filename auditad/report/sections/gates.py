"""Report section: the gates (rules over ``summary.json``) and the verdict (`auditad.gates.checks`)."""

from __future__ import annotations

from typing import Mapping

from ..._format import number
from . import Section, info

ID = "gates"


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


def verdict_text(gates: list) -> str:
    """One sentence about the gates of a summary."""
    if not gates:
        return "No gate was set."
    bad = [g for g in gates if not g["passed"]]
    if not bad:
        return f"All {len(gates)} gate{'s' * (len(gates) != 1)} passed."
    return (
        f"{len(bad)} of {len(gates)} gate{'s' * (len(gates) != 1)} did not pass: "
        + "; ".join(g["message"] for g in bad)
        + "."
    )


def reading(summary: Mapping) -> str:
    """The verdict sentence of a summary."""
    return verdict_text(summary["gates"])
