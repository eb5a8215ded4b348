"""The command-line flags of the audit settings (``auditad audit --seed 3 --leakage-k 5 ...``).

Generated from the declaration `auditad.audit.settings.SETTINGS`: one flag per setting that declares a
``flag`` (`add_settings_arguments`), the settings given on a command line (`settings_from_args`) and the
flags that give a set of settings (`settings_to_flags`). The names are re-exported by
`auditad.audit.settings`.
"""

from __future__ import annotations

from typing import Mapping

from .settings_declaration import SETTINGS, SETTINGS_BY_NAME, Setting

__all__ = ["FLAG_GROUPS", "add_settings_arguments", "settings_from_args", "settings_to_flags"]


# --------------------------------------------------------------------------- command line
def _dest(s: Setting) -> str:
    return "setting_" + s.name


def _number_or_name(text: str):
    try:
        return float(text)
    except ValueError:
        return text


def _int_or_auto(text: str):
    try:
        return int(text)
    except ValueError:
        return text  # "auto", or a word the setting's check names in its message


#: Titles of the argument groups of the settings flags (``Setting.group``), in ``--help`` order.
FLAG_GROUPS = {
    "common": "common options",
    "protocol": "leakage and protocol settings (override the config's [settings])",
    "nulls": "null distributions",
    "landscapes": "landscapes",
    "selection": "model selection",
    "gates": "gates and CI outputs",
    "execution": "execution",
}

_METAVARS = {
    "int": "N",
    "ints": "N",
    "float": "X",
    "null_q": "Q",
    "auto_int": "N",
    "ratios": "RATIO",
    "strings": "NAME",
    "detectors": "DETECTOR",
}


def _flag_help(s: Setting) -> str:
    """The ``--help`` text of a setting's flag: what it does, the choices, the default."""
    text = (s.flag_help or s.help) if s.kind == "bool" else s.help.rstrip(".")
    if s.kind == "bool":
        return text[0].lower() + text[1:]
    if s.kind == "detectors":  # the 20 PyOD names once, not 20 times "pyod:"
        builtin = [c for c in s.allowed() if not c.startswith("pyod:")]
        pyod = [c.removeprefix("pyod:") for c in s.allowed() if c.startswith("pyod:")]
        text = (
            f"Detector of the protocol audit: {', '.join(builtin)}, pyod:NAME (NAME one of {', '.join(pyod)}; "
            "decision_function, higher = more anomalous) or the name of a [detectors.NAME] table of the config"
        )
    elif s.kind in ("choice", "choices"):
        text += f"; one of {', '.join(map(str, s.allowed()))}"
    if text[:1].isupper() and text[1:2].islower():  # "Seeds every ..." -> "seeds every ...", not "k-1"
        text = text[0].lower() + text[1:]
    if "(default" not in text and not (s.default == [] and "(empty:" in text):
        default = " ".join(map(str, s.default)) if isinstance(s.default, list) else s.default
        default = "none" if default in (None, "") else default
        text += f" (default: {default})"
    # argparse formats help with %: a literal "10 %" in a setting's help must not end --help with a TypeError
    return (text + ("; repeat for several" if s.repeat else "")).replace("%", "%%")


def add_settings_arguments(parser, *, groups: Mapping | None = None) -> None:
    """Add one flag per declared setting (those with a ``flag``) to an argparse parser.

    ``groups`` maps a `Setting.group` to an argparse argument group; the missing groups are
    created on ``parser`` with the titles of `FLAG_GROUPS`.
    """
    groups = dict(groups or {})
    for s in SETTINGS:
        if s.flag is None:
            continue
        if s.group not in groups:
            groups[s.group] = parser.add_argument_group(FLAG_GROUPS.get(s.group, s.group))
        group = groups[s.group]
        if s.kind == "bool":
            group.add_argument(
                s.flag, dest=_dest(s), action="store_const", const=not s.default, default=None, help=_flag_help(s)
            )
            continue
        kw: dict = {"dest": _dest(s), "default": None, "help": _flag_help(s)}
        if s.repeat:
            kw["action"] = "append"
        if s.kind in ("int", "ints"):
            kw["type"] = int
        elif s.kind == "float":
            kw["type"] = float
        elif s.kind in ("null_q", "ratios"):
            kw["type"] = _number_or_name
        elif s.kind == "auto_int":
            kw["type"] = _int_or_auto
        if s.kind in ("choice", "choices"):
            kw["choices"] = s.allowed()
            kw["metavar"] = s.flag.lstrip("-").split("-")[-1].upper()
        else:
            kw["metavar"] = _METAVARS.get(s.kind, "VALUE")
        group.add_argument(s.flag, **kw)
        for old in s.deprecated:  # the former name: its own destination, renamed (with a warning) when validated
            group.add_argument(
                "--" + old.replace("_", "-"), **dict(kw, dest="setting_" + old, help=f"deprecated name of {s.flag}")
            )


def settings_from_args(args) -> dict:
    """The settings given on the command line (``{name: value}``; flags not given are left out, not validated)."""
    out = {}
    for s in SETTINGS:
        if s.flag is None:
            continue
        v = getattr(args, _dest(s), None)
        if v is not None:
            out[s.name] = v
        for old in s.deprecated:
            if getattr(args, "setting_" + old, None) is not None:
                out[old] = getattr(args, "setting_" + old)
    return out


def settings_to_flags(settings: Mapping) -> tuple[str, ...]:
    """The command-line flags that give ``settings`` (``{"seed": 3, "leakage_k": [5, 1]}`` -> ``("--seed 3", "--leakage-k 5 --leakage-k 1")``)."""
    out = []
    for name, value in settings.items():
        s = SETTINGS_BY_NAME[name]
        flag = s.flag or "--" + name.replace("_", "-")
        if s.kind == "bool":
            if value != s.default:
                out.append(flag)
            continue
        values = value if isinstance(value, list) else [value]
        out.append(" ".join(f"{flag} {v!r}" if isinstance(v, float) else f"{flag} {v}" for v in values))
    return tuple(out)
