"""Every landscape statistic at a set of anomaly ratios, and its files (what ``auditad landscape`` writes).

[`landscape_study`][auditad.landscape_study.landscape_study] computes the landscapes, the difference maps against a
reference
ratio, the regions R1–R5, the minimal TPR, the coverage and (with two metrics or more) the
correlations between metrics; [`write_landscape_study`][auditad.landscape_study.write_landscape_study] writes them as
CSV tables and
PNG figures into one folder.  The command line only parses its flags, calls both and prints.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from pathlib import Path

from ._io import write_bytes_atomic, write_text_atomic
from .errors import AuditadWarning, InvalidInputError
from .landscapes import (
    LANDSCAPE_METRICS,
    CoverageResult,
    LandscapeDifferenceResult,
    LandscapeResult,
    MinimalTprResult,
    RegionStatsResult,
    landscape,
    landscape_correlations,
    landscape_coverage,
    landscape_difference,
    landscape_regions,
    minimal_tpr,
)
from .report._slug import unique_slug

__all__ = ["LandscapeStudy", "landscape_study", "write_landscape_study", "parse_ratios", "check_out_folder"]


@dataclass(frozen=True)
class LandscapeStudy:
    """The landscape statistics of one set of ratios (inputs of `write_landscape_study`).

    Attributes
    ----------
    landscape : LandscapeResult
    difference : LandscapeDifferenceResult
        Against ``difference.reference_ratio``.
    regions : RegionStatsResult
    minimal_tpr : MinimalTprResult
    coverage : CoverageResult
    correlations : object or None
        [`landscape_correlations`][auditad.landscapes.landscape_correlations] (Low/Medium/High groups, or one group per
        ratio when no group holds a ratio); None with a single metric.
    notes : tuple of str
        The [`AuditadWarning`][auditad.errors.AuditadWarning] messages raised while computing.

    See Also
    --------
    - [`landscape_study`][auditad.landscape_study.landscape_study]: every landscape statistic.
    - [`write_landscape_study`][auditad.landscape_study.write_landscape_study]: their files.
    - [`auditad.landscapes.landscape`][auditad.landscapes.landscape]: one landscape.

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
    of Anomaly Detection".
    """

    landscape: LandscapeResult
    difference: LandscapeDifferenceResult
    regions: RegionStatsResult
    minimal_tpr: MinimalTprResult
    coverage: CoverageResult
    correlations: object | None
    notes: tuple[str, ...] = ()

    def tables(self) -> dict:
        """``{file name: DataFrame}`` of every table, in the order they are written."""
        out = {
            "landscape.csv": self.landscape.to_frame(),
            "differences.csv": self.difference.to_frame(),
            "regions.csv": self.regions.to_frame(),
            "minimal_tpr.csv": self.minimal_tpr.to_frame(),
            "coverage.csv": self.coverage.to_frame(),
        }
        if self.correlations is not None:
            out["correlations.csv"] = self.correlations.to_frame()
        return out

    def summary_text(self) -> str:
        """One line: metrics, ratios, grid and reference ratio."""
        land = self.landscape
        return (
            f"Landscapes of {', '.join(land.metrics)} at {', '.join(land.labels)} "
            f"({land.tpr.size} x {land.tnr.size} grid); differences against ratio "
            f"{self.difference.reference_ratio:g}"
        )


def parse_ratios(items) -> object:
    """Command-line ratio values (numbers or preset names, as strings) → the ``ratios`` of `landscape`.

    ``None`` or ``["paper"]`` give ``"paper"`` (every preset of Hermary et al., Table I).

    See Also
    --------
    - [`landscape_study`][auditad.landscape_study.landscape_study]: every landscape statistic.
    - [`write_landscape_study`][auditad.landscape_study.write_landscape_study]: their files.
    - [`auditad.landscapes.landscape`][auditad.landscapes.landscape]: one landscape.


    Examples
    --------
    >>> parse_ratios(["0.05", "MVTec"]), parse_ratios(None)
    ([0.05, 'MVTec'], 'paper')
    """
    ratios = []
    for item in items or ["paper"]:
        try:
            ratios.append(float(item))
        except (TypeError, ValueError):
            ratios.append(item)
    return "paper" if ratios == ["paper"] else ratios


def landscape_study(
    ratios="paper", *, metrics=LANDSCAPE_METRICS, resolution: int = 101, reference: float = 0.5
) -> LandscapeStudy:
    """Landscapes, difference maps, regions, minimal TPR, coverage and correlations at ``ratios``.

    Parameters
    ----------
    ratios : "paper", sequence of float or str
        Anomaly ratios in (0, 1) or preset names, as for [`landscape`][auditad.landscapes.landscape].
    metrics : sequence of str
        Metrics of the landscapes.
    resolution : int
        Grid points per axis.
    reference : float
        Reference ratio of the difference maps.

    Returns
    -------
    LandscapeStudy
        With the warnings raised on the way as ``notes`` (not re-raised).

    References
    ----------
    R. Hermary, N. Mejri, D. Aouada, "An Insight on Evaluation Metrics Under the Imbalanced Case
    of Anomaly Detection" (Sec. V–VI: landscapes, difference maps, regions, minimal TPR, coverage,
    correlations).

    See Also
    --------
    - [`auditad.landscapes.landscape`][auditad.landscapes.landscape]
    - [`write_landscape_study`][auditad.landscape_study.write_landscape_study]

    Examples
    --------
    >>> study = landscape_study([0.1], metrics=("auroc", "f1"), resolution=11)
    >>> study.summary_text()
    'Landscapes of auroc, f1 at 10% (11 x 11 grid); differences against ratio 0.5'
    >>> list(study.tables())
    ['landscape.csv', 'differences.csv', 'regions.csv', 'minimal_tpr.csv', 'coverage.csv', 'correlations.csv']
    """
    land = landscape(ratios, metrics=tuple(metrics), resolution=resolution)
    diff = landscape_difference(land, reference=reference)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", AuditadWarning)
        regions, mt, cov = landscape_regions(land), minimal_tpr(land), landscape_coverage(land)
        rel = None
        if len(land.metrics) >= 2:
            try:
                rel = landscape_correlations(land)
            except InvalidInputError:  # no ratio inside a Low/Medium/High group: one group per ratio
                rel = landscape_correlations(land, groups="each")
    notes = []
    for w in caught:
        if issubclass(w.category, AuditadWarning):
            notes.append(str(w.message))
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return LandscapeStudy(land, diff, regions, mt, cov, rel, tuple(dict.fromkeys(notes)))


def check_out_folder(out) -> Path:
    """``out`` as a Path if it can become the output folder (a folder, or a new name in an existing one).

    See Also
    --------
    - [`landscape_study`][auditad.landscape_study.landscape_study]: every landscape statistic.
    - [`write_landscape_study`][auditad.landscape_study.write_landscape_study]: their files.
    - [`auditad.landscapes.landscape`][auditad.landscapes.landscape]: one landscape.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InvalidInputError(f"out={str(out)!r} exists and is a file, expected a folder")
    if not (out.parent if str(out.parent) else Path(".")).exists():
        raise InvalidInputError(f"the parent folder of out={str(out)!r} does not exist")
    return out


def _save(fig, path: Path) -> None:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120)
    write_bytes_atomic(path, buf.getvalue())


def write_landscape_study(study: LandscapeStudy, out, *, figures: bool = True) -> tuple[str, ...]:
    """Write ``study``'s tables (CSV) and, with ``figures``, its PNG figures into the folder ``out``.

    Files: ``landscape.csv``, ``differences.csv``, ``regions.csv``, ``minimal_tpr.csv``,
    ``coverage.csv`` (+ ``correlations.csv``); per ratio ``landscape_<ratio>.png`` and
    ``difference_<ratio>.png`` (the ratio's label as a file name: ``0.19pct``, ``MVTec``); and
    ``minimal_tpr.png``, ``coverage.png``.  ``out`` is created if missing; files in it are
    overwritten, each atomically.

    Returns
    -------
    tuple of str
        The names written, in order.

    Raises
    ------
    InvalidInputError
        ``out`` is a file, or its parent folder does not exist.

    See Also
    --------
    - [`landscape_study`][auditad.landscape_study.landscape_study]
    - `auditad.plotting.plot_landscape`
    """
    out = check_out_folder(out)
    out.mkdir(exist_ok=True)
    written = []
    from .report.tables import frame_to_csv  # spreadsheet-safe text cells (CSV injection)

    for name, frame in study.tables().items():
        write_text_atomic(out / name, frame_to_csv(frame))
        written.append(name)
    if not figures:
        return tuple(written)
    from matplotlib.figure import Figure

    from .plotting import plot_coverage, plot_landscape, plot_landscape_difference, plot_minimal_tpr

    land, diff = study.landscape, study.difference
    M, taken = len(land.metrics), set()
    for label in land.labels:
        stem = unique_slug(str(label).replace("%", "pct"), taken)
        for prefix, draw in (
            ("landscape", lambda m, ax: plot_landscape(land, metric=m, ratio=label, ax=ax, regions=(m == "auroc"))),
            ("difference", lambda m, ax: plot_landscape_difference(diff, metric=m, ratio=label, ax=ax)),
        ):
            fig = Figure(figsize=(4.2 * M, 3.6), layout="constrained")
            for ax, m in zip(fig.subplots(1, M, squeeze=False)[0], land.metrics):
                draw(m, ax)
            _save(fig, out / f"{prefix}_{stem}.png")
            written.append(f"{prefix}_{stem}.png")
    for stem, fn, res in (
        ("minimal_tpr", plot_minimal_tpr, study.minimal_tpr),
        ("coverage", plot_coverage, study.coverage),
    ):
        fig = Figure(figsize=(4.2 * M, 3.6), layout="constrained")
        for ax, m in zip(fig.subplots(1, M, squeeze=False)[0], land.metrics):
            fn(res, metric=m, ax=ax)
        _save(fig, out / f"{stem}.png")
        written.append(f"{stem}.png")
    return tuple(written)
