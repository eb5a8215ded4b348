"""All input checks of auditad.

Every check raises [`InvalidInputError`][auditad.errors.InvalidInputError] with a message
that names the parameter and shows the offending value, so a user never sees a
bare numpy traceback for a mistake of theirs.

Three modules by responsibility: `parameters` (arrays, numbers, choices, the split, renamed keywords),
`files` (``.npy``/``.npz``/MAT-file parsing, size limits, output paths) and `environment` (settings read
from environment variables); every name is re-exported here.
"""

from .environment import env_bytes, env_folder
from .files import (
    DECLARED_FLOOR,
    DECLARED_RATIO,
    check_figure_path,
    check_input_file,
    check_regular_input,
    check_input_files,
    check_output_file,
    declared_bytes_limit,
    reading_inputs,
)
from .parameters import (
    MAX_EMBEDDING_ABS,
    check_binary_labels,
    check_choice,
    check_embeddings,
    check_float,
    check_int,
    check_k,
    check_labels,
    check_n_jobs,
    check_off_or_int,
    check_probability,
    check_probability_array,
    check_same_length,
    check_scores,
    check_split,
    describe,
    renamed_parameter,
)

__all__ = [
    "check_embeddings",
    "check_labels",
    "check_same_length",
    "check_k",
    "check_off_or_int",
    "check_int",
    "check_n_jobs",
    "check_float",
    "check_probability",
    "check_choice",
    "check_binary_labels",
    "check_scores",
    "check_probability_array",
    "describe",
    "check_input_file",
    "check_regular_input",
    "check_input_files",
    "declared_bytes_limit",
    "check_output_file",
    "check_figure_path",
    "reading_inputs",
    "renamed_parameter",
    "check_split",
    "env_bytes",
    "env_folder",
    "DECLARED_FLOOR",
    "DECLARED_RATIO",
    "MAX_EMBEDDING_ABS",
]
