"""The number-format policy of auditad._format: a table of cases per kind of quantity and per output target."""

import math

import numpy as np
import pandas as pd
import pytest

from auditad import _format as F
from auditad.errors import InvalidInputError

NNB = "\u202f"


@pytest.mark.parametrize(
    "func, value, target, expected",
    [
        (F.stat, 0.98321, "html", "0.983"),
        (F.stat, -0.6499, "html", "-0.650"),
        (F.stat, -1e-9, "html", "0.000"),
        (F.stat, 1, "html", "1.000"),
        (F.stat, np.float32(0.5), "html", "0.500"),
        (F.stat, float("nan"), "html", "–"),
        (F.stat, None, "tex", "--"),
        (F.stat, math.inf, "md", "–"),
        (F.pvalue, 0.5, "html", "0.50"),
        (F.pvalue, 0.018, "html", "0.018"),
        (F.pvalue, 0.0012, "html", "0.0012"),
        (F.pvalue, 1.7e-4, "html", "1.7e-04"),
        (F.pvalue, 1.0, "html", "1.0"),
        (F.pvalue, 0.0, "html", "< 1e-16"),
        (F.pvalue, 5e-324, "text", "< 1e-16"),
        (F.pvalue, 2e-16, "html", "2.0e-16"),
        (F.pvalue, 9e-17, "html", "< 1e-16"),
        (F.pvalue, 1.7e-4, "tex", r"$1.7 \times 10^{-4}$"),
        (F.pvalue, 0.0, "tex", r"$< 10^{-16}$"),
        (F.pvalue, float("nan"), "text", "–"),
        (F.pp, 0.0073, "html", f"0.73{NNB}pp"),
        (F.pp, 0.079, "text", f"7.90{NNB}pp"),
        (F.pp, -1e-6, "html", f"0.00{NNB}pp"),
        (F.pp, 0.0073, "tex", r"0.73\,pp"),
        (F.pp, None, "html", "–"),
        (F.count, 12345, "html", f"12{NNB}345"),
        (F.count, 999, "html", "999"),
        (F.count, np.int64(1234567), "md", f"1{NNB}234{NNB}567"),
        (F.count, 12345, "tex", r"12\,345"),
        (F.count, 3.0, "html", "3"),
        (F.count, float("nan"), "html", "–"),
        (F.percent, 0.357, "html", "35.7%"),
        (F.percent, 0.357, "tex", r"35.7\%"),
        (F.real, 123.456, "html", "123"),
        (F.real, 1.23456, "html", "1.23"),
        (F.real, 2.5e-6, "html", "2.50e-06"),
        (F.real, 0.0, "html", "0"),
        (F.real, 123456.0, "html", "1.23e+05"),
    ],
)
def test_value_table(func, value, target, expected):
    assert func(value, target=target) == expected


def test_pvalue_is_never_zero():
    for p in np.r_[0.0, np.logspace(-320, 0, 200)]:
        text = F.pvalue(float(p))
        assert text not in {"0", "0.0", "0.00", "0e+00"} and not text.startswith("0.0e")


@pytest.mark.parametrize(
    "name, values, kind, expected",
    [
        ("p pixels", [0.018, 1.7e-4, 0.5], "p", ["1.8e-02", "1.7e-04", "5.0e-01"]),  # one rule for the column
        ("p_value", [0.018, 0.5, None], "p", ["0.018", "0.50", "–"]),
        # a variance of AUROCs reads one way in every table: fixed, 4 decimals (never scientific beside 3-decimal columns)
        ("sigma2_auc", [1.7e-4, 0.018, 0.0], "variance", ["0.0002", "0.0180", "0.0000"]),
        ("sigma2_auc", [0.0067, 0.018], "variance", ["0.0067", "0.0180"]),
        ("regret", [7.34e-4, 0.034, float("nan")], "pp", [f"0.07{NNB}pp", f"3.40{NNB}pp", "–"]),
        ("n_pos", [178, 12000], "count", ["178", f"12{NNB}000"]),
        ("class", [0, 1000], "text", ["0", "1000"]),  # labels are not quantities
        ("auroc", [0.9, float("nan"), 1.0], "stat", ["0.900", "–", "1.000"]),
        ("spearman_leakage_auroc", [-0.612, 0.5], "stat", ["-0.612", "0.500"]),
        ("representation", ["pixels", "pca16"], "text", ["pixels", "pca16"]),
    ],
)
def test_column_table(name, values, kind, expected):
    assert F.column_kind(name, values) == kind
    assert F.format_column(values, name=name) == expected


def test_no_column_mixes_fixed_and_scientific():
    rng = np.random.default_rng(0)
    for _ in range(200):
        values = list(10 ** rng.uniform(-8, 0, size=rng.integers(2, 12)))
        for name in ("p_value", "sigma2_auc"):
            cells = F.format_column(values, name=name)
            assert len({"e" in c for c in cells}) == 1, cells


def test_format_frame_kinds_and_cells():
    frame = pd.DataFrame(
        {
            "class": [0, 1],
            "n_pos": [178, 1000],
            "auroc": [0.9, np.nan],
            "p pixels": [1e-12, 0.5],
            "regret": [0.0073, 0.03],
        }
    )
    cols, kinds, rows = F.format_frame(frame)
    assert cols == list(frame.columns)
    assert kinds == ["text", "count", "stat", "p", "pp"]
    assert rows == [
        ["0", "178", "0.900", "1.0e-12", f"0.73{NNB}pp"],
        ["1", f"1{NNB}000", "–", "5.0e-01", f"3.00{NNB}pp"],
    ]


def test_number_is_a_drop_in_for_the_old_formatter():
    assert F.number(None) == "–" and F.number(float("nan")) == "–"
    assert F.number(True) == "yes" and F.number(np.bool_(False)) == "no"
    assert F.number(0.0345) == "0.035" and F.number(2.5e-5) == "2.50e-05" and F.number(12.34, 1) == "12.3"
    assert F.number("knn") == "knn" and F.number(np.int64(7)) == "7"


def test_bad_target_and_kind_name_the_parameter():
    with pytest.raises(InvalidInputError, match="target"):
        F.stat(0.5, target="rtf")
    with pytest.raises(InvalidInputError, match="kind"):
        F.format_value(0.5, "bogus")


def test_jinja_filters():
    f = F.jinja_filters()
    assert f["num"](1.23456, 1) == "1.2" and f["pct"](0.5) == "50.0%" and f["pval"](0.0) == "< 1e-16"
