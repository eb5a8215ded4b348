"""On-disk format of a selection benchmark: a TOML manifest next to ``.npy`` / ``.npz`` files.

See ``docs/manifest.md`` for the full description. In short:

    [benchmark]
    name = "my-benchmark"

    [[candidates]]
    name = "beats-mean-knn"
    embedding = "beats"
    pooling = "mean"        # only for sequence embeddings (n, T, d)
    scoring = "knn"         # or "ldn"

    [[tasks]]
    name = "fan"
    split = "development"
    group = "dcase2023"
    test_labels = "fan/test_labels.npy"
    reference_meta = "fan/reference_meta.npz"   # arrays "domain", "class", "attribute"
    auxiliary_meta = "fan/auxiliary_meta.npz"
    home = { domain = "source" }

    [tasks.embeddings.beats]
    reference = "fan/beats_reference.npy"
    test = "fan/beats_test.npy"
    auxiliary = "fan/beats_auxiliary.npy"

Rules: relative paths resolve against the manifest's folder and must stay
inside it (after resolving symlinks); unknown keys are errors that name the
key; arrays are read with ``np.load(..., allow_pickle=False)``; an ``.npz``
reference is ``file.npz`` (a single array) or ``file.npz#name``. A file used
several times is read once.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from ._validation import check_input_file
from .errors import InvalidInputError
from .selection.pseudo import META_KEYS
from .selection import Candidate, SelectionBenchmark, SelectionTask, TaskEmbeddings

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["load_manifest", "write_manifest", "MANIFEST_VERSION"]

MANIFEST_VERSION = 1
_TOP_KEYS = {"benchmark", "candidates", "tasks"}
_BENCH_KEYS = {"name", "version", "info"}
_CAND_KEYS = {"name", "embedding", "pooling", "scoring", "k", "K", "ldn_form", "metric", "family"}
_TASK_KEYS = {"name", "embeddings", "test_labels", "reference_meta", "auxiliary_meta", "home", "split", "group"}
_EMB_KEYS = {"reference", "test", "auxiliary"}


def _unknown(table: dict, allowed: set, where: str) -> None:
    extra = sorted(set(table) - allowed)
    if extra:
        raise InvalidInputError(
            f"manifest: unknown key {where}{'.' if where else ''}{extra[0]!r}"
            f"{f' (and {len(extra) - 1} more)' if len(extra) > 1 else ''}; "
            f"allowed keys here: {sorted(allowed)}"
        )


def _need(table: dict, key: str, where: str, kind=str):
    if key not in table:
        raise InvalidInputError(f"manifest: {where} is missing the required key {key!r}")
    value = table[key]
    if not isinstance(value, kind):
        raise InvalidInputError(f"manifest: {where}.{key} must be a {kind.__name__}, got {value!r}")
    return value


def _entries(doc: dict, key: str):
    """Yield (place, table) for every ``[[key]]`` entry; at least one is required."""
    items = doc.get(key)
    if not isinstance(items, list) or not items:
        raise InvalidInputError(f"manifest: at least one [[{key}]] entry is required")
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise InvalidInputError(f"manifest: {key}[{i}] must be a table")
        yield f"{key}[{i}]", item


class _Loader:
    """Resolves and loads array references relative to the manifest folder, once per file."""

    def __init__(self, root: Path):
        self.root = root.resolve()
        self.cache: dict[tuple, np.ndarray] = {}
        self.npz: dict[Path, dict] = {}

    def path(self, ref: str, where: str) -> tuple[Path, str | None]:
        if not isinstance(ref, str) or not ref:
            raise InvalidInputError(f"manifest: {where} must be a relative file path string, got {ref!r}")
        file, _, key = ref.partition("#")
        p = Path(file)
        if p.is_absolute():
            raise InvalidInputError(
                f"manifest: {where} = {ref!r} is an absolute path; paths must be relative to the manifest's folder"
            )
        full = (self.root / p).resolve()
        try:
            full.relative_to(self.root)
        except ValueError:
            raise InvalidInputError(
                f"manifest: {where} = {ref!r} escapes the manifest's folder ({self.root})"
            ) from None
        if not full.is_file():
            raise InvalidInputError(f"manifest: {where} = {ref!r}: file not found ({full})")
        if full.suffix not in (".npy", ".npz"):
            raise InvalidInputError(f"manifest: {where} = {ref!r}: expected a .npy or .npz file")
        if key and full.suffix != ".npz":
            raise InvalidInputError(f"manifest: {where} = {ref!r}: '#name' selects an array inside an .npz file only")
        check_input_file(full, name=f"manifest: {where} = {ref!r}:")  # corrupted, truncated or pickled
        return full, key or None

    def _npz(self, full: Path, where: str) -> dict:
        if full not in self.npz:
            try:
                with np.load(full, allow_pickle=False) as z:
                    self.npz[full] = {k: z[k] for k in z.files}
            except ValueError as exc:
                raise InvalidInputError(f"manifest: {where}: cannot read {full.name} without pickle ({exc})") from None
        return self.npz[full]

    def array(self, ref: str, where: str) -> np.ndarray:
        full, key = self.path(ref, where)
        if (full, key) in self.cache:
            return self.cache[(full, key)]
        if full.suffix == ".npy":
            try:
                arr = np.load(full, allow_pickle=False)
            except ValueError as exc:
                raise InvalidInputError(f"manifest: {where} = {ref!r}: cannot read without pickle ({exc})") from None
        else:
            arrays = self._npz(full, where)
            if key is None:
                if len(arrays) != 1:
                    raise InvalidInputError(
                        f"manifest: {where} = {ref!r} holds {sorted(arrays)}; name one with 'file.npz#name'"
                    )
                arr = next(iter(arrays.values()))
            elif key not in arrays:
                raise InvalidInputError(
                    f"manifest: {where} = {ref!r}: no array {key!r} in the file (has {sorted(arrays)})"
                )
            else:
                arr = arrays[key]
        self.cache[(full, key)] = arr
        return arr

    def meta(self, value, where: str) -> dict:
        """Metadata: an .npz file whose arrays are the columns, or a table column -> array reference."""
        if isinstance(value, str):
            full, key = self.path(value, where)
            if full.suffix != ".npz" or key is not None:
                raise InvalidInputError(
                    f"manifest: {where} = {value!r} must be an .npz file whose arrays are "
                    f"named {list(META_KEYS)} (or a table column = array file)"
                )
            arrays = self._npz(full, where)
            _unknown(arrays, set(META_KEYS), f"{where} ({full.name}) array ")
            return dict(arrays)
        if isinstance(value, dict):
            _unknown(value, set(META_KEYS), where)
            return {k: self.array(v, f"{where}.{k}") for k, v in value.items()}
        raise InvalidInputError(f"manifest: {where} must be a file path or a table, got {value!r}")


def load_manifest(path) -> SelectionBenchmark:
    """Read a selection benchmark from a TOML manifest (see the module docstring and ``docs/manifest.md``).

    Parameters
    ----------
    path : str or Path
        The manifest file; relative array paths resolve against its folder.

    Returns
    -------
    SelectionBenchmark
        Validated (shapes, NaN, labels, metadata) like an in-memory benchmark.

    Raises
    ------
    auditad.errors.InvalidInputError
        A missing file or manifest, invalid TOML, an unknown key (named), a
        missing required key, an absolute path or one escaping the manifest's
        folder, a file that is not ``.npy``/``.npz`` or needs pickle, an
        unsupported ``benchmark.version``, and every error of
        [`SelectionBenchmark`][auditad.selection.SelectionBenchmark].

    See Also
    --------
    - [`write_manifest`][auditad.manifest.write_manifest]
    - [`auditad.selection.run_selection`][auditad.selection.run_selection]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 5 (tasks × candidates).

    Examples
    --------
    >>> import tempfile
    >>> from auditad.synthetic import make_selection_benchmark
    >>> bench = make_selection_benchmark(n_tasks=2, n_source=20, n_target=2, n_test=8, random_state=0)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     loaded = load_manifest(write_manifest(bench, d))
    >>> loaded.n_tasks, len(loaded.candidates)
    (2, 18)
    """
    from ._io import read_input_bytes

    path = Path(path)
    if not path.exists():
        raise InvalidInputError(f"manifest file not found: {str(path)!r}")
    data = read_input_bytes(path, what="manifest file", max_bytes=16 * 1024 * 1024)  # no FIFO, no /dev/zero
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise InvalidInputError(f"manifest {str(path)!r} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInputError(f"manifest {str(path)!r} is not valid TOML: {exc}") from None
    _unknown(doc, _TOP_KEYS, "")
    bench = doc.get("benchmark", {})
    if not isinstance(bench, dict):
        raise InvalidInputError("manifest: [benchmark] must be a table")
    _unknown(bench, _BENCH_KEYS, "benchmark")
    version = bench.get("version", MANIFEST_VERSION)
    if version != MANIFEST_VERSION:
        raise InvalidInputError(
            f"manifest: benchmark.version {version!r} is not supported (expected {MANIFEST_VERSION})"
        )
    loader = _Loader(path.parent)

    candidates = []
    for where, c in _entries(doc, "candidates"):
        _unknown(c, _CAND_KEYS, where)
        _need(c, "name", where)
        _need(c, "embedding", where)
        candidates.append(Candidate(**c))

    tasks = []
    for where, t in _entries(doc, "tasks"):
        name = _need(t, "name", where)
        where = f"{where} ({name})"
        _unknown(t, _TASK_KEYS, where)
        embs = _need(t, "embeddings", where, dict)
        embeddings = {}
        for ename, e in embs.items():
            ew = f"{where}.embeddings.{ename}"
            if not isinstance(e, dict):
                raise InvalidInputError(f"manifest: {ew} must be a table with reference/test/auxiliary files")
            _unknown(e, _EMB_KEYS, ew)
            _need(e, "reference", ew)
            embeddings[ename] = TaskEmbeddings(**{k: loader.array(v, f"{ew}.{k}") for k, v in e.items()})
        home = t.get("home")
        if home is not None:
            if not isinstance(home, dict):
                raise InvalidInputError(f'manifest: {where}.home must be a table such as {{ domain = "source" }}')
            _unknown(home, set(META_KEYS), f"{where}.home")
        for key in ("split", "group"):
            if key in t and not isinstance(t[key], str):
                raise InvalidInputError(f"manifest: {where}.{key} must be a string, got {t[key]!r}")
        tasks.append(
            SelectionTask(
                name=name,
                embeddings=embeddings,
                test_labels=loader.array(t["test_labels"], f"{where}.test_labels") if "test_labels" in t else None,
                reference_meta=loader.meta(t["reference_meta"], f"{where}.reference_meta")
                if "reference_meta" in t
                else {},
                auxiliary_meta=loader.meta(t["auxiliary_meta"], f"{where}.auxiliary_meta")
                if "auxiliary_meta" in t
                else {},
                home=home,
                split=t.get("split"),
                group=t.get("group"),
            )
        )
    info = bench.get("info", {})
    if not isinstance(info, dict):
        raise InvalidInputError("manifest: benchmark.info must be a table")
    return SelectionBenchmark(tasks=tasks, candidates=candidates, name=str(bench.get("name", path.stem)), info=info)


# --------------------------------------------------------------------------- writing
_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(k: str) -> str:
    return k if _BARE.match(k) else json.dumps(k)


def _val(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(str(k))} = {_val(x)}" for k, x in v.items()) + " }"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_val(x) for x in v) + "]"
    raise InvalidInputError(f"write_manifest: cannot write value {v!r} to TOML")


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", name) or "x"


def write_manifest(benchmark: SelectionBenchmark, folder, *, filename: str = "manifest.toml") -> Path:
    """Write a benchmark as ``folder/manifest.toml`` plus one folder of ``.npy``/``.npz`` files per task.

    ``benchmark.info`` is written when it holds only TOML-representable values
    (strings, numbers, lists, tables). The manifest is written atomically;
    [`load_manifest`][auditad.manifest.load_manifest] reads it back to an equal benchmark.

    Parameters
    ----------
    benchmark : SelectionBenchmark
    folder : str or Path
        Created when missing.
    filename : str, default "manifest.toml"

    Returns
    -------
    Path
        The manifest path.

    Raises
    ------
    auditad.errors.InvalidInputError
        ``benchmark`` is not a [`SelectionBenchmark`][auditad.selection.SelectionBenchmark].

    See Also
    --------
    - [`load_manifest`][auditad.manifest.load_manifest]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 5 (tasks × candidates).

    Examples
    --------
    >>> import tempfile
    >>> from auditad.synthetic import digits_benchmark
    >>> bench = digits_benchmark(embeddings=("pca2",), scorings=("knn",))
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = write_manifest(bench, d)
    ...     print(path.name, load_manifest(path).n_tasks)
    manifest.toml 10
    """
    from ._io import write_text_atomic

    if not isinstance(benchmark, SelectionBenchmark):
        raise InvalidInputError(f"benchmark must be a SelectionBenchmark, got {type(benchmark).__name__}")
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    lines = [
        "# auditad selection benchmark manifest (see docs/manifest.md)",
        "[benchmark]",
        f"name = {_val(benchmark.name)}",
        f"version = {MANIFEST_VERSION}",
    ]
    if benchmark.info:
        try:
            lines.append(f"info = {_val(dict(benchmark.info))}")
        except InvalidInputError:
            pass
    for c in benchmark.candidates:
        lines += ["", "[[candidates]]"]
        for f, v in c.to_dict().items():
            if v is not None:
                lines.append(f"{f} = {_val(v)}")
    for i, t in enumerate(benchmark.tasks):
        sub = f"task{i:03d}_{_safe(t.name)}"
        (root / sub).mkdir(exist_ok=True)
        lines += ["", "[[tasks]]", f"name = {_val(t.name)}"]
        for key in ("split", "group"):
            if getattr(t, key) is not None:
                lines.append(f"{key} = {_val(getattr(t, key))}")
        if t.test_labels is not None:
            np.save(root / sub / "test_labels.npy", np.asarray(t.test_labels), allow_pickle=False)
            lines.append(f"test_labels = {_val(f'{sub}/test_labels.npy')}")
        for key in ("reference_meta", "auxiliary_meta"):
            meta = getattr(t, key)
            if meta:
                np.savez(root / sub / f"{key}.npz", **{k: np.asarray(v).astype(str) for k, v in meta.items()})
                lines.append(f"{key} = {_val(f'{sub}/{key}.npz')}")
        if t.home:
            lines.append(f"home = {_val({k: str(v) for k, v in t.home.items()})}")
        for ename, e in t.embeddings.items():
            lines.append(f"[tasks.embeddings.{_key(ename)}]")
            for part in ("reference", "test", "auxiliary"):
                arr = getattr(e, part)
                if arr is not None:
                    fname = f"{sub}/{_safe(ename)}_{part}.npy"
                    np.save(root / fname, np.asarray(arr), allow_pickle=False)
                    lines.append(f"{part} = {_val(fname)}")
    out = root / filename
    write_text_atomic(out, "\n".join(lines) + "\n")
    return out
