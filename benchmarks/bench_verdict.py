"""The verdict on real class-split benchmarks: the findings block of a default audit, and its time.

The normals of the three ADBench ResNet-18 files of one dataset (``../shared/data/adbench-resnet18``:
``CIFAR10_{0,4,6}.npz``, ``SVHN_{0,8,9}.npz``) form a 3-class benchmark. Each is audited with the default
settings (``auditad audit``); the script prints the verdict, the per-representation row and the findings as
text (what the first screen of the report shows) and the wall time. ``--screenshot`` also renders the top of
the report with headless Chromium when it is installed.

    python benchmarks/bench_verdict.py [--data ../shared/data/adbench-resnet18] [--screenshot]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

DATASETS = {"cifar10": ("CIFAR10", (0, 4, 6)), "svhn": ("SVHN", (0, 8, 9))}


def build(data: Path, prefix: str, classes, out: Path) -> Path:
    """The normals of each file as one class: an .npz with X (n x 512) and y (class names)."""
    Xs, ys = [], []
    for c in classes:
        d = np.load(data / f"{prefix}_{c}.npz")
        keep = d["y"] == 0
        Xs.append(d["X"][keep])
        ys.append(np.full(int(keep.sum()), f"{prefix.lower()}_{c}"))
    path = out / f"{prefix.lower()}3.npz"
    np.savez(path, X=np.concatenate(Xs), y=np.concatenate(ys))
    return path


def main(argv=None) -> None:
    from auditad.report.findings import findings, representation_rows

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data" / "adbench-resnet18"
    )
    parser.add_argument("--screenshot", action="store_true")
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        sys.exit(f"no data folder {args.data} (the shared ADBench ResNet-18 embeddings)")
    work = Path(tempfile.mkdtemp(prefix="bench-verdict-"))
    for name, (prefix, classes) in DATASETS.items():
        path = build(args.data, prefix, classes, work)
        out = work / f"audit-{name}"
        t0 = time.perf_counter()
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "auditad",
                "audit",
                "--embeddings",
                f"resnet18={path}",
                "--embeddings-key",
                "X",
                "--labels",
                str(path),
                "--label-column",
                "y",
                "--out",
                str(out),
                "--quiet",
            ],
            capture_output=True,
            text=True,
        )
        elapsed = time.perf_counter() - t0
        report = next(out.glob("*/summary.json"))
        s = json.loads(report.read_text())
        print("=" * 100)
        print(
            f"{name}: {s['dataset']['n']} samples, {s['dataset']['n_classes']} classes; exit {proc.returncode}; "
            f"{elapsed:.1f} s; verdict {s['verdict'].upper()}"
        )
        for row in representation_rows(s):
            print("  " + ", ".join(f"{k} {v}" for k, v in row.items()))
        for f in findings(s):
            print("  " + f.text())
        if args.screenshot and shutil.which("chromium"):
            png = work / f"{name}.png"
            subprocess.run(
                [
                    "chromium",
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-background-networking",
                    f"--user-data-dir={work / 'chromium'}",
                    "--window-size=1280,1300",
                    f"--screenshot={png}",
                    report.with_name("report.html").as_uri(),
                ],
                capture_output=True,
                timeout=120,
            )
            print(f"  screenshot: {png}")


if __name__ == "__main__":
    main()
