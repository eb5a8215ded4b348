"""Plots of auditad results.

Two levels:

* ``plot_*(result, ..., ax=None) -> Axes`` draws one panel on a given Axes
  (or on a new figure of the report's width);
* ``*_figure(...) -> Figure`` composes the panels of one report figure at the
  report's content width (a row or grid of small multiples), inside the
  figure style of `auditad.plotting.style`.

Plotting never computes statistics; matplotlib is imported inside the
functions, and no pyplot state is touched (figures are
`matplotlib.figure.Figure` objects).

References
----------
1. "Testing the Test: Score-Direction Instability in Class-Split Anomaly
   Detection" (leakage, class-split protocol).
2. R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under
   the Imbalanced Case of Anomaly Detection" (nulls, landscapes).
3. K. Wilkinghoff, Z.-H. Tan, "Can We Predict Anomaly Detection Performance
   from Embedding-Space Geometry?" (anomaly-free model selection).
"""

from .landscapes import (
    landscape_differences_figure,
    landscapes_figure,
    minimal_tpr_figure,
    plot_coverage,
    plot_landscape,
    plot_landscape_difference,
    plot_minimal_tpr,
)
from .leaderboards import leaderboard_heatmap_figure, plot_critical_difference, plot_leaderboard_heatmap
from .leakage import leakage_curves_figure, plot_leakage_curve
from .nulls import nulls_figure, plot_null, plot_null_sweep
from .protocol import (
    leakage_vs_auroc_figure,
    plot_leakage_vs_auroc,
    plot_protocol_heatmap,
    plot_protocol_profile,
    protocol_heatmap_figure,
    protocol_profile_figure,
)
from .selection import plot_bound_vs_auc, plot_estimator_vs_auc, selection_figure

__all__ = [
    "plot_protocol_heatmap",
    "plot_leakage_vs_auroc",
    "plot_protocol_profile",
    "plot_landscape",
    "plot_landscape_difference",
    "plot_null_sweep",
    "plot_null",
    "plot_minimal_tpr",
    "plot_coverage",
    "plot_estimator_vs_auc",
    "plot_bound_vs_auc",
    "plot_leakage_curve",
    "leakage_curves_figure",
    "protocol_heatmap_figure",
    "protocol_profile_figure",
    "leakage_vs_auroc_figure",
    "nulls_figure",
    "landscapes_figure",
    "landscape_differences_figure",
    "minimal_tpr_figure",
    "selection_figure",
    "plot_leaderboard_heatmap",
    "leaderboard_heatmap_figure",
    "plot_critical_difference",
]
