"""Human column headers for the report's tables: symbols and words on the page, the code name in a tooltip.

The CSV, Markdown and LaTeX tables keep the code names (``mean_auc``, ``sigma2_auc``): they are what a
script reads. A name without an entry here is shown as it is, with underscores read as spaces.
"""

from __future__ import annotations

import re

__all__ = ["HEADERS", "LATEX_HEADERS", "header"]

#: code name -> header on the page (the code name stays in the CSV and in the header's tooltip).
HEADERS: dict[str, str] = {
    "representation": "representation",
    "detector": "detector",
    "class": "class",
    "n_pos": "n₊",
    "n_neg": "n₋",
    "n_classes": "classes",
    "n": "n",
    "mean_auc": "mean AUROC",
    "sigma2_auc": "σ² AUROC",
    "std_auc": "std AUROC",
    "range_auc": "range AUROC",
    "min_auc": "min AUROC",
    "max_auc": "max AUROC",
    "auroc": "AUROC",
    "rho_rnd": "ρ_rnd",
    "rho_inv": "ρ_inv",
    "rho_dir": "ρ_dir",
    "rho_inv_sig": "ρ_inv sig.",
    "n_inv_sig": "inverted sig.",
    "rho_nonsig": "not sig.",
    "spearman_leakage_auroc": "Spearman (L_k, AUROC)",
    "ci_low": "CI low",
    "ci_high": "CI high",
    "p_value": "p",
    "p_holm": "p (Holm)",
    "log10_p_value": "log₁₀ p",
    "significance": "reading",
    "leakage": "L_k(c)",
    "L_k": "L_k",
    "chance": "chance level",
    "ratio_to_chance": "L_k / chance",
    "ratio": "anomaly share π",
    "auroc_split_std": "AUROC spread over splits",
    "near_random": "near random",
    "inverted": "inverted",
    "direction": "direction",
    "distinct": "distinct",
    "rows_in_groups": "in groups",
    "extra_copies": "extra",
    "groups": "groups",
    "largest_group": "largest",
    "conflicting_groups": "conflict groups",
    "conflicting_rows": "conflict rows",
    "mixed_rows": "mixed rows",
    "near_threshold": "near thr.",
    "near_pairs": "near pairs",
    "near_rows": "near rows",
    "near_conflicting_rows": "near conflict",
}


#: code name -> LaTeX header where the page header has symbols (the rest: the page header, escaped).
LATEX_HEADERS: dict[str, str] = {
    "n_pos": r"$n_+$",
    "n_neg": r"$n_-$",
    "sigma2_auc": r"$\sigma^2$ AUROC",
    "rho_rnd": r"$\rho_{\mathrm{rnd}}$",
    "rho_inv": r"$\rho_{\mathrm{inv}}$",
    "rho_dir": r"$\rho_{\mathrm{dir}}$",
    "rho_inv_sig": r"$\rho_{\mathrm{inv}}$ sig.",
    "spearman_leakage_auroc": r"Spearman ($L_k$, AUROC)",
    "log10_p_value": r"$\log_{10} p$",
    "leakage": r"$L_k(c)$",
    "L_k": r"$L_k$",
    "ratio_to_chance": r"$L_k$ / chance",
    "ratio": r"anomaly share $\pi$",
}


def header(name) -> str:
    """The page header of a column named ``name`` (``"sigma2_auc"`` -> ``"σ² of AUROC"``)."""
    text = str(name)
    if text in HEADERS:
        return HEADERS[text]
    return re.sub(r"_+", " ", text).strip() or text
