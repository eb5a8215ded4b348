"""The leaderboard formats: how each is recognised (`MATCHERS`) and read (`READERS`).

See [`auditad.leaderboards.read_leaderboard`][auditad.leaderboards.read_leaderboard] for the formats; each matcher
returns None when a file has the format, else what it missed; each reader turns
a `RawTable` into
`CellColumns`, adding notes.
"""

from __future__ import annotations

import ast
import math
import re

from ..errors import InvalidInputError
from .rawtable import NUMBER, CellColumns, RawTable
from .schema import METRICS, canonical_metric, metric_info

__all__ = ["FORMATS", "MATCHERS", "READERS"]

#: Formats in the order ``format=None`` tries them.
FORMATS = ("adbench", "pyod", "openood", "anomalib", "long", "wide")

_ADBENCH_KEY = re.compile(rf"^\(\s*(['\"])(.*)\1\s*,\s*({NUMBER})\s*,\s*([-+]?\d+)\s*\)$")
_ADBENCH_METRIC = re.compile(r"^(AUCROC|AUCPR|Time)_", re.IGNORECASE)
_PYOD_HEAD = ["data", "#samples", "#dimensions", "outlierperc"]
_DATASET_NAMES = ("dataset", "data", "class", "category", "task")
_METHOD_NAMES = ("method", "detector", "model", "algorithm")
_SEED_NAMES = ("seed", "run", "trial")
_STD_NAMES = ("std", "sd", "stdev")
_ANOMALIB_MODEL = ("model.class_path", "model.name", "model_name", "model")
_ANOMALIB_CATEGORY = ("data.init_args.category", "dataset.category", "category")
_ANOMALIB_METRIC = re.compile(r"^(image|pixel)_", re.IGNORECASE)
_OPENOOD_SCORE = re.compile(r"^(.*?)[_ ](AUROC|AUPR_IN|AUPR_OUT|FPR@95|FPR95|Accuracy|ACC)$", re.IGNORECASE)


def _match_adbench(raw: RawTable):
    if raw.header[0] not in ("", "Unnamed: 0"):
        return f"the first header is {raw.header[0]!r}, not the empty name of ADBench's index column"
    if len(raw.header) < 2:
        return "no detector column"
    first = raw.rows[0][0].strip()
    if not _ADBENCH_KEY.match(first):
        return f"the first column does not hold \"('dataset', labelled ratio, seed)\" keys (data row 1: {first!r})"
    return None


def _match_pyod(raw: RawTable):
    head = [h.lower().replace(" ", "") for h in raw.header[:4]]
    if head != _PYOD_HEAD:
        return f"the header does not start with Data, #Samples, # Dimensions, Outlier Perc (it starts {raw.header[:4]})"
    if len(raw.header) < 5:
        return "no detector column after Outlier Perc"
    return None


def _match_openood(raw: RawTable):
    missing = [n for n in ("training", "postprocessor") if raw.col(n) is None]
    if missing:
        return f"no {' / '.join(m.capitalize() for m in missing)} column"
    if not any(_OPENOOD_SCORE.match(h) for h in raw.header):
        return "no <split>_AUROC / _Accuracy column"
    return None


def _match_anomalib(raw: RawTable):
    lacks = []
    if raw.col(*_SEED_NAMES[:1]) is None:
        lacks.append("seed")
    if raw.col(*_ANOMALIB_MODEL) is None:
        lacks.append("model (model.class_path / model_name)")
    if raw.col(*_ANOMALIB_CATEGORY) is None:
        lacks.append("category (data.init_args.category / category)")
    if not any(_ANOMALIB_METRIC.match(h) for h in raw.header):
        lacks.append("image_* / pixel_* metric")
    return f"no {', no '.join(lacks)} column" if lacks else None


def _long_columns(raw: RawTable):
    d = raw.col(*_DATASET_NAMES)
    m = raw.col(*_METHOD_NAMES)
    v = raw.col("value", "score")
    named = [
        j
        for j, h in enumerate(raw.header)
        if h and metric_info(canonical_metric(h)).name in METRICS and canonical_metric(h) != "time" and j not in (d, m)
    ]
    return d, m, v, named


def _match_long(raw: RawTable):
    d, m, v, named = _long_columns(raw)
    lacks = []
    if d is None:
        lacks.append("dataset column (dataset / data / class / category / task)")
    if m is None:
        lacks.append("method column (method / detector / model / algorithm)")
    if v is None and not named:
        lacks.append("value column (value / score, or one named after a metric such as auroc)")
    return f"no {', no '.join(lacks)}" if lacks else None


def _wide_columns(raw: RawTable):
    d = raw.col(*_DATASET_NAMES)
    d = 0 if d is None else d
    special = {d, raw.col(*_SEED_NAMES), raw.col("n_pos"), raw.col("n_neg")} - {None}
    return d, special


def _match_wide(raw: RawTable):
    if len(raw.header) < 2:
        return "a single column"
    d, special = _wide_columns(raw)
    methods = [j for j in range(len(raw.header)) if j not in special]
    if not methods:
        return "no method column besides the dataset / seed / count columns"
    shares = [raw.numeric_share(j) for j in methods]
    if not any(s >= 0.5 for s in shares if not math.isnan(s)):
        return "no column besides the dataset column holds numbers"
    return None


MATCHERS = {
    "adbench": _match_adbench,
    "pyod": _match_pyod,
    "openood": _match_openood,
    "anomalib": _match_anomalib,
    "long": _match_long,
    "wide": _match_wide,
}


# --------------------------------------------------------------------------- format readers
def _metric_from_name(stem: str, table: dict, given, fmt: str, what: str) -> str:
    tokens = re.split(r"[^a-z0-9]+", stem.lower())
    found = next((table[t] for t in tokens if t in table), None)
    if given is not None:
        given = canonical_metric(given)
        if found is not None and found != given:
            raise InvalidInputError(f"metric={given!r} but the {fmt} file name {stem!r} says {found!r}")
        return given
    if found is None:
        raise InvalidInputError(f"the {fmt} file name {stem!r} does not say the metric ({what}); pass metric=")
    return found


def _read_adbench(raw: RawTable, opt: dict, out_notes: list):
    stem = raw.path.stem
    m = _ADBENCH_METRIC.match(stem)
    metric = _metric_from_name(
        m.group(1) if m else stem,
        {"aucroc": "auroc", "aucpr": "ap", "time": "time"},
        opt["metric"],
        "ADBench",
        "AUCROC_, AUCPR_ or Time_",
    )
    keys = []
    for i, r in enumerate(raw.rows):
        k = _ADBENCH_KEY.match(r[0].strip())
        if not k:
            try:
                t = ast.literal_eval(r[0].strip())
                ok = isinstance(t, tuple) and len(t) == 3 and isinstance(t[0], str)
            except (ValueError, SyntaxError):
                ok = False
            if not ok:
                raise InvalidInputError(
                    f"{str(raw.path)!r}: {raw.where(i, 'index')} holds {r[0]!r}, not a "
                    "\"('dataset', labelled ratio, seed)\" key"
                )
            keys.append((t[0], float(t[1]), int(t[2])))
        else:
            keys.append((k.group(2), float(k.group(3)), int(k.group(4))))
    parsed = [[raw.cell(i, j) for j in range(1, len(raw.header))] for i in range(len(raw.rows))]
    ratios = list(dict.fromkeys(k[1] for k in keys))
    has_value = {la: False for la in ratios}
    for k, cells in zip(keys, parsed):
        if any(c[2] == "" for c in cells):
            has_value[k[1]] = True
    kept = [la for la in ratios if has_value[la]]
    empty = [la for la in ratios if not has_value[la]]
    if not kept:
        raise InvalidInputError(f"{str(raw.path)!r}: no cell holds a value")
    if empty:
        n_rows = sum(k[1] in empty for k in keys)
        out_notes.append(
            f"labelled ratio(s) {', '.join(f'{la:g}' for la in empty)} have no value in any cell: "
            f"their {n_rows} rows were not run and are left out"
        )
    multi = len(kept) > 1
    cells = CellColumns(meta=("labelled_ratio",))
    for i, (k, row_cells) in enumerate(zip(keys, parsed)):
        if k[1] in empty:
            continue
        dataset = f"{k[0]} (la={k[1]:g})" if multi else k[0]
        for j, c in enumerate(row_cells, start=1):
            cells.add(
                dataset=dataset,
                method=raw.header[j],
                seed=k[2],
                metric=metric,
                parsed=c,
                row=i + 1,
                column=raw.header[j],
                meta={"labelled_ratio": k[1]},
            )
    return cells


def _int_cell(raw: RawTable, i: int, j: int, *, low: int) -> int:
    text = raw.rows[i][j].strip()
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not math.isfinite(v) or v != round(v) or v < low:
        raise InvalidInputError(
            f"{str(raw.path)!r}: {raw.where(i, raw.header[j])} holds {text!r}, not a whole number >= {low}"
        )
    return int(v)


def _read_pyod(raw: RawTable, opt: dict, out_notes: list):
    metric = _metric_from_name(
        raw.path.stem,
        {"roc": "auroc", "prc": "precision_at_n", "time": "time", "auroc": "auroc", "ap": "ap"},
        opt["metric"],
        "PyOD",
        "roc, prc or time",
    )
    cells = CellColumns(meta=("n_samples", "n_dimensions", "outlier_percent"))
    inconsistent = []
    for i, r in enumerate(raw.rows):
        dataset = r[0].strip()
        if not dataset:
            raise InvalidInputError(f"{str(raw.path)!r}: {raw.where(i, raw.header[0])} has no dataset name")
        n = _int_cell(raw, i, 1, low=2)
        dims = _int_cell(raw, i, 2, low=1)
        pct, _, kind, _ = raw.cell(i, 3)
        if kind or not 0.0 < pct < 100.0:
            raise InvalidInputError(
                f"{str(raw.path)!r}: {raw.where(i, raw.header[3])} holds {r[3]!r}; the outlier "
                "percentage must lie in (0, 100)"
            )
        n_pos = int(round(n * pct / 100.0))
        n_pos = min(max(n_pos, 1), n - 1)
        if abs(100.0 * n_pos / n - pct) > 5e-4 * max(1.0, pct):
            inconsistent.append(dataset)
        meta = {"n_samples": n, "n_dimensions": dims, "outlier_percent": pct}
        for j in range(4, len(raw.header)):
            cells.add(
                dataset=dataset,
                method=raw.header[j],
                seed=None,
                metric=metric,
                parsed=raw.cell(i, j),
                row=i + 1,
                column=raw.header[j],
                n_pos=float(n_pos),
                n_neg=float(n - n_pos),
                meta=meta,
            )
    out_notes.append(
        "class counts n_pos = round(#Samples × Outlier Perc / 100), n_neg = #Samples − n_pos: the "
        "whole data set's counts; if the scores came from a test split, pass test_fraction= (PyOD's "
        "benchmark.py tests on 40 %: test_fraction=0.4)"
    )
    if inconsistent:
        out_notes.append(f"Outlier Perc is not n_pos/#Samples for any whole n_pos on {', '.join(inconsistent)}")
    return cells


def _openood_realign(raw: RawTable, i: int, meta_cols: list) -> bool:
    """Right-align the metadata of a short row whose Outlier_Data cell is not Yes/No (a field left out).

    Returns True when the row was realigned, False when its missing trailing fields stay empty.
    """
    r = raw.rows[i]
    got = raw.short[i]
    od = raw.col("outlier_data")
    if od is None or r[od].strip().lower() in ("yes", "no", ""):
        return False
    first = min(meta_cols)
    values = r[first:got]
    slots = list(range(first, len(raw.header)))
    new = [""] * len(slots)
    new[len(slots) - len(values) :] = values
    for j, v in zip(slots, new):
        r[j] = v
    return True


def _read_openood(raw: RawTable, opt: dict, out_notes: list):
    if opt["metric"] is not None:
        raise InvalidInputError("metric= does not apply to the openood format: the metrics come from the headers")
    name = opt["dataset"] if opt["dataset"] is not None else raw.path.stem
    t, p = raw.col("training"), raw.col("postprocessor")
    score = {j: _OPENOOD_SCORE.match(h) for j, h in enumerate(raw.header)}
    score = {j: m for j, m in score.items() if m}
    meta_names = {
        "outlier_data": "outlier_data",
        "arch": "architecture",
        "architecture": "architecture",
        "additional_description": "description",
        "description": "description",
    }
    meta_cols = [j for j in range(len(raw.header)) if j not in score and j not in (t, p)]
    meta_keys = {j: meta_names.get(raw.header[j].lower(), canonical_metric(raw.header[j])) for j in meta_cols}
    realigned, padded = [], []
    for i in sorted(raw.short):
        (realigned if _openood_realign(raw, i, meta_cols) else padded).append(i)
    width = len(raw.header)
    od = raw.col("outlier_data")
    if realigned:
        out_notes.append(
            f"data row(s) {', '.join(str(i + 1) for i in realigned)} have fewer fields than the header "
            f"({width}) and a value other than Yes/No where {raw.header[od]} stands: their metadata "
            f"were right-aligned ({raw.header[od]} left empty)"
        )
    if padded:
        out_notes.append(
            f"data row(s) {', '.join(str(i + 1) for i in padded)} have fewer fields than the header "
            f"({width}): the missing trailing fields are read as empty"
        )
    base, metas = [], []
    for i, r in enumerate(raw.rows):
        tr, pp = r[t].strip(), r[p].strip()
        if not tr and not pp:
            raise InvalidInputError(f"{str(raw.path)!r}: {raw.where(i)} has neither Training nor Postprocessor")
        base.append(tr if (tr == pp or not pp) else (pp if not tr else f"{tr} / {pp}"))
        metas.append({"training": tr, "postprocessor": pp, **{meta_keys[j]: r[j].strip() for j in meta_cols}})
    names = list(base)
    groups: dict = {}
    for i, b in enumerate(base):
        groups.setdefault(b, []).append(i)
    for b, idx in groups.items():
        if len(idx) < 2:
            continue
        differing = [meta_keys[j] for j in meta_cols if len({metas[i][meta_keys[j]] for i in idx} - {""}) > 1]
        for i in idx:
            tag = ", ".join(metas[i][k] for k in differing if metas[i][k])
            names[i] = f"{b} [{tag}]" if tag else b
    seen: dict = {}
    for i, n in enumerate(names):
        if n in seen:
            raise InvalidInputError(
                f"{str(raw.path)!r}: {raw.where(seen[n])} and {raw.where(i)} describe the same "
                f"method {n!r} (same Training, Postprocessor and metadata)"
            )
        seen[n] = i
    cells = CellColumns(meta=("training", "postprocessor", *dict.fromkeys(meta_keys.values())))
    for i in range(len(raw.rows)):
        for j, m in score.items():
            split, met = m.group(1).strip(), canonical_metric(m.group(2))
            dataset = f"{name}/{'ID' if split.upper() == 'ID' else split}"
            cells.add(
                dataset=dataset,
                method=names[i],
                seed=None,
                metric=met,
                parsed=raw.cell(i, j),
                row=i + 1,
                column=raw.header[j],
                meta=metas[i],
            )
    return cells


def _read_anomalib(raw: RawTable, opt: dict, out_notes: list):
    if opt["metric"] is not None:
        raise InvalidInputError("metric= does not apply to the anomalib format: the metrics come from the headers")
    s, mo, ca = raw.col("seed"), raw.col(*_ANOMALIB_MODEL), raw.col(*_ANOMALIB_CATEGORY)
    dc = raw.col("data.class_path", "dataset.name", "dataset")
    score = [j for j, h in enumerate(raw.header) if _ANOMALIB_METRIC.match(h)]
    meta_cols = [j for j in range(len(raw.header)) if j not in score and j not in (s, mo, ca, dc)]
    classes = {raw.rows[i][dc].strip() for i in range(len(raw.rows))} if dc is not None else set()
    rows = []
    for i, r in enumerate(raw.rows):
        seed = _int_cell(raw, i, s, low=0)
        model = r[mo].strip().split(".")[-1]
        cat = r[ca].strip()
        if not model or not cat:
            raise InvalidInputError(f"{str(raw.path)!r}: {raw.where(i)} has no model or no category")
        dataset = f"{r[dc].strip().split('.')[-1]}/{cat}" if len(classes) > 1 else cat
        rows.append([dataset, model, seed, {raw.header[j]: r[j].strip() for j in meta_cols}])
    groups: dict = {}
    for i, (d, m, sd, _) in enumerate(rows):
        groups.setdefault((d, m, sd), []).append(i)
    for key, idx in groups.items():
        if len(idx) < 2:
            continue
        differing = [
            raw.header[j]
            for j in meta_cols
            if len({rows[i][3][raw.header[j]] for i in idx}) > 1 and not raw.header[j].endswith("_duration")
        ]
        if not differing:
            raise InvalidInputError(
                f"{str(raw.path)!r}: {raw.where(idx[0])} and {raw.where(idx[1])} are both model "
                f"{key[1]!r}, category {key[0]!r}, seed {key[2]}"
            )
        for i in idx:
            rows[i][1] = f"{rows[i][1]} [{', '.join(rows[i][3][c] for c in differing)}]"
        out_notes.append(
            f"model {key[1]!r} has several runs on {key[0]!r}, seed {key[2]}, differing in {differing}: named apart"
        )
    cells = CellColumns(meta=tuple(raw.header[j] for j in meta_cols))
    for i, (d, m, sd, meta) in enumerate(rows):
        for j in score:
            cells.add(
                dataset=d,
                method=m,
                seed=sd,
                metric=canonical_metric(raw.header[j]),
                parsed=raw.cell(i, j),
                row=i + 1,
                column=raw.header[j],
                meta=meta,
            )
    return cells


def _count_pair(raw: RawTable, i: int, jp, jn):
    if jp is None or jn is None:
        if (jp is None) != (jn is None):
            raise InvalidInputError(f"{str(raw.path)!r}: n_pos and n_neg columns must be given together")
        return math.nan, math.nan
    tp, tn = raw.rows[i][jp].strip(), raw.rows[i][jn].strip()
    if not tp and not tn:
        return math.nan, math.nan
    return float(_int_cell(raw, i, jp, low=1)), float(_int_cell(raw, i, jn, low=1))


def _seed_value(raw: RawTable, i: int, j):
    if j is None:
        return None
    text = raw.rows[i][j].strip()
    if not text:
        raise InvalidInputError(
            f"{str(raw.path)!r}: {raw.where(i, raw.header[j])} is empty; every row of a table "
            "with a seed column needs its seed"
        )
    try:
        v = float(text)
        return int(v) if v == round(v) else text
    except ValueError:
        return text


def _read_long(raw: RawTable, opt: dict, out_notes: list):
    d, m, v, named = _long_columns(raw)
    s = raw.col(*_SEED_NAMES)
    sd = raw.col(*_STD_NAMES)
    mc = raw.col("metric")
    jp, jn = raw.col("n_pos"), raw.col("n_neg")
    if v is not None:
        value_cols = [v]
        if mc is None and opt["metric"] is None:
            out_notes.append("the table does not name its metric: read as auroc (pass metric=)")
    else:
        value_cols = named
    if mc is not None and v is None:
        raise InvalidInputError(f"{str(raw.path)!r}: a 'metric' column needs a 'value' column")
    used = {d, m, s, sd, mc, jp, jn, *value_cols} - {None}
    meta_cols = [j for j in range(len(raw.header)) if j not in used]
    if meta_cols:
        out_notes.append(f"column(s) {[raw.header[j] for j in meta_cols]} kept as metadata")
    if sd is not None and len(value_cols) > 1:
        raise InvalidInputError(
            f"{str(raw.path)!r}: one std column for {len(value_cols)} metric columns is "
            "ambiguous; give one row per metric with metric, value and std columns"
        )
    cells = CellColumns(meta=tuple(raw.header[j] for j in meta_cols))
    for i, r in enumerate(raw.rows):
        dataset, method = r[d].strip(), r[m].strip()
        if not dataset or not method:
            raise InvalidInputError(f"{str(raw.path)!r}: {raw.where(i)} has no dataset or no method name")
        seed = _seed_value(raw, i, s)
        n_pos, n_neg = _count_pair(raw, i, jp, jn)
        meta = {raw.header[j]: r[j].strip() for j in meta_cols}
        for j in value_cols:
            if j == v:
                metric = canonical_metric(r[mc]) if mc is not None else canonical_metric(opt["metric"] or "auroc")
            else:
                metric = canonical_metric(raw.header[j])
            parsed = raw.cell(i, j)
            if sd is not None:
                std, _, kind, pct = raw.cell(i, sd)
                if not math.isnan(parsed[1]):
                    raise InvalidInputError(
                        f"{str(raw.path)!r}: {raw.where(i)} gives a std both in the value cell "
                        "('±') and in the std column"
                    )
                parsed = (parsed[0], std, parsed[2], parsed[3] or pct)
            cells.add(
                dataset=dataset,
                method=method,
                seed=seed,
                metric=metric,
                parsed=parsed,
                row=i + 1,
                column=raw.header[j],
                n_pos=n_pos,
                n_neg=n_neg,
                meta=meta,
            )
    return cells


def _read_wide(raw: RawTable, opt: dict, out_notes: list):
    d, special = _wide_columns(raw)
    s = raw.col(*_SEED_NAMES)
    jp, jn = raw.col("n_pos"), raw.col("n_neg")
    stem_metric = next(
        (
            canonical_metric(t)
            for t in re.split(r"[^A-Za-z0-9]+", raw.path.stem)
            if canonical_metric(t) in METRICS and canonical_metric(t) != "time"
        ),
        None,
    )
    if opt["metric"] is not None:
        metric = canonical_metric(opt["metric"])
    elif stem_metric is not None:
        metric = stem_metric
        out_notes.append(f"metric {metric!r} taken from the file name")
    else:
        metric = "auroc"
        out_notes.append("the table does not name its metric: read as auroc (pass metric=)")
    if raw.header[d] == "":
        out_notes.append("the unnamed first column is read as the dataset names")
    methods = [j for j in range(len(raw.header)) if j not in special]
    cells = CellColumns()
    for i, r in enumerate(raw.rows):
        dataset = r[d].strip()
        if not dataset:
            raise InvalidInputError(
                f"{str(raw.path)!r}: {raw.where(i, raw.header[d] or 'column 1')} has no dataset name"
            )
        seed = _seed_value(raw, i, s)
        n_pos, n_neg = _count_pair(raw, i, jp, jn)
        for j in methods:
            cells.add(
                dataset=dataset,
                method=raw.header[j],
                seed=seed,
                metric=metric,
                parsed=raw.cell(i, j),
                row=i + 1,
                column=raw.header[j],
                n_pos=n_pos,
                n_neg=n_neg,
            )
    return cells


READERS = {
    "adbench": _read_adbench,
    "pyod": _read_pyod,
    "openood": _read_openood,
    "anomalib": _read_anomalib,
    "long": _read_long,
    "wide": _read_wide,
}
