"""Nulls of every metric over a range of anomaly ratios: [`null_sweep`][auditad.nulls.null_sweep]."""

from __future__ import annotations


from .._rng import check_random_state, spawn
from .._validation import check_int
from ..errors import InvalidInputError
from ..metrics import METRIC_NAMES
from ._results import (
    NullSweepResult,
)
from .distribution import null_distribution


#: Anomaly ratios (positive share) of the sweep of Hermary et al. Figure 1: 99:1 ... 1:99 (positive:negative).
PAPER_SWEEP_RATIOS = (0.99, 0.95, 0.90, 0.80, 0.70, 0.60, 0.50, 0.40, 0.30, 0.20, 0.10, 0.05, 0.01)


def null_sweep(
    ratios=PAPER_SWEEP_RATIOS,
    *,
    n: int = 100,
    metrics=METRIC_NAMES,
    q="coin",
    method: str = "auto",
    runs: int = 10_000,
    random_state=None,
) -> NullSweepResult:
    r"""Nulls of every metric over a range of anomaly ratios at a fixed test-set size (Hermary et al. Figure 1).

    For each ratio π, [`null_distribution`][auditad.nulls.null_distribution] at ``n_pos = round(π n)``; the
    sweep shows how the random baseline of AP/AUPR and F1 moves with π while
    AUROC and MCC stay centred on ½ (scaled MCC), and how large a favourable
    random run can be (mean positive deviation).

    The paper "An Insight on Evaluation Metrics Under the Imbalanced Case of Anomaly Detection" (Hermary et al.) does
    not state its n; its AUROC mean positive deviation of about
    0.25 at the extreme ratios is what n = 100 gives (at 99:1 AUROC is uniform
    on {0, 1/99, …, 1}), hence the default. Its 100 runs per ratio are
    reproduced with ``method="monte_carlo", runs=100``.

    Parameters
    ----------
    ratios : sequence of float, default PAPER_SWEEP_RATIOS
        Anomaly ratios in (0, 1) (99:1 … 1:99 positive:negative).
    n : int, default 100
        Test-set size.
    metrics, q, method, runs, random_state
        As in [`null_distribution`][auditad.nulls.null_distribution]; each ratio gets its own child random generator.

    Returns
    -------
    NullSweepResult

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the
    Imbalanced Case of Anomaly Detection" (§IV, Figure 1).

    See Also
    --------
    - [`null_distribution`][auditad.nulls.null_distribution]

    Examples
    --------
    >>> s = null_sweep([0.99, 0.5], n=200, metrics=["f1"])
    >>> [round(r["f1"].mean, 3) for r in s.results]
    [0.664, 0.499]
    """
    from .._validation import check_probability_array

    arr = check_probability_array(ratios, name="ratios", open_interval=True)
    if arr.ndim != 1:
        raise InvalidInputError(f"ratios must be a 1-D sequence, got shape {arr.shape}")
    n = check_int(n, name="n", low=2)
    children = spawn(check_random_state(random_state), arr.size)
    results = tuple(
        null_distribution(ratio=float(r), n=n, metrics=metrics, q=q, method=method, runs=runs, random_state=g)
        for r, g in zip(arr, children)
    )
    return NullSweepResult(ratios=arr, n=n, prediction=results[0].prediction if results else str(q), results=results)
