"""One writer for the standalone report folders (per-class results, leaderboards, time series, OOD sets).

[`write_report_folder`][auditad.report.folder.write_report_folder] refuses a non-empty folder that another
command did not write, lets the caller fill a temporary sibling folder, marks it as written by that command
and renames it into place: the folder holds the previous report or the new one, whole.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..errors import InvalidInputError

__all__ = ["write_report_folder"]


def write_report_folder(out, fill: Callable[[Path], None], *, marker: str, command: str, kind: str) -> Path:
    """Write the report folder ``out`` atomically: ``fill(tmp)`` writes the files, then ``tmp`` replaces ``out``.

    Parameters
    ----------
    out : str or Path
        The report folder. A non-empty folder without the file ``marker`` is refused (it would be replaced).
    fill : callable
        Writes the report's files into the temporary folder it is given.
    marker : str
        Name of the file that marks a folder written by ``command`` (``".auditad-results"``, ...).
    command : str
        The ``auditad`` command named in the marker (``"results"``, ``"timeseries"``, ...).
    kind : str
        What the folder holds, for the message (``"results report"``, ``"time-series report"``, ...).

    Returns
    -------
    Path
        The report folder (a symbolic link's target).

    Raises
    ------
    InvalidInputError
        ``out`` is a non-empty folder without ``marker``, a file, or locked by another run.

    See Also
    --------
    - [`auditad.results.write_results_report`][auditad.results.write_results_report]: a report written with it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "report"
    >>> def fill(tmp):
    ...     (tmp / "report.html").write_text("<p>ok</p>")
    >>> folder = write_report_folder(out, fill, marker=".auditad-demo", command="demo", kind="demo report")
    >>> sorted(p.name for p in folder.iterdir())
    ['.auditad-demo', 'report.html']
    """
    from .._io import discard_output_dir, prepare_output_dir, replace_dir_atomic, write_text_atomic

    out_path = Path(out)
    if out_path.is_dir() and any(out_path.iterdir()) and not (out_path / marker).is_file():
        raise InvalidInputError(
            f"out={str(out_path)!r} is a non-empty folder that is not an auditad {kind}; "
            "choose a new or empty folder (it would be replaced)"
        )
    out_path, tmp = prepare_output_dir(out_path)
    try:
        fill(tmp)
        write_text_atomic(tmp / marker, f"Written by 'auditad {command}'; the next run into this folder replaces it.\n")
        replace_dir_atomic(tmp, out_path)
    except BaseException:
        discard_output_dir(tmp)
        raise
    return out_path
