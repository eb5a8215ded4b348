"""Selection benchmarks with known ground truth: a synthetic generator and scikit-learn's digits.

[`make_selection_benchmark`][auditad.synthetic.make_selection_benchmark] draws DCASE-like tasks (in the spirit of Sec. 5
of
K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection Performance from
Embedding-Space Geometry?"): every task is one "machine type" (class) whose normal reference set
holds many source-domain and few target-domain samples (e.g. 990/10), a test
set balanced over domains with anomalies, and an auxiliary pool of other
normals (other operating conditions = attributes, extra target-domain
samples, other machine types) for the Cross-* probes. Candidates are
representations of different quality of one latent space, including a
sequence representation (n, T, d) whose anomalies may be transient, so that
the pooling choice matters and the Sequence/Element probes have something to
work on.

[`digits_benchmark`][auditad.synthetic.digits_benchmark] builds a small real benchmark from
`sklearn.datasets.load_digits`: one task per digit (that digit normal,
the other digits anomalous), candidates = several representations × kNN/LDN.
"""

from __future__ import annotations

import numpy as np

from ._rng import check_random_state
from ._validation import check_choice, check_float, check_int
from .errors import InvalidInputError
from .selection.scoring import SCORINGS, parse_pooling
from .selection import Candidate, SelectionBenchmark, SelectionTask, TaskEmbeddings

__all__ = ["make_selection_benchmark", "digits_benchmark", "FAMILIES", "DIGITS_EMBEDDINGS"]

#: representation families of the synthetic generator: output dimension, observation noise, extra
#: pure-noise dimensions, and whether two latent dimensions are nearly invisible (shrunk by 0.15)
FAMILIES = {
    "clean": dict(dim=12, noise=0.3, nuisance=0, blind=False),
    "noisy": dict(dim=12, noise=1.0, nuisance=12, blind=False),
    "partial": dict(dim=12, noise=0.3, nuisance=0, blind=True),
}
DIGITS_EMBEDDINGS = ("pixels", "l2", "pca2", "pca8", "pca32")


def _softplus(x):
    return np.logaddexp(0.0, x)


def _selection_benchmark_iv(
    n_tasks,
    n_groups,
    n_source,
    n_target,
    n_test,
    n_auxiliary,
    seq_len,
    latent_dim,
    families,
    vector_families,
    poolings,
    scorings,
) -> tuple:
    """The counts and names of `make_selection_benchmark` checked; the counts, ``m`` and the family tuples."""
    n_tasks = check_int(n_tasks, name="n_tasks", low=1)
    n_groups = check_int(n_groups, name="n_groups", low=1, high=n_tasks)
    n_source = check_int(n_source, name="n_source", low=1)
    n_target = check_int(n_target, name="n_target", low=0)
    if n_source + n_target < 4:
        raise InvalidInputError(f"n_source + n_target must be at least 4, got {n_source + n_target}")
    n_test = check_int(n_test, name="n_test", low=4)
    n_auxiliary = check_int(n_auxiliary, name="n_auxiliary", low=0)
    seq_len = check_int(seq_len, name="seq_len", low=1)
    m = check_int(latent_dim, name="latent_dim", low=3)
    families, vector_families = tuple(families), tuple(vector_families)
    if not families and not vector_families:
        raise InvalidInputError("families and vector_families must not both be empty")
    for f in families + vector_families:
        check_choice(f, tuple(FAMILIES), name="family")
    for s in scorings:
        check_choice(s, SCORINGS, name="scoring")
    for p in poolings:
        parse_pooling(p)
    if n_tasks < 2 and n_auxiliary:
        raise InvalidInputError("other-class auxiliary normals need n_tasks >= 2 (or n_auxiliary=0)")
    return n_tasks, n_groups, n_source, n_target, n_test, n_auxiliary, seq_len, m, families, vector_families


def make_selection_benchmark(
    *,
    n_tasks: int = 8,
    n_groups: int = 2,
    n_source: int = 190,
    n_target: int = 10,
    n_test: int = 100,
    n_auxiliary: int = 60,
    families=("clean", "noisy", "partial"),
    vector_families=(),
    poolings=("mean", "max", "rdp:2"),
    scorings=("knn", "ldn"),
    seq_len: int = 8,
    latent_dim: int = 6,
    random_state=0,
) -> SelectionBenchmark:
    r"""Synthetic selection benchmark with source/target domains, classes, attributes and anomalies.

    Generative model (latent dimension m = ``latent_dim``): task t is class
    t with mean \(\mu_t \sim N(0, 1.5^2 I)\) and per-dimension spread
    \(s_t \sim U(0.6, 1.4)\); a normal sample is
    \(z = \mu_t + \alpha_{t,a} + [\text{target}]\,\delta_t + s_t \odot \varepsilon\)
    (target samples spread 1.5× wider), with attribute shifts
    \(\alpha_{t,a}\) (``a0`` = home attribute, shift 0; ``a1``, ``a2``:
    size 1.5–3 \(\bar s_t\), leaning towards the anomaly direction) and a
    target-domain offset \(\delta_t\) of size \(2\bar s_t\). An
    anomaly adds \(c\,u_t\), \(u_t\) a random unit direction per task
    and \(c \sim U(2, 5)\cdot\bar s_t\).

    \[
    z = \mu_t + \alpha_{t,a} + [\text{target}]\,\delta_t + s_t \odot \varepsilon
    + [\text{anomaly}]\, c\, u_t,\qquad \varepsilon \sim N(0, I_m)
    \]

    Representations ("embedding models", see `FAMILIES`): ``clean``
    (12-d, little noise), ``noisy`` (strong noise + 12 pure-noise dimensions)
    and ``partial`` (blind to two latent dimensions). Every name in
    ``families`` yields *sequence* embeddings of ``seq_len`` frames (softplus
    activations of the latent state with frame jitter; in task t the anomaly
    shows in a fraction f_t ∈ {1/4, 1/2, 1} of the frames, with twice its
    strength, so mean pooling dilutes transient anomalies that max/GeM/RDP
    keep) and gives the candidates family × ``poolings`` × ``scorings``; every
    name in ``vector_families`` (written ``"<name>-vec"``) yields clip-level
    vectors (the anomaly is always visible) and the candidates family ×
    ``scorings``.

    Per task: reference ``n_source`` source + ``n_target`` target normals of
    attribute a0; test ``n_test`` samples (half anomalies, each half balanced
    over domains); auxiliary pool of ``n_auxiliary`` normals: one third
    other attributes (a1/a2) of the class, one third target-domain a0
    normals, one third normals of other classes. Tasks are assigned to
    ``n_groups`` groups round-robin; within a group the first half is
    ``development``, the rest ``evaluation``. The ground truth (directions,
    transient fractions, blind dimensions) is in ``benchmark.info``.

    Parameters
    ----------
    n_tasks : int, default 8
        Tasks (machine types).
    n_groups : int, default 2
        Groups (datasets) for Fixed selection, 1 <= n_groups <= n_tasks.
    n_source, n_target : int, default 190 and 10
        Source- and target-domain normals of each reference set (together >= 4).
    n_test : int, default 100
        Test samples per task (>= 4, half anomalies).
    n_auxiliary : int, default 60
        Auxiliary normals per task.
    families : sequence of str, default ("clean", "noisy", "partial")
        Sequence representations (keys of `FAMILIES`).
    vector_families : sequence of str, default ()
        Clip-level vector representations.
    poolings : sequence of str, default ("mean", "max", "rdp:2")
        Poolings of the sequence candidates.
    scorings : sequence of str, default ("knn", "ldn")
    seq_len : int, default 8
        Frames per sequence.
    latent_dim : int, default 6
        Latent dimension m (>= 3).
    random_state : None, int or Generator, default 0

    Returns
    -------
    SelectionBenchmark

    Raises
    ------
    auditad.errors.InvalidInputError
        A count out of range, an unknown family, pooling or scoring, no family at all.

    See Also
    --------
    - [`digits_benchmark`][auditad.synthetic.digits_benchmark]
    - [`auditad.selection.run_selection`][auditad.selection.run_selection]
    - [`auditad.manifest.write_manifest`][auditad.manifest.write_manifest]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 5 (the DCASE task structure this imitates).

    Examples
    --------
    >>> b = make_selection_benchmark(n_tasks=2, n_source=40, n_target=4, n_test=20, random_state=0)
    >>> b.n_tasks, len(b.candidates), b.tasks[0].embeddings["clean"].reference.shape
    (2, 18, (44, 8, 12))
    """
    (n_tasks, n_groups, n_source, n_target, n_test, n_auxiliary, seq_len, m, families, vector_families) = (
        _selection_benchmark_iv(
            n_tasks,
            n_groups,
            n_source,
            n_target,
            n_test,
            n_auxiliary,
            seq_len,
            latent_dim,
            families,
            vector_families,
            poolings,
            scorings,
        )
    )
    rng = check_random_state(random_state)
    world = _latent_world(rng, n_tasks, m, families, vector_families)
    reps = world["reps"]

    # ------------------------------------------------------------ tasks
    tasks = []
    group_of = [t % n_groups for t in range(n_tasks)]
    for t in range(n_tasks):
        tasks.append(
            _synthetic_task(
                world,
                rng,
                t,
                group_of=group_of,
                n_source=n_source,
                n_target=n_target,
                n_test=n_test,
                n_auxiliary=n_auxiliary,
                seq_len=seq_len,
            )
        )

    candidates = [
        Candidate(name=f"{name}-{p}-{s}" if p else f"{name}-{s}", embedding=name, pooling=p, scoring=s, family=name)
        for name, (spec, W, is_seq) in reps.items()
        for p in (poolings if is_seq else (None,))
        for s in scorings
    ]
    return SelectionBenchmark(
        tasks=tasks,
        candidates=candidates,
        name="synthetic",
        info=_ground_truth(m, seq_len, world["blind"], reps, world["u"], world["transient"], world["spread"]),
    )


def _latent_world(rng, n_tasks: int, m: int, families: tuple, vector_families: tuple) -> dict:
    """The hidden parameters of `make_selection_benchmark`, drawn from ``rng``: class means ``mu``, spreads,
    anomaly directions ``u``, attribute and domain shifts, transient fractions, blind dimensions and the
    representation maps ``reps`` (embedding name -> (family spec, map W, is_sequence)); and ``m``."""
    # ------------------------------------------------------------ latent world
    mu = rng.normal(0.0, 1.5, size=(n_tasks, m))
    spread = rng.uniform(0.6, 1.4, size=(n_tasks, m))
    u = rng.normal(size=(n_tasks, m))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    # attribute shifts lean towards the anomaly direction (operating conditions and faults change
    # related aspects of the signal), domain shifts point anywhere
    attr_dir = 0.6 * u[:, None, :] + rng.normal(0.0, 1.0 / np.sqrt(m), size=(n_tasks, 3, m))
    attr_dir /= np.linalg.norm(attr_dir, axis=2, keepdims=True)
    attr_shift = attr_dir * (rng.uniform(1.5, 3.0, size=(n_tasks, 3, 1)) * spread.mean(axis=1)[:, None, None])
    attr_shift[:, 0] = 0.0
    dom_dir = rng.normal(size=(n_tasks, m))
    dom_shift = 2.0 * spread.mean(axis=1, keepdims=True) * dom_dir / np.linalg.norm(dom_dir, axis=1, keepdims=True)
    transient = rng.choice([0.25, 0.5, 1.0], size=n_tasks)
    blind = np.sort(rng.choice(m, size=2, replace=False))
    reps = {}  # embedding name -> (family spec, map W, is_sequence)
    for f, is_seq in [(f, True) for f in families] + [(f, False) for f in vector_families]:
        spec = FAMILIES[f]
        gain = np.ones(m)
        if spec["blind"]:
            gain[blind] = 0.15
        W = rng.normal(0.0, 1.0 / np.sqrt(m), size=(spec["dim"], m)) * 2.0 * gain[None, :]
        reps[f if is_seq else f"{f}-vec"] = (spec, W, is_seq)
    return dict(
        m=m,
        mu=mu,
        spread=spread,
        u=u,
        attr_shift=attr_shift,
        dom_shift=dom_shift,
        transient=transient,
        blind=blind,
        reps=reps,
    )


def _latent(world: dict, rng, t, n, *, attr, target, anomalous):
    """Latent states of ``n`` samples of task ``t`` and their anomaly displacements (zero for normals)."""
    mu, attr_shift, spread, m = world["mu"], world["attr_shift"], world["spread"], world["m"]
    z = mu[t] + attr_shift[t, attr] + spread[t] * rng.standard_normal((n, m)) * np.where(target, 1.5, 1.0)[:, None]
    z += np.where(target, 1.0, 0.0)[:, None] * world["dom_shift"][t]
    c = np.where(anomalous, rng.uniform(2.0, 5.0, size=n) * spread[t].mean(), 0.0)
    return z, c[:, None] * world["u"][t]


def _embed(world: dict, rng, seq_len: int, name, t, z, disp):
    """The representation ``name`` of latent states ``z`` with anomaly displacements ``disp`` (task ``t``)."""
    spec, W, is_seq = world["reps"][name]
    m = world["m"]
    n = z.shape[0]
    if is_seq:
        k = max(1, int(round(world["transient"][t] * seq_len)))
        on = np.zeros((n, seq_len))
        pick = np.argsort(rng.random((n, seq_len)), axis=1)[:, :k]
        on[np.repeat(np.arange(n), k), pick.ravel()] = 2.0
        frames = z[:, None, :] + 0.5 * rng.standard_normal((n, seq_len, m)) + on[:, :, None] * disp[:, None, :]
        x = _softplus(
            np.einsum("ntm,dm->ntd", frames, W) + spec["noise"] * rng.standard_normal((n, seq_len, spec["dim"]))
        )
        if spec["nuisance"]:
            x = np.concatenate([x, _softplus(2.0 * rng.standard_normal((n, seq_len, spec["nuisance"])))], axis=2)
        return x
    x = (z + disp) @ W.T + spec["noise"] * rng.standard_normal((n, spec["dim"]))
    if spec["nuisance"]:
        x = np.concatenate([x, 2.0 * rng.standard_normal((n, spec["nuisance"]))], axis=1)
    return x


def _synthetic_task(
    world: dict,
    rng,
    t: int,
    *,
    group_of: list,
    n_source: int,
    n_target: int,
    n_test: int,
    n_auxiliary: int,
    seq_len: int,
) -> SelectionTask:
    """Task ``t`` of `make_selection_benchmark`: reference, test and auxiliary samples, metadata and split."""
    n_tasks = len(group_of)
    reps = world["reps"]

    def latent(t, n, *, attr, target, anomalous):
        return _latent(world, rng, t, n, attr=attr, target=target, anomalous=anomalous)

    def embed(name, t, z, disp):
        return _embed(world, rng, seq_len, name, t, z, disp)

    n_ref = n_source + n_target
    ref_target = np.r_[np.zeros(n_source, bool), np.ones(n_target, bool)]
    n_anom = n_test // 2
    n_norm = n_test - n_anom
    test_anom = np.r_[np.zeros(n_norm, bool), np.ones(n_anom, bool)]
    test_target = np.r_[np.arange(n_norm) % 2 == 1, np.arange(n_anom) % 2 == 1]
    n_attr = n_auxiliary // 3
    n_dom = n_auxiliary // 3
    n_cls = n_auxiliary - n_attr - n_dom
    others = [o for o in range(n_tasks) if o != t]
    aux_cls = rng.choice(others, size=n_cls) if n_cls else np.zeros(0, int)
    aux_attr = 1 + np.arange(n_attr) % 2
    parts = {  # name -> (latent, displacement)
        "reference": latent(t, n_ref, attr=0, target=ref_target, anomalous=np.zeros(n_ref, bool)),
        "test": latent(t, n_test, attr=0, target=test_target, anomalous=test_anom),
    }
    if n_auxiliary:
        za = [
            latent(t, n_attr, attr=aux_attr, target=np.zeros(n_attr, bool), anomalous=np.zeros(n_attr, bool)),
            latent(t, n_dom, attr=0, target=np.ones(n_dom, bool), anomalous=np.zeros(n_dom, bool)),
        ]
        zc = [latent(int(o), 1, attr=0, target=np.zeros(1, bool), anomalous=np.zeros(1, bool)) for o in aux_cls]
        z = np.concatenate([p[0] for p in za + zc])
        parts["auxiliary"] = (z, np.zeros_like(z))
    embeddings = {}
    for name in reps:
        arrays = {k: embed(name, t, z, disp) for k, (z, disp) in parts.items()}
        embeddings[name] = TaskEmbeddings(
            reference=arrays["reference"], test=arrays["test"], auxiliary=arrays.get("auxiliary")
        )
    ref_meta = {
        "domain": np.where(ref_target, "target", "source"),
        "class": np.full(n_ref, f"machine{t}"),
        "attribute": np.full(n_ref, "a0"),
    }
    aux_meta = {}
    if n_auxiliary:
        aux_meta = {
            "domain": np.r_[np.full(n_attr, "source"), np.full(n_dom, "target"), np.full(n_cls, "source")],
            "class": np.r_[np.full(n_attr + n_dom, f"machine{t}"), [f"machine{o}" for o in aux_cls]],
            "attribute": np.r_[[f"a{a}" for a in aux_attr], np.full(n_dom + n_cls, "a0")],
        }
    g = group_of[t]
    in_group = [s for s in range(n_tasks) if group_of[s] == g]
    split = "development" if in_group.index(t) < max(1, len(in_group) // 2) else "evaluation"
    if len(in_group) == 1:
        split = None
    return SelectionTask(
        name=f"machine{t}",
        embeddings=embeddings,
        test_labels=test_anom.astype(np.int8),
        reference_meta=ref_meta,
        auxiliary_meta=aux_meta,
        home={"domain": "source", "class": f"machine{t}", "attribute": "a0"},
        split=split,
        group=f"set{g}",
    )


def _ground_truth(m, seq_len, blind, reps, u, transient, spread) -> dict:
    """``SelectionBenchmark.info`` of `make_selection_benchmark`: the generator's hidden parameters."""
    return {
        "generator": "auditad.synthetic.make_selection_benchmark",
        "latent_dim": m,
        "seq_len": seq_len,
        "blind_dims": blind.tolist(),
        "families": {name: dict(spec, sequence=is_seq) for name, (spec, W, is_seq) in reps.items()},
        "tasks": [
            {
                "name": f"machine{t}",
                "anomaly_direction": u[t].tolist(),
                "transient_fraction": float(transient[t]),
                "mean_spread": float(spread[t].mean()),
            }
            for t in range(u.shape[0])
        ],
    }


def digits_benchmark(
    *,
    embeddings=DIGITS_EMBEDDINGS,
    scorings=("knn", "ldn"),
    reference_fraction: float = 0.6,
    n_auxiliary: int | None = 270,
    random_state=0,
) -> SelectionBenchmark:
    r"""Model-selection benchmark on scikit-learn's digits (1797 8×8 images, 10 classes).

    Task c ("digit c"): the reference set is a random ``reference_fraction``
    of the images of digit c; the test set is the rest of digit c (normal)
    plus as many anomalies drawn from the held-out images of the other digits;
    the auxiliary pool (for Cross-Class) is ``n_auxiliary`` images drawn
    evenly from the reference parts of the other digits (None: all of them),
    disjoint from the test anomalies. Digits 0–4 are development
    tasks, 5–9 evaluation tasks (one group). Note that here the other classes
    *are* the anomaly distribution, so Cross-Class (and Diverse) probes are
    informative by construction — unlike DCASE, where anomalies are faulty
    machines of the same type.

    Embeddings (one scaler/PCA fitted without labels on all reference parts):
    ``pixels`` (raw 64-d), ``l2`` (pixels scaled to unit norm), ``pcaK``
    (K leading principal components, e.g. ``pca2``, ``pca8``, ``pca32``).
    Candidates: every embedding × ``scorings``, family = ``pixels``/``l2``/``pca``.

    \[
    n_{ref}(c) = \max(2, \operatorname{round}(f \cdot n_c)),\qquad
    n_{test}(c) = 2\,(n_c - n_{ref}(c))\ \text{(half anomalies)}
    \]

    Parameters
    ----------
    embeddings : sequence of str, default DIGITS_EMBEDDINGS
        ``pixels``, ``l2`` or ``pcaK``.
    scorings : sequence of str, default ("knn", "ldn")
    reference_fraction : float, default 0.6
        Share f of each digit's images in its reference set (0 < f < 1).
    n_auxiliary : int or None, default 270
        Size of the auxiliary pool (>= 9; None: all other digits' reference parts).
    random_state : None, int or Generator, default 0

    Returns
    -------
    SelectionBenchmark

    Raises
    ------
    auditad.errors.InvalidInputError
        An unknown embedding or scoring, a fraction outside (0, 1).

    See Also
    --------
    - [`make_selection_benchmark`][auditad.synthetic.make_selection_benchmark]
    - [`auditad.selection.run_selection`][auditad.selection.run_selection]

    References
    ----------
    1. K. Wilkinghoff and Z.-H. Tan, "Can We Predict Anomaly Detection
       Performance from Embedding-Space Geometry?", Sec. 5.

    Examples
    --------
    >>> b = digits_benchmark(embeddings=("pixels", "pca8"), scorings=("knn",))
    >>> b.n_tasks, [c.name for c in b.candidates]
    (10, ['pixels-knn', 'pca8-knn'])
    """
    from sklearn.datasets import load_digits
    from sklearn.decomposition import PCA

    frac = check_float(reference_fraction, name="reference_fraction", low=0.0, high=1.0, low_open=True, high_open=True)
    embeddings = tuple(embeddings)
    if not embeddings:
        raise InvalidInputError("embeddings must not be empty")
    for e in embeddings:
        if e not in ("pixels", "l2") and not (e.startswith("pca") and e[3:].isdigit() and 1 <= int(e[3:]) <= 64):
            raise InvalidInputError(f"unknown digits embedding {e!r}; use 'pixels', 'l2' or 'pcaK' with 1 <= K <= 64")
    for s in scorings:
        check_choice(s, SCORINGS, name="scoring")
    if n_auxiliary is not None:
        n_auxiliary = check_int(n_auxiliary, name="n_auxiliary", low=9)
    rng = check_random_state(random_state)
    X, y = load_digits(return_X_y=True)
    X = X.astype(np.float64)
    is_ref = np.zeros(y.size, bool)
    for c in range(10):
        idx = np.flatnonzero(y == c)
        is_ref[rng.choice(idx, size=max(2, int(round(frac * idx.size))), replace=False)] = True
    reps = {}
    for e in embeddings:
        if e == "pixels":
            reps[e] = X
        elif e == "l2":
            reps[e] = X / np.linalg.norm(X, axis=1, keepdims=True)
        else:
            k = int(e[3:])
            reps[e] = PCA(n_components=k, random_state=0).fit(X[is_ref]).transform(X)
    tasks = []
    for c in range(10):
        ref = np.flatnonzero((y == c) & is_ref)
        norm = np.flatnonzero((y == c) & ~is_ref)
        pool = np.flatnonzero((y != c) & ~is_ref)
        anom = np.sort(rng.choice(pool, size=min(norm.size, pool.size), replace=False))
        aux = np.flatnonzero((y != c) & is_ref)
        if n_auxiliary is not None and n_auxiliary < aux.size:
            per = -(-n_auxiliary // 9)
            aux = np.sort(
                np.concatenate(
                    [
                        rng.choice(np.flatnonzero((y == o) & is_ref), size=per, replace=False)
                        for o in range(10)
                        if o != c
                    ]
                )
            )
        test = np.r_[norm, anom]
        labels = np.r_[np.zeros(norm.size, np.int8), np.ones(anom.size, np.int8)]
        embs = {
            e: TaskEmbeddings(reference=reps[e][ref], test=reps[e][test], auxiliary=reps[e][aux]) for e in embeddings
        }
        tasks.append(
            SelectionTask(
                name=f"digit{c}",
                embeddings=embs,
                test_labels=labels,
                reference_meta={"class": np.full(ref.size, str(c))},
                auxiliary_meta={"class": y[aux].astype(str)},
                split="development" if c < 5 else "evaluation",
                group="digits",
            )
        )
    candidates = [
        Candidate(name=f"{e}-{s}", embedding=e, scoring=s, family="pca" if e.startswith("pca") else e)
        for e in embeddings
        for s in scorings
    ]
    info = {
        "source": "sklearn.datasets.load_digits",
        "reference_fraction": frac,
        "n_auxiliary": n_auxiliary,
        "tasks": "one digit normal, the other digits anomalous (balanced test set)",
    }
    return SelectionBenchmark(tasks=tasks, candidates=candidates, name="digits", info=info)
