"""Report layer: checks (pass/warn/fail gates), assembly of plain values and figures, rendering, export."""
