r"""Compare two audits: every numeric statistic present in both, its change, and gates on the changes.

A CI pipeline that re-runs ``auditad audit`` on every change of its data or
representation wants the build to fail when leakage grows or the protocol
becomes less stable *compared with the last accepted audit*.  [`diff_audits`][auditad.diff.diff_audits]
reads two ``summary.json`` files (or two audit folders), pairs their
benchmarks by name and, for each pair, lists

* first, what changed in *what was audited*: representations, detectors and classes added or
  removed, settings changed, inputs whose content changed;
* list items (per-class rows, detectors, ...) matched by who they are (their class, detector,
  representation, name), never by position: an item on one side only is listed as added or removed;
* every numeric statistic present in both, with ``delta = new − base``;
* every statistic present in one side only (never silently dropped);
* statistics that are a number on one side and null (undefined) on the other.

Gates on changes use the rule syntax of [`auditad.gates.checks`][auditad.gates.checks] with a
``delta`` prefix:

    delta leakage.L_k <= 0.02              # L_k may grow by at most 0.02
    warn: delta protocol.mean.rho_dir <= 0 # any growth of rho_dir is a warning
    leakage.L_k <= 0.5                     # without "delta": the NEW value

A gate on a change that cannot be computed (a statistic null on one side)
fails, like every gate on a missing number.

Summaries of different kinds (an audit and a results table) are refused;
summaries of different schema versions are compared key by key when their major
version agrees (the keys that map are compared, the rest listed) and refused when
it does not; two unrelated benchmarks are refused with both names.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from ._format import FrameDisplay
from ._format import text_table
from ._json import json_safe
from .errors import InvalidInputError

__all__ = [
    "BenchmarkDiff",
    "DiffResult",
    "diff_summaries",
    "diff_audits",
    "load_side",
    "parse_diff_rule",
    "diff_markdown",
    "write_diff_outputs",
    "audited_set_changes",
    "HEADLINE_PATHS",
]

#: Statistics shown first in the text and Markdown outputs when both sides have them.
HEADLINE_PATHS = (
    "leakage.L_k",
    "leakage.ratio_to_chance",
    "protocol.mean.mean_auc",
    "protocol.mean.sigma2_auc",
    "protocol.mean.rho_rnd",
    "protocol.mean.rho_inv",
    "protocol.mean.rho_dir",
    "nulls.share_above_q99",
    "selection.best.regret",
)
#: Fields that identify the items of a list; items whose identities differ are never compared.
_IDENTITY_KEYS = ("class", "name", "method", "benchmark", "representation", "metric", "detector")
_DELTA = re.compile(r"^\s*(?:(?P<level>[A-Za-z]+)\s*:\s*)?delta\s+(?P<rest>.*)$", re.S | re.I)
_MISSING = object()


def _is_number(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def parse_diff_rule(text):
    """Parse a diff gate: ``[LEVEL:] delta PATH OP THRESHOLD`` (on the change) or a plain rule (on NEW).

    Returns a [`GateRule`][auditad.gates.checks.GateRule] whose path starts with
    ``delta.`` for a rule on the change.


    Examples
    --------
    >>> parse_diff_rule("warn: delta protocol.mean.rho_dir <= 0").text
    'warn: delta.protocol.mean.rho_dir <= 0'

    See Also
    --------
    - [`auditad.gates.checks.parse_rule`][auditad.gates.checks.parse_rule]: the rule syntax without ``delta``.
    """
    from .gates.checks import GateRule, parse_rule

    if isinstance(text, GateRule):
        return text
    if not isinstance(text, str):
        raise InvalidInputError(f"a diff gate must be a string, got {text!r}")
    m = _DELTA.match(text)
    if m is None:
        return parse_rule(text)
    prefix = f"{m.group('level')}: " if m.group("level") else ""
    rule = parse_rule(prefix + m.group("rest"))
    return GateRule(f"delta.{rule.path}", rule.op, rule.threshold, rule.level)


# --------------------------------------------------------------------------- loading
def load_side(path) -> list[tuple[str, dict, str]]:
    """The summaries of one side: ``[(benchmark name, summary, file), ...]``.

    ``path`` is a ``summary.json`` file, a folder holding one (a benchmark folder
    of ``auditad audit`` or an ``auditad results --out`` folder), or an
    ``auditad audit`` output folder with ``<benchmark>/summary.json`` inside.

    See Also
    --------
    - [`auditad.gates.checks.load_summary`][auditad.gates.checks.load_summary]: reads one file with named errors.
    """
    from .gates.checks import load_summary

    path = Path(path)
    if not path.exists():
        raise InvalidInputError(f"{str(path)!r} does not exist (expected a summary.json file or an audit folder)")
    if path.is_dir():
        files = (
            [path / "summary.json"]
            if (path / "summary.json").is_file()
            else sorted(p for p in path.glob("*/summary.json") if p.is_file())
        )
        if not files:
            raise InvalidInputError(
                f"folder {str(path)!r} holds no summary.json (neither directly nor in a "
                "benchmark sub-folder): not an auditad output folder"
            )
    else:
        files = [path]
    out = []
    for f in files:
        s = load_summary(f)
        if "schema_version" not in s:
            raise InvalidInputError(f"{str(f)!r} has no 'schema_version': not an auditad summary")
        name = str(s.get("benchmark") or f.parent.name)
        if any(name == o[0] for o in out):
            raise InvalidInputError(f"{str(path)!r} holds two summaries of benchmark {name!r}")
        out.append((name, s, str(f)))
    return out


# --------------------------------------------------------------------------- comparison
def _identity(item):
    if isinstance(item, Mapping):
        return tuple((k, str(item[k])) for k in _IDENTITY_KEYS if k in item and isinstance(item[k], (str, int)))
    return ()


def _keyed(items: list):
    """``{segment: item}`` when every item names itself (class, detector, ...) uniquely, else None.

    The segment joins the identity's values with ``/`` (``"3/knn"`` for class 3 and detector knn); it
    replaces the list position in the paths, so items are paired by who they are, never by where they stand.
    """
    out = {}
    for it in items:
        ident = _identity(it)
        segment = "/".join(v for _, v in ident)
        if not ident or segment in out:
            return None
        out[segment] = it
    return out


def _numeric_leaves(obj, path: tuple):
    """Paths (key tuples) of the numbers below ``obj``; list items by identity where they have one."""
    if isinstance(obj, Mapping):
        for k, v in obj.items():
            yield from _numeric_leaves(v, path + (str(k),))
    elif isinstance(obj, list):
        keyed = _keyed(obj)
        pairs = keyed.items() if keyed is not None else ((str(i), v) for i, v in enumerate(obj))
        for seg, v in pairs:
            yield from _numeric_leaves(v, path + (seg,))
    elif _is_number(obj):
        yield path


@dataclass
class _Walk:
    """What a walk over two summaries collects."""

    rows: list = field(default_factory=list)  # (key tuple, base, new)
    skipped: list = field(default_factory=list)  # (path, identity base, identity new): positional mismatches
    only_base: list = field(default_factory=list)  # numeric paths in BASE only
    only_new: list = field(default_factory=list)
    removed: list = field(default_factory=list)  # (list path, segment): items in BASE only
    added: list = field(default_factory=list)


def _walk_lists(base: list, new: list, path: tuple, acc: _Walk) -> None:
    kb, kn = _keyed(base), _keyed(new)
    if kb is not None and kn is not None:
        for seg, item in kb.items():
            if seg in kn:
                _walk(item, kn[seg], path + (seg,), acc)
            else:
                acc.removed.append((".".join(path), seg))
                acc.only_base.extend(".".join(p) for p in _numeric_leaves(item, path + (seg,)))
        for seg, item in kn.items():
            if seg not in kb:
                acc.added.append((".".join(path), seg))
                acc.only_new.extend(".".join(p) for p in _numeric_leaves(item, path + (seg,)))
        return
    for i in range(max(len(base), len(new))):
        here = path + (str(i),)
        if i >= len(new) or i >= len(base):
            side, item = (acc.only_base, base[i]) if i >= len(new) else (acc.only_new, new[i])
            side.extend(".".join(p) for p in _numeric_leaves(item, here))
            continue
        ib, inew = _identity(base[i]), _identity(new[i])
        if ib != inew:
            acc.skipped.append((".".join(here), ib, inew))
            acc.only_base.extend(".".join(p) for p in _numeric_leaves(base[i], here))
            acc.only_new.extend(".".join(p) for p in _numeric_leaves(new[i], here))
            continue
        _walk(base[i], new[i], here, acc)


def _walk(base, new, path: tuple, acc: _Walk, top: bool = False) -> None:
    """Collect (path, base, new) for numbers/nulls present on both sides, and what is on one side only."""
    if isinstance(base, Mapping) and isinstance(new, Mapping):
        keys_new = {str(k): k for k in new}
        keys_base = {str(k) for k in base}
        for k in base:
            if top and str(k) == "gates":
                continue
            if str(k) in keys_new:
                _walk(base[k], new[keys_new[str(k)]], path + (str(k),), acc)
            else:
                acc.only_base.extend(".".join(p) for p in _numeric_leaves(base[k], path + (str(k),)))
        for k in new:
            if str(k) not in keys_base and not (top and str(k) == "gates"):
                acc.only_new.extend(".".join(p) for p in _numeric_leaves(new[k], path + (str(k),)))
        return
    if isinstance(base, list) and isinstance(new, list):
        _walk_lists(base, new, path, acc)
        return
    num_b, num_n = _is_number(base), _is_number(new)
    if (num_b or base is None) and (num_n or new is None) and (num_b or num_n):
        acc.rows.append((path, base, new))  # the key tuple: a key may itself contain dots ("X.v2")
        return
    if num_b or num_n:  # a number on one side, a list, a dict or a string on the other
        (acc.only_base if num_b else acc.only_new).append(".".join(path))


def _names(value) -> list[str]:
    """Names in a list of names or of records with a ``name`` (detectors), as strings."""
    if isinstance(value, Mapping):
        return [str(k) for k in value]
    if not isinstance(value, list):
        return []
    return [str(v.get("name")) if isinstance(v, Mapping) else str(v) for v in value]


def _get(tree, *keys):
    for k in keys:
        if not isinstance(tree, Mapping) or k not in tree:
            return None
        tree = tree[k]
    return tree


#: (what, where in the summary): the named sets whose members a diff reports as added or removed first.
_AUDITED_SETS = (
    ("representation", ("dataset", "representations")),
    ("detector", ("protocol", "detectors")),
    ("class", ("dataset", "classes")),
    ("null metric", ("nulls", "metrics")),
)


def audited_set_changes(base: Mapping, new: Mapping) -> tuple:
    """What changed in *what was audited* between two summaries, as sentences, most important first.

    Representations, detectors and classes added or removed (matched by name, never by position), settings
    whose value changed, and inputs whose content (SHA-256) changed. A diff lists these before any
    statistic, since a statistic's change means little once the audited set itself differs.

    See Also
    --------
    - [`diff_summaries`][auditad.diff.diff_summaries]: where the changes are collected.

    Examples
    --------
    >>> audited_set_changes({"settings": {"detectors": ["knn", "iforest"]}},
    ...                     {"settings": {"detectors": ["iforest"]}})
    ("setting detectors: ['knn', 'iforest'] -> ['iforest']",)
    """
    out = []
    for what, keys in _AUDITED_SETS:
        nb, nn = _names(_get(base, *keys)), _names(_get(new, *keys))
        if _get(base, *keys) is None or _get(new, *keys) is None:
            continue
        removed = [n for n in nb if n not in nn]
        added = [n for n in nn if n not in nb]
        if removed:
            out.append(f"{what}{'s' if len(removed) > 1 else ''} removed: {', '.join(removed)}")
        if added:
            out.append(f"{what}{'s' if len(added) > 1 else ''} added: {', '.join(added)}")
    sb, sn = _get(base, "settings") or {}, _get(new, "settings") or {}
    if isinstance(sb, Mapping) and isinstance(sn, Mapping):
        for key in [k for k in sb if k in sn]:
            if sb[key] != sn[key]:
                out.append(f"setting {key}: {sb[key]!r} -> {sn[key]!r}")
        for key in [k for k in sb if k not in sn]:
            out.append(f"setting {key} only in BASE ({sb[key]!r})")
        for key in [k for k in sn if k not in sb]:
            out.append(f"setting {key} only in NEW ({sn[key]!r})")
    ib = {str(e.get("role")): e for e in (_get(base, "inputs") or []) if isinstance(e, Mapping)}
    inn = {str(e.get("role")): e for e in (_get(new, "inputs") or []) if isinstance(e, Mapping)}
    for role in [r for r in ib if r in inn]:
        hb, hn = ib[role].get("sha256"), inn[role].get("sha256")
        if hb and hn and hb != hn:
            out.append(f"input {role} changed (its SHA-256 differs)")
    return tuple(out)


@dataclass(frozen=True, eq=False)
class BenchmarkDiff:
    """The comparison of one benchmark's two summaries.

    Attributes
    ----------
    benchmark : str
    base_file, new_file : str
    base_version, new_version : str
        ``schema_version`` of each side.
    rows : tuple of (path, base, new, delta)
        Every statistic that is a number on at least one side and present on
        both; ``delta = new − base`` (None when a side is null or not finite).
    only_base, only_new : tuple of str
        Numeric paths present in one side only.
    unpaired : tuple of str
        List items without a unique identity (class, name, ...) that stand at the same
        position with different identities: not compared.
    audited_set : tuple of str
        What changed in what was audited (representations, detectors, classes added or removed,
        settings, inputs): see [`audited_set_changes`][auditad.diff.audited_set_changes].
    added, removed : tuple of str
        List items (``"path[segment]"``) present in NEW only / BASE only, matched by identity.
    delta_tree : dict
        The changes nested like the summaries (what ``delta ...`` gates read).

    See Also
    --------
    - [`diff_audits`][auditad.diff.diff_audits]: compare two audits.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: gates on one audit.
    - [`auditad.results.audit_results`][auditad.results.audit_results]: summaries of published tables.
    """

    benchmark: str
    base_file: str
    new_file: str
    base_version: str
    new_version: str
    rows: tuple
    only_base: tuple
    only_new: tuple
    unpaired: tuple
    audited_set: tuple = ()
    added: tuple = ()
    removed: tuple = ()
    delta_tree: dict = field(repr=False, default_factory=dict)

    @property
    def changed(self) -> tuple:
        """Rows whose value changed (a change to or from null counts)."""
        return tuple(r for r in self.rows if r[3] is None or r[3] != 0)


def _set_path(tree: dict, segments: tuple, value) -> None:
    """Set ``tree[s0][s1]...[sn] = value``; ``segments`` are the summary's own keys (they may contain dots)."""
    node = tree
    for s in segments[:-1]:
        child = node.setdefault(s, {})
        if not isinstance(child, dict):  # cannot happen for keys taken from one JSON tree; never overwrite
            return
        node = child
    node[segments[-1]] = value


def diff_summaries(
    base: Mapping, new: Mapping, *, benchmark: str = "", base_file: str = "", new_file: str = ""
) -> BenchmarkDiff:
    r"""Compare two summaries of one benchmark: \(\Delta = \text{new} - \text{base}\) for every shared number.

    Parameters
    ----------
    base, new : dict
        ``summary.json`` contents (an audit's, or a results table's).
    benchmark, base_file, new_file : str
        Labels for the outputs.

    Returns
    -------
    BenchmarkDiff

    Raises
    ------
    InvalidInputError
        Summaries of different kinds, of different major schema versions, or
        sharing no numeric statistic.

    See Also
    --------
    - [`diff_audits`][auditad.diff.diff_audits]: the same for files and folders, with gates.
    - [`auditad.gates.checks.numeric_paths`][auditad.gates.checks.numeric_paths]: the paths of a summary's numbers.


    Examples
    --------
    >>> d = diff_summaries({"schema_version": "1.0", "leakage": {"L_k": 0.10}},
    ...                    {"schema_version": "1.0", "leakage": {"L_k": 0.13}, "extra": 1})
    >>> [(p, round(dl, 2)) for p, b, n, dl in d.rows], d.only_new
    ([('leakage.L_k', 0.03)], ('extra',))
    """
    kb, kn = base.get("kind", "audit"), new.get("kind", "audit")
    if kb != kn:
        raise InvalidInputError(
            f"BASE is a {kb!r} summary and NEW a {kn!r} summary: they hold different statistics and are not compared"
        )
    vb, vn = str(base.get("schema_version")), str(new.get("schema_version"))
    if vb.split(".")[0] != vn.split(".")[0]:
        raise InvalidInputError(
            f"summary schema versions {vb} (BASE) and {vn} (NEW) differ in their major version: "
            "their keys do not map; re-run the base audit with this auditad version"
        )
    acc = _Walk()
    _walk(base, new, (), acc, top=True)
    if not any(_is_number(b) and _is_number(n) for _, b, n in acc.rows):
        raise InvalidInputError(
            f"BASE ({base_file or 'base'}) and NEW ({new_file or 'new'}) share no numeric statistic: nothing to compare"
        )
    out_rows, tree = [], {}
    for keys, b, n in acc.rows:
        d = None
        if _is_number(b) and _is_number(n) and math.isfinite(b) and math.isfinite(n):
            d = n - b
            d = int(d) if isinstance(b, int) and isinstance(n, int) else float(d)
        out_rows.append((".".join(keys), b, n, d))
        _set_path(tree, keys, d)
    unpaired = tuple(f"{p} (BASE {dict(ib) or '-'} vs NEW {dict(inew) or '-'})" for p, ib, inew in acc.skipped)
    return BenchmarkDiff(
        benchmark=benchmark,
        base_file=base_file,
        new_file=new_file,
        base_version=vb,
        new_version=vn,
        rows=tuple(out_rows),
        only_base=tuple(acc.only_base),
        only_new=tuple(acc.only_new),
        unpaired=unpaired,
        audited_set=audited_set_changes(base, new),
        added=tuple(f"{p}[{seg}]" for p, seg in acc.added),
        removed=tuple(f"{p}[{seg}]" for p, seg in acc.removed),
        delta_tree=tree,
    )


@dataclass(frozen=True, eq=False)
class DiffResult(FrameDisplay):
    """Comparison of two audits (see [`diff_audits`][auditad.diff.diff_audits]).

    Attributes
    ----------
    base, new : str
        The paths as given.
    pairs : tuple of BenchmarkDiff
        One per benchmark present on both sides.
    only_base_benchmarks, only_new_benchmarks : tuple of str
    gate_results : dict
        ``{benchmark: [GateResult, ...]}``.
    notes : tuple of str

    See Also
    --------
    - [`diff_audits`][auditad.diff.diff_audits]: compare two audits.
    - [`auditad.gates.checks.run_gates`][auditad.gates.checks.run_gates]: gates on one audit.
    - [`auditad.results.audit_results`][auditad.results.audit_results]: summaries of published tables.
    """

    base: str
    new: str
    pairs: tuple
    only_base_benchmarks: tuple = ()
    only_new_benchmarks: tuple = ()
    gate_results: dict = field(default_factory=dict)
    notes: tuple = ()

    @property
    def verdict(self) -> str:
        """``"pass"``, ``"warn"`` or ``"fail"`` over every gate (``"pass"`` without gates)."""
        from .gates.checks import verdict

        return verdict([r for rs in self.gate_results.values() for r in rs])

    def exit_code(self, *, fail_on: str = "fail") -> int:
        """1 when a gate at or above ``fail_on`` failed, else 0."""
        from .gates.checks import exit_code

        return exit_code([r for rs in self.gate_results.values() for r in rs], fail_on=fail_on)

    def to_frame(self):
        """Tidy table: benchmark, path, base, new, delta (one row per statistic present on both sides)."""
        import pandas as pd

        return pd.DataFrame(
            [
                {"benchmark": p.benchmark, "path": path, "base": b, "new": n, "delta": d}
                for p in self.pairs
                for path, b, n, d in p.rows
            ],
            columns=["benchmark", "path", "base", "new", "delta"],
        )

    def to_dict(self) -> dict:
        """JSON-safe dict: per benchmark the compared rows, the one-sided paths and the gates."""
        return json_safe(
            {
                "kind": "diff",
                "base": self.base,
                "new": self.new,
                "verdict": self.verdict,
                "only_base_benchmarks": list(self.only_base_benchmarks),
                "only_new_benchmarks": list(self.only_new_benchmarks),
                "notes": list(self.notes),
                "benchmarks": [
                    {
                        "benchmark": p.benchmark,
                        "base_file": p.base_file,
                        "new_file": p.new_file,
                        "schema_versions": [p.base_version, p.new_version],
                        "n_compared": len(p.rows),
                        "n_changed": len(p.changed),
                        "audited_set": list(p.audited_set),
                        "added": list(p.added),
                        "removed": list(p.removed),
                        "statistics": [{"path": r[0], "base": r[1], "new": r[2], "delta": r[3]} for r in p.rows],
                        "only_base": list(p.only_base),
                        "only_new": list(p.only_new),
                        "unpaired": list(p.unpaired),
                        "gates": [g.to_dict() for g in self.gate_results.get(p.benchmark, [])],
                    }
                    for p in self.pairs
                ],
            }
        )

    def summary_text(self, *, show_all: bool = False) -> str:
        """Plain text: per benchmark the headline statistics, the changed ones, the one-sided ones, the gates."""
        lines = [f"auditad diff: {self.base} -> {self.new}"]
        for note in self.notes:
            lines.append(f"note: {note}")
        for p in self.pairs:
            rows = p.rows if show_all else p.changed
            lines.append(
                f"benchmark {p.benchmark}: {len(p.rows)} statistics compared, {len(p.changed)} changed, "
                f"{len(p.only_base)} only in BASE, {len(p.only_new)} only in NEW"
                + (f" (schema {p.base_version} vs {p.new_version})" if p.base_version != p.new_version else "")
            )
            for change in p.audited_set:
                lines.append(f"  audited set: {change}")
            for label, items in (("removed", p.removed), ("added", p.added)):
                if items:
                    lines.append(
                        f"  {len(items)} item(s) {label}: " + ", ".join(items[:8]) + (" ..." if len(items) > 8 else "")
                    )
            lines.append(
                text_table(
                    [
                        (path, _value_text(b), _value_text(n), _change_text(d))
                        for path, b, n, d in sorted(rows, key=lambda r: (r[0] not in HEADLINE_PATHS,))
                    ],
                    header=("statistic", "base", "new", "change"),
                    align="lr",
                    widths=(9, 12, 12, 12),
                    indent="  ",
                )
            )
            for label, paths in (
                ("only in BASE", p.only_base),
                ("only in NEW", p.only_new),
                ("not compared (different items)", p.unpaired),
            ):
                for path in paths:
                    lines.append(f"  {label}: {path}")
            for r in self.gate_results.get(p.benchmark, []):
                lines.append(f"  gate {r.status.upper():<4} {r.rule.text}: {r.message}")
        return "\n".join(lines)


def _value_text(v) -> str:
    if v is None:
        return "null"
    return str(v) if isinstance(v, int) else f"{v:.6g}"


def _change_text(d) -> str:
    if d is None:
        return "n/a"
    return f"{d:+d}" if isinstance(d, int) else f"{d:+.6g}"


def diff_audits(base, new, *, gates=(), tolerance: float = 0.0) -> DiffResult:
    """Compare two audits given as ``summary.json`` files or output folders, and evaluate gates on the changes.

    Parameters
    ----------
    base, new : str or Path
        ``summary.json`` files, benchmark folders or ``auditad audit`` output folders.
    gates : iterable of str
        Rules ``[LEVEL:] delta PATH OP THRESHOLD`` on the change, or ordinary
        rules on the NEW summary ([`parse_diff_rule`][auditad.diff.parse_diff_rule]); evaluated for every
        benchmark present on both sides.
    tolerance : float, default 0
        Changes with ``|delta| <= tolerance`` are reported as unchanged (their
        rows keep the exact delta; gates always read the exact delta).

    Returns
    -------
    DiffResult

    Raises
    ------
    InvalidInputError
        A missing or malformed summary; two sides with no benchmark in common
        (the message names both); summaries of different kinds or major schema
        versions; a gate naming a statistic that is not on both sides.

    Notes
    -----
    Gates follow the attached-condition design of Deepchecks (checks computed
    once, pass/warn/fail conditions attached afterwards).

    See Also
    --------
    - [`diff_summaries`][auditad.diff.diff_summaries]
    - [`auditad.gates.checks.evaluate_gates`][auditad.gates.checks.evaluate_gates]

    Examples
    --------
    >>> diff_audits("base/digits/summary.json", "new/digits/summary.json",
    ...             gates=["delta leakage.L_k <= 0.02"]).verdict  # doctest: +SKIP
    'pass'
    """
    from ._validation import check_float
    from .gates.checks import evaluate_gates

    tolerance = check_float(tolerance, name="tolerance", low=0.0)
    rules = [parse_diff_rule(g) for g in ([gates] if isinstance(gates, str) else gates)]
    sides_b, sides_n = load_side(base), load_side(new)
    names_b, names_n = [s[0] for s in sides_b], [s[0] for s in sides_n]
    notes = []
    if len(sides_b) == 1 and len(sides_n) == 1:
        if names_b[0] != names_n[0]:
            raise InvalidInputError(
                f"BASE is benchmark {names_b[0]!r} and NEW is benchmark {names_n[0]!r}: "
                "unrelated benchmarks are not compared"
            )
    common = [n for n in names_b if n in names_n]
    if not common:
        raise InvalidInputError(
            f"BASE holds benchmark(s) {names_b} and NEW holds {names_n}: no benchmark in common, so nothing is compared"
        )
    only_b = tuple(n for n in names_b if n not in names_n)
    only_n = tuple(n for n in names_n if n not in names_b)
    if only_b or only_n:
        notes.append(f"benchmarks only in BASE: {list(only_b)}; only in NEW: {list(only_n)} (not compared)")
    pairs, gate_results = [], {}
    for name in common:
        _, sb, fb = sides_b[names_b.index(name)]
        _, sn, fn = sides_n[names_n.index(name)]
        pair = diff_summaries(sb, sn, benchmark=name, base_file=fb, new_file=fn)
        if pair.base_version != pair.new_version:
            notes.append(
                f"{name}: schema versions {pair.base_version} (BASE) and {pair.new_version} (NEW): "
                f"compared the {len(pair.rows)} statistics whose keys map; {len(pair.only_base)} only in "
                f"BASE and {len(pair.only_new)} only in NEW are listed"
            )
        if tolerance > 0:
            rows = tuple((p, b, n, 0 if (d is not None and abs(d) <= tolerance) else d) for p, b, n, d in pair.rows)
            pair = BenchmarkDiff(**{**pair.__dict__, "rows": rows})
        pairs.append(pair)
        if rules:
            target = dict(sn)
            target["delta"] = pair.delta_tree
            try:
                gate_results[name] = evaluate_gates(target, rules)
            except InvalidInputError as exc:
                raise InvalidInputError(f"benchmark {name!r}: {exc}") from None
    return DiffResult(
        base=str(base),
        new=str(new),
        pairs=tuple(pairs),
        only_base_benchmarks=only_b,
        only_new_benchmarks=only_n,
        gate_results=gate_results,
        notes=tuple(notes),
    )


# --------------------------------------------------------------------------- outputs
def diff_markdown(result: DiffResult, *, max_rows: int = 40) -> str:
    """Markdown page for a CI job summary: verdict, gates, key statistics, changes, one-sided statistics.

    At most ``max_rows`` changed statistics and one-sided paths are listed per
    benchmark, each list ending with how many more the JSON output holds.

    See Also
    --------
    - [`auditad.report.export.markdown_summary`][auditad.report.export.markdown_summary]: the gate section.
    """
    from .report.export import markdown_summary, md_escape as _md_escape

    lines = [f"## auditad diff: {_md_escape(result.base)} → {_md_escape(result.new)}", ""]
    if result.gate_results:
        lines += [f"Verdict: **{result.verdict}**", ""]
    for note in result.notes:
        lines += [f"Note: {_md_escape(note)}", ""]
    for p in result.pairs:
        lines += [
            f"### {_md_escape(p.benchmark)}",
            "",
            f"{len(p.rows)} statistics compared, {len(p.changed)} changed, {len(p.only_base)} only in BASE, "
            f"{len(p.only_new)} only in NEW.",
            "",
        ]
        if p.audited_set:
            lines += ["What was audited changed:", ""] + [f"- {_md_escape(c)}" for c in p.audited_set] + [""]
        gated = {r.rule.path.removeprefix("delta.") for r in result.gate_results.get(p.benchmark, [])}
        key = [r for r in p.rows if r[0] in HEADLINE_PATHS or r[0] in gated]
        changed = [r for r in p.changed if r not in key]
        for title, rows in (("Key and gated statistics", key), ("Other changed statistics", changed)):
            if not rows:
                continue
            lines += [f"{title}:", "", "| statistic | base | new | change |", "| --- | ---: | ---: | ---: |"]
            for path, b, n, d in rows[:max_rows]:
                lines.append(f"| {_md_escape(path)} | {_value_text(b)} | {_value_text(n)} | {_change_text(d)} |")
            if len(rows) > max_rows:
                lines.append(f"| … {len(rows) - max_rows} more (see the JSON output) | | | |")
            lines.append("")
        for label, paths in (
            ("Items removed", p.removed),
            ("Items added", p.added),
            ("Only in BASE", p.only_base),
            ("Only in NEW", p.only_new),
            ("Not compared (different items at the same position)", p.unpaired),
        ):
            if paths:
                shown = ", ".join(f"`{x}`" for x in paths[:max_rows])
                more = f" … and {len(paths) - max_rows} more (see the JSON output)" if len(paths) > max_rows else ""
                lines += [f"{label}: {shown}{more}", ""]
    text = "\n".join(lines)
    if result.gate_results:
        text += "\n" + markdown_summary(result.gate_results, title="gates on the changes")
    return text.rstrip("\n") + "\n"


def write_diff_outputs(result: DiffResult, *, json_path=None, junit=None, markdown=None) -> list:
    """Write the JSON, JUnit XML and Markdown outputs that were asked for (atomically); return their paths.

    See Also
    --------
    - [`diff_markdown`][auditad.diff.diff_markdown]
    - [`auditad.report.export.write_junit`][auditad.report.export.write_junit]
    """
    import json

    from ._io import write_text_atomic

    written = []
    if json_path is not None:
        write_text_atomic(json_path, json.dumps(result.to_dict(), indent=2, allow_nan=False) + "\n")
        written.append(json_path)
    if junit is not None:
        from .report.export import write_junit

        write_junit(result.gate_results, junit, name="auditad diff gates")
        written.append(junit)
    if markdown is not None:
        write_text_atomic(markdown, diff_markdown(result))
        written.append(markdown)
    return written
