"""Exact and near duplicate rows, conflicting labels and train/test overlap of a benchmark.

Many public anomaly-detection benchmarks hold rows that occur several times, sometimes
with both labels.  A test row with an exact copy among the training rows is at distance 0
from it, so every distance-based detector scores it as perfectly normal (an inflated
AUROC); a row labelled both normal and anomaly caps the AUROC of every detector.

* `find_duplicates` groups the rows of one set: exact duplicate groups (O(n)
  hashing of the row bytes, every candidate verified), near-duplicate pairs under a
  distance threshold derived from the data's own nearest-neighbour distances, and the
  groups whose members carry different labels.
* `train_test_overlap` measures the share of test rows with an exact (or near) copy
  among the training rows; `DuplicatesResult.overlap` and `overlap_by_task`
  do the same for the tasks of a protocol from one grouping of the whole set.
* `OverlapResult.rows_to_keep` gives the test rows left once those with a training
  copy are dropped, so the metrics can be recomputed without them.
* `check_split_column` checks a user's train/test column.

Modules: `exact` (row hashing and exact groups),
`near` (near pairs and the threshold rule),
`result` (`DuplicatesResult`),
`overlap` (train/test overlap),
`find` (the entry points) and
`checks` (input checks).
Definitions and the threshold rule: ``docs/methods/duplicates.md``.
"""

from .checks import check_split_column
from .find import find_duplicates, overlap_by_task
from .near import DEFAULT_NEAR_K, NEAR_THRESHOLD_FACTOR
from .overlap import OverlapResult, TaskOverlapResult, train_test_overlap
from .result import DuplicatesResult

__all__ = [
    "DuplicatesResult",
    "OverlapResult",
    "TaskOverlapResult",
    "find_duplicates",
    "train_test_overlap",
    "overlap_by_task",
    "check_split_column",
    "NEAR_THRESHOLD_FACTOR",
    "DEFAULT_NEAR_K",
]
