"""Report section: what reproduces the report (inputs with hashes, the whole configuration, versions)."""

from __future__ import annotations

import platform
from typing import Mapping

from . import Section, info

ID = "reproducibility"
#: Packages whose versions are recorded.
PACKAGES = ("numpy", "scipy", "pandas", "scikit-learn", "matplotlib", "jinja2", "joblib", "pynndescent")


def versions() -> dict:
    """Python, auditad and package versions (None for a package that is not installed)."""
    from importlib import metadata

    from ... import __version__

    pkgs = {}
    for name in PACKAGES:
        try:
            pkgs[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pkgs[name] = None
    return {"python": platform.python_version(), "auditad": __version__, "packages": pkgs}


def build(ctx) -> Section:
    """The reproducibility section: ``inputs``, ``config``, ``settings``, ``seed``, ``environment``, ``run``."""
    inp = ctx.inputs
    out = {
        "inputs": list(inp.inputs),
        "config": {
            "origin": inp.config_origin,
            "file": inp.config_name,
            "sha256": inp.config_sha256,
            "text": inp.config_text,
            "command_line": list(inp.command_line),
        },
        "settings": dict(inp.settings),
        "seed": int(inp.settings["seed"]),
        "environment": versions(),
        "run": {"timestamp": None, "elapsed_seconds": None},
    }
    return Section(ID, info(ID).title, summary=out, reading=reading(out))


def configuration_text(config: Mapping) -> str:
    """The whole configuration as shown in the report: the TOML, then the command-line flags applied on top."""
    text = config["text"]
    flags = config.get("command_line") or []
    if flags:
        text = (
            text.rstrip("\n")
            + "\n\n# command-line flags applied on top of this file\n"
            + "\n".join(f"#   {f}" for f in flags)
            + "\n"
        )
    return text


def reading(part: Mapping) -> str:
    """One sentence on what makes the report reproducible."""
    return (
        f"The same configuration and seed ({part['seed']}) give the same summary.json, tables, figures and report "
        "byte for byte."
    )
