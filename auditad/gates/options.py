"""The gate and CI-output options, declared once: command-line flags, configuration keys and their docs.

`GATE_OPTIONS` declares each option of the gates once: its flag, help, choices, default, the
commands that accept it and the configuration key that sets it. From it follow

* the flags of ``auditad audit``, ``demo``, ``gate``, ``results`` and ``diff``
  ([`add_gate_arguments`][auditad.gates.options.add_gate_arguments]);
* the configuration keys (`CONFIG_KEYS`, read by `auditad.audit.config`; ``default_gates`` is a
  setting of `auditad.audit.settings`, which takes its flag and help from here);
* the table of ``docs/cli.md`` ([`gate_options_markdown`][auditad.gates.options.gate_options_markdown],
  rewritten by ``python -m auditad.audit.settings``).

Nothing here imports a numerical library: every command line builds its parser from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from .defaults import DEFAULT_GATES
from .rules import LEVELS

__all__ = [
    "GateOption",
    "GATE_OPTIONS",
    "GATE_COMMANDS",
    "CONFIG_KEYS",
    "gate_option",
    "add_gate_arguments",
    "add_report_gate_arguments",
    "gate_options_markdown",
]

#: The commands that evaluate gates.
GATE_COMMANDS = ("audit", "demo", "gate", "results", "diff")


@dataclass(frozen=True)
class GateOption:
    """One gate or CI-output option.

    Attributes
    ----------
    name : str
        Python name: the ``argparse`` destination and the parameter of the library function
        (``fail_on=`` of `run_audit` and `run_gates`).
    flag : str
        Command-line flag.
    help : str
        ``--help`` text; ``{default_gates}`` is replaced by the default gates.
    metavar : str or None
    choices : tuple
        Allowed values (empty: any).
    default
        Value when the flag is not given.
    repeat : bool
        The flag may be repeated (a list).
    config : str or None
        The configuration key that sets the option (``gates``, or ``settings.default_gates``); None: flag only.
    config_help : str
        Meaning of the configuration key (docs).
    commands : tuple of str
        The commands that accept the flag.
    per_command : dict of str -> str
        Text appended to ``help`` for one command (its examples).
    setting : bool
        The flag is generated with the audit settings (`auditad.audit.settings.SETTINGS` holds the setting
        ``name``), not by `add_gate_arguments`.

    See Also
    --------
    - [`add_gate_arguments`][auditad.gates.options.add_gate_arguments]: the flags of one command.
    - [`run_gates`][auditad.gates.checks.run_gates]: what ``auditad gate`` runs.
    """

    name: str
    flag: str
    help: str
    metavar: str | None = None
    choices: tuple = ()
    default: Any = None
    repeat: bool = False
    config: str | None = None
    config_help: str = ""
    commands: tuple = GATE_COMMANDS
    per_command: Mapping = field(default_factory=dict)
    setting: bool = False

    def help_for(self, command: str) -> str:
        """The ``--help`` text of the flag in ``command``."""
        extra = self.per_command.get(command)
        text = self.help.replace("{default_gates}", "; ".join(g.removeprefix("warn: ") for g in DEFAULT_GATES))
        return f"{text}; {extra}" if extra else text


GATE_OPTIONS: tuple[GateOption, ...] = (
    GateOption(
        "gate",
        "--gate",
        "gate rule '[warn:|fail:] METRIC OP THRESHOLD' (docs/gates.md); repeatable",
        metavar="RULE",
        repeat=True,
        config="gates",
        config_help="Gate rules (text or tables), global and per benchmark; the command line's are added.",
        per_command={
            "audit": "e.g. 'leakage.L_k <= 0.5' or 'warn: protocol.mean.rho_dir <= 0.2'; added to a config's "
            "gates; any gate replaces the default warning gates",
            "demo": "e.g. 'leakage.L_k <= 0.5'; any gate replaces the default warning gates",
            "gate": "e.g. 'leakage.L_k <= 0.5'; added to each summary's own gates",
            "results": "e.g. 'rho_dir <= 0.2' (a bare statistic is checked for every method) or "
            "'warn: groups.0.rho_inv <= 0.1'",
            "diff": "e.g. 'delta leakage.L_k <= 0.02' (a change) or 'warn: delta protocol.mean.rho_dir <= 0'; "
            "without 'delta' a gate reads NEW",
            "timeseries": "e.g. 'warn: series.MSL.nulls.best_threshold.pa_f1.mean <= 0.5' (a dotted path into "
            "summary.json)",
        },
    ),
    GateOption(
        "fail_on",
        "--fail-on",
        "lowest level of a failed gate that makes the exit code 1: fail or warn (default: fail)",
        metavar="LEVEL",
        choices=LEVELS,
        default="fail",
    ),
    GateOption(
        "default_gates",
        "--no-default-gates",
        "do not apply the default warning gates ({default_gates}) when no gate is given; the report then has no gate",
        default=True,
        config="settings.default_gates",
        config_help="Apply the default warning gates when no gate is given.",
        commands=("audit",),
        setting=True,
    ),
    GateOption("junit", "--junit", "write the gate results as JUnit XML (docs/gates.md)", metavar="FILE"),
    GateOption("markdown", "--markdown", "write a Markdown summary of the gates (CI job page)", metavar="FILE"),
)

_BY_NAME = {o.name: o for o in GATE_OPTIONS}

#: Top-level configuration keys declared here (a global list; each ``[[benchmarks]]`` table may hold one too).
CONFIG_KEYS: tuple[str, ...] = tuple(o.config for o in GATE_OPTIONS if o.config and "." not in o.config)


def gate_option(name: str) -> GateOption:
    """The declaration of one option by its Python name (``"fail_on"``).

    See Also
    --------
    - [`GATE_OPTIONS`][auditad.gates.options.GATE_OPTIONS]: every option.
    """
    return _BY_NAME[name]


def add_gate_arguments(parser, *, command: str) -> None:
    """Add the gate and CI-output flags of ``command`` to an argparse parser or argument group.

    Options generated with the audit settings (``--no-default-gates``) are left to
    `auditad.audit.settings.add_settings_arguments`.

    See Also
    --------
    - [`GateOption`][auditad.gates.options.GateOption]: one declaration.
    - [`gate_options_markdown`][auditad.gates.options.gate_options_markdown]: the same options in the docs.
    """
    for opt in GATE_OPTIONS:
        if command in opt.commands and not opt.setting:
            _add_option(parser, opt, command)


def _add_option(parser, opt: GateOption, command: str) -> None:
    kw: dict = {"dest": opt.name, "default": opt.default, "help": opt.help_for(command)}
    if opt.repeat:
        kw["action"] = "append"
    if opt.choices:
        kw["choices"] = list(opt.choices)
    if opt.metavar:
        kw["metavar"] = opt.metavar
    parser.add_argument(opt.flag, **kw)


def add_report_gate_arguments(parser, *, command: str) -> None:
    """Add the flags every gating command takes (``--gate``, ``--fail-on``, ``--junit``, ``--markdown``) to the
    parser of a command that gates its own summary, such as ``timeseries`` or ``ood``.

    The flags and their help come from `GATE_OPTIONS` (a ``per_command`` text of ``command``, if declared).

    See Also
    --------
    - [`add_gate_arguments`][auditad.gates.options.add_gate_arguments]: the flags of a command declared in the
      options.
    """
    for opt in GATE_OPTIONS:
        if set(GATE_COMMANDS) <= set(opt.commands) and not opt.setting:
            _add_option(parser, opt, command)


def gate_options_markdown() -> str:
    """The table of the gate and CI-output flags in ``docs/cli.md``, generated from `GATE_OPTIONS`.

    See Also
    --------
    - [`add_gate_arguments`][auditad.gates.options.add_gate_arguments]: the same options on the command line.
    """
    lines = ["| flag | commands | configuration key | meaning |", "|---|---|---|---|"]
    for opt in GATE_OPTIONS:
        flag = f"`{opt.flag} {opt.metavar}`" if opt.metavar else f"`{opt.flag}`"
        key = f"`{opt.config}`" if opt.config else "–"
        text = opt.help_for("").replace("|", "\\|")
        lines.append(f"| {flag} | {', '.join(opt.commands)} | {key} | {text[0].upper() + text[1:]}. |")
    return "\n".join(lines) + "\n"
