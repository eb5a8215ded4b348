"""Coverage of the 95 % AUROC interval of `auditad.metrics.auroc_ci` at small counts, and its test's size.

Binormal scores with a known AUROC θ: normals ~ N(0, 1), anomalies ~ N(δ, σ²) with
δ = sqrt(1 + σ²) Φ⁻¹(θ), so that P(anomaly > normal) = θ. For every cell (n anomalies, n normals, θ, σ)
the script draws the replicates at once (one seeded generator), runs `auroc_ci` on each and prints

* the share of replicates whose interval covers θ (``coverage``; nominal 0.95, the target is ≥ 0.93),
* the mean width of the interval,
* the coverage of DeLong's plain Wald interval ``auroc ± z se`` on the same replicates (the interval of
  auditad before the hull; ``wald``), for comparison,
* the share of p-values below 0.05 under the null (θ = ½: the size of the test; nominal 0.05) where asked.

σ = 1 is the standard binormal model; σ = 3 spreads the anomalies' scores three times as wide as the normals'
(where a model-based variance alone under-covers). The binomial standard error of a coverage near 0.95 over
2 000 replicates is 0.005.

Run (one core, about a minute):

    python benchmarks/bench_coverage.py                 # 2 000 replicates per cell
    python benchmarks/bench_coverage.py --replicates 5000 --seed 1

References: R. G. Newcombe, "Confidence intervals for an effect size measure based on the Mann–Whitney
statistic. Part 2: Asymptotic methods and evaluation", Statistics in Medicine 25(4), 559–573 (2006) (the
binormal simulation design); E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson, Biometrics 44 (1988).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy.stats import norm

from auditad.metrics import auroc_ci

#: (anomalies, normals, AUROC, spread of the anomalies' scores)
CELLS = [
    (5, 50, 0.95, 1.0),
    (5, 50, 0.80, 1.0),
    (20, 200, 0.80, 1.0),
    (50, 50, 0.90, 1.0),
    (3, 3, 0.90, 1.0),
    (10, 10, 0.99, 1.0),
    (200, 2000, 0.80, 1.0),
    (5, 50, 0.95, 3.0),
    (20, 200, 0.80, 3.0),
    (200, 2000, 0.80, 3.0),
    (5, 50, 0.50, 1.0),
    (20, 200, 0.50, 1.0),
]


def run_cell(m: int, n: int, theta: float, sigma: float, replicates: int, rng: np.random.Generator) -> dict:
    """Coverage, mean width, Wald coverage and rejection rate at 5 % over ``replicates`` draws."""
    delta = math.sqrt(1.0 + sigma**2) * norm.ppf(theta)
    pos = rng.normal(delta, sigma, (replicates, m))
    neg = rng.normal(0.0, 1.0, (replicates, n))
    y = np.r_[np.ones(m), np.zeros(n)]
    z = norm.ppf(0.975)
    lo, hi, wald, p = (np.empty(replicates) for _ in range(4))
    for i in range(replicates):
        r = auroc_ci(y, np.r_[pos[i], neg[i]])
        lo[i], hi[i], p[i] = r.ci_low, r.ci_high, r.p_value
        wald[i] = abs(r.auroc - theta) <= z * r.se
    return {
        "coverage": float(np.mean((lo <= theta) & (theta <= hi))),
        "width": float(np.mean(hi - lo)),
        "wald": float(np.mean(wald)),
        "reject": float(np.mean(p < 0.05)),
        "min_width": float(np.min(hi - lo)),
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicates", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    print(f"replicates per cell: {args.replicates}, seed {args.seed}")
    print("| anomalies | normals | AUROC | anomaly sd | coverage | mean width | Wald coverage | p < 0.05 |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    t0 = time.perf_counter()
    for m, n, theta, sigma in CELLS:
        c = run_cell(m, n, theta, sigma, args.replicates, rng)
        assert c["min_width"] > 0.0, "an interval collapsed"
        print(
            f"| {m} | {n} | {theta:.2f} | {sigma:g} | {c['coverage']:.3f} | {c['width']:.3f} | "
            f"{c['wald']:.3f} | {c['reject']:.3f} |"
        )
    print(f"\n{time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
