"""Reading a leaderboard CSV cell by cell with the `csv` module, and collecting the tidy columns.

``pandas.read_csv`` renames a duplicate column ``X`` to ``X.1`` and an empty
header to ``Unnamed: 1``, inventing methods; `RawTable` reads the raw
header instead, so that such quirks become named errors or notes.
"""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

from ..errors import InvalidInputError
from .schema import MISSING_MARKERS, TABLE_COLUMNS

__all__ = ["NUMBER", "parse_cell", "RawTable", "CellColumns"]

#: A decimal number as a regular expression (sign, digits, fraction, exponent).
NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_PLAIN_CELL = re.compile(rf"^({NUMBER})\s*(%?)$")
_PM = re.compile(rf"^({NUMBER})\s*(%?)\s*(?:\u00b1|\+/-|\+-)\s*({NUMBER})\s*(%?)$")
_PAREN = re.compile(rf"^({NUMBER})\s*(%?)\s*\(\s*(?:\u00b1\s*)?({NUMBER})\s*(%?)\s*\)$")


def parse_cell(text: str):
    """(value, std, missing kind, percent sign) of one cell; ValueError for text that is not a number.

    Accepted: a number (optionally followed by ``%``), ``mean ± std`` (also ``+/-``, ``+-``), ``mean (std)``,
    and the missing-value markers of `MISSING_MARKERS`.

    Examples
    --------
    >>> parse_cell("87.62 ± 0.29"), parse_cell("/")[2]
    ((87.62, 0.29, '', False), 'marker')
    """
    t = text.strip()
    low = t.lower()
    if low in MISSING_MARKERS:
        kind = "blank" if not t else ("nan" if low == "nan" else "marker")
        return math.nan, math.nan, kind, False
    m = _PLAIN_CELL.match(t)
    if m:
        return float(m.group(1)), math.nan, "", bool(m.group(2))
    m = _PM.match(t) or _PAREN.match(t)
    if m:
        return float(m.group(1)), float(m.group(3)), "", bool(m.group(2) or m.group(4))
    raise ValueError(t)


class RawTable:
    """The header and data rows of a CSV file as strings, with the reader's notes."""

    def __init__(self, path: Path):
        self.path = path
        self.notes: list[str] = []
        delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
        try:
            with open(path, newline="", encoding="utf-8-sig") as fh:
                reader = csv.reader(fh, delimiter=delimiter)
                records = []
                for rec in reader:
                    records.append((reader.line_num, rec))
        except UnicodeDecodeError as exc:
            raise InvalidInputError(
                f"leaderboard file {str(path)!r} is not UTF-8 text ({exc.reason} at byte {exc.start})"
            ) from None
        except csv.Error as exc:
            raise InvalidInputError(f"leaderboard file {str(path)!r} could not be read as CSV: {exc}") from None
        records = [(ln, r) for ln, r in records if any(c.strip() for c in r)]
        if not records:
            raise InvalidInputError(f"leaderboard file {str(path)!r} is empty")
        self.raw_header = records[0][1]
        self.header = [h.strip() for h in self.raw_header]
        self.lines = [ln for ln, _ in records[1:]]
        rows = [r for _, r in records[1:]]
        if not rows:
            raise InvalidInputError(f"leaderboard file {str(path)!r} has a header but no data rows")
        self._check_header(rows)
        width = len(self.header)
        self.short: dict[int, int] = {}
        for i, r in enumerate(rows):
            if len(r) > width:
                if any(c.strip() for c in r[width:]):
                    raise InvalidInputError(
                        f"{self.where(i)} has {len(r)} fields but the header has {width}: "
                        f"extra value(s) {[c for c in r[width:] if c.strip()][:3]}"
                    )
                rows[i] = r[:width]
            elif len(r) < width:
                self.short[i] = len(r)
                rows[i] = r + [""] * (width - len(r))
        self.rows = rows

    def where(self, i: int, column: str | None = None) -> str:
        text = f"data row {i + 1} (line {self.lines[i]})"
        return text + (f", column {column!r}" if column is not None else "")

    def _check_header(self, rows) -> None:
        width = len(self.raw_header)
        # an empty header over an empty column (a trailing comma) is dropped; elsewhere it is an error
        keep = list(range(width))
        for j, (raw, name) in enumerate(zip(self.raw_header, self.header)):
            if name:
                if raw != name:
                    self.notes.append(
                        f"column {j + 1} header {raw!r} has leading/trailing white space; read as {name!r}"
                    )
                continue
            if j == 0:
                continue  # an unnamed index column (ADBench, a pandas index)
            if all(j >= len(r) or not r[j].strip() for r in rows):
                keep.remove(j)
                self.notes.append(f"column {j + 1} has an empty header and no value: ignored")
                continue
            raise InvalidInputError(
                f"column {j + 1} of {str(self.path)!r} has an empty header but holds values; "
                "name it (an unnamed column is never given to an invented method)"
            )
        if len(keep) != width:
            self.raw_header = [self.raw_header[j] for j in keep]
            self.header = [self.header[j] for j in keep]
            for i, r in enumerate(rows):
                rows[i] = [r[j] for j in keep if j < len(r)]
        seen: dict[str, int] = {}
        for j, name in enumerate(self.header):
            if not name:
                continue
            if name in seen:
                raise InvalidInputError(
                    f"columns {seen[name] + 1} and {j + 1} of {str(self.path)!r} are both named "
                    f"{name!r} (raw headers {self.raw_header[seen[name]]!r} and "
                    f"{self.raw_header[j]!r}); a duplicate header is never renamed to a new method"
                )
            seen[name] = j

    def col(self, *names) -> int | None:
        """Index of the first column whose lower-case name is one of ``names``."""
        low = [h.lower() for h in self.header]
        for n in names:
            if n in low:
                return low.index(n)
        return None

    def cell(self, i: int, j: int):
        """Parsed (value, std, missing, percent) of a cell, or InvalidInputError naming (row, column)."""
        text = self.rows[i][j]
        try:
            return parse_cell(text)
        except ValueError:
            raise InvalidInputError(
                f"{str(self.path)!r}: {self.where(i, self.header[j])} holds {text!r}, which is "
                "not a number (a number, 'mean ± std', or an empty / '/' / 'nan' cell for a "
                "missing value); it is never read as 0"
            ) from None

    def numeric_share(self, j: int) -> float:
        """Share of the non-missing cells of column j that parse as numbers (nan when all are missing)."""
        ok = bad = 0
        for r in self.rows:
            try:
                _, _, kind, _ = parse_cell(r[j])
            except ValueError:
                bad += 1
                continue
            ok += kind == ""
        return ok / (ok + bad) if ok + bad else math.nan


class CellColumns:
    """Column lists of the long table, filled cell by cell."""

    def __init__(self, meta=()):
        self.cols = {c: [] for c in TABLE_COLUMNS}
        self.cols["_pct"] = []
        self.meta = {m: [] for m in meta}

    def add(self, *, dataset, method, seed, metric, parsed, row, column, n_pos=math.nan, n_neg=math.nan, meta=None):
        value, std, missing, pct = parsed
        c = self.cols
        c["dataset"].append(dataset)
        c["method"].append(method)
        c["seed"].append(seed)
        c["metric"].append(metric)
        c["value"].append(value)
        c["std"].append(std)
        c["n_pos"].append(n_pos)
        c["n_neg"].append(n_neg)
        c["missing"].append(missing)
        c["row"].append(row)
        c["column"].append(column)
        c["_pct"].append(pct)
        for k, lst in self.meta.items():
            lst.append((meta or {}).get(k))
