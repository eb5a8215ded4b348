"""A setting's help text is printed verbatim by --help, whatever characters it holds."""

from __future__ import annotations

import argparse
import dataclasses

from auditad.audit import settings_flags
from auditad.audit.settings import SETTINGS


def test_a_percent_sign_in_a_settings_help_is_printed_not_formatted(monkeypatch):
    changed = [
        dataclasses.replace(s, help="Re-run about 10 % of the tasks (100 %o of none).") if s.name == "repeats" else s
        for s in SETTINGS
    ]
    monkeypatch.setattr(settings_flags, "SETTINGS", tuple(changed))
    parser = argparse.ArgumentParser(prog="auditad audit")
    settings_flags.add_settings_arguments(parser)
    text = " ".join(parser.format_help().split())
    assert "about 10 % of the tasks (100 %o of none)" in text


def test_the_audit_help_prints():
    from auditad.cli import main

    try:
        main(["audit", "--help"])
    except SystemExit as e:
        assert e.code == 0
