"""The report names what it measured, on real ADBench embeddings: order-free results, ``diff`` by identity, labels
that travel with their rows, the anomaly-labelled first screen and a paper-ready appendix.

Five checks, each printed with its outcome (the data are ADBench's, S. Han et al., "ADBench: Anomaly Detection
Benchmark", NeurIPS 2022; nothing is downloaded: pass the folder ``adbench/datasets`` of a checkout of
github.com/Minqi824/ADBench, or a git mirror of it with ``--mirror``):

1. MVTec-AD normals (15 categories as 15 classes) with two representations, ResNet-18 and ViT
   (``CV_by_ResNet18/MVTec-AD_<cat>.npz``, ``CV_by_ViT/...``), audited with ``--embeddings resnet18=...
   --embeddings vit=...`` and in the other order: the verdicts, gates and top-level values are identical and
   ``auditad diff`` between the two audits exits 0 with no change.
2. The same audit with Isolation Forest only: ``auditad diff`` names the change of the detector set first.
3. 20news_3 with BERT and RoBERTa embeddings (``NLP_by_BERT/20news_3.npz``, ``NLP_by_RoBERTa/...``) and the
   labels of the BERT file: the two files store their rows in different orders, and the audit stops (exit 2)
   naming the RoBERTa file.
4. cardio (``Classical/6_cardio.npz``) with ``--anomaly-column y``: the first screen in the one-task wording,
   with the anomaly share of the whole data and of the test set scored (``--screenshot`` renders it with
   headless Chromium).
5. ``auditad appendix`` of the MVTec audit, compiled with pdflatex when it is installed (``--screenshot``
   renders its first pages with pdftoppm).

    python benchmarks/bench_report_identity.py --mirror /path/to/ADBench.git [--out DIR] [--screenshot]
    python benchmarks/bench_report_identity.py --datasets /path/to/ADBench/adbench/datasets
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
from bench_mvtec_claims import CATEGORIES  # the 15 MVTec-AD categories (this folder is on sys.path)

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


class Source:
    """ADBench files from a folder ``adbench/datasets`` or from a git mirror of the repository."""

    def __init__(self, datasets: Path | None, mirror: Path | None, work: Path):
        self.datasets, self.mirror, self.work = datasets, mirror, work

    def path(self, rel: str) -> Path:
        if self.datasets is not None:
            return self.datasets / rel
        out = self.work / "adbench" / rel
        if not out.exists():
            out.parent.mkdir(parents=True, exist_ok=True)
            blob = subprocess.run(
                ["git", "-C", str(self.mirror), "show", f"HEAD:adbench/datasets/{rel}"], capture_output=True, check=True
            ).stdout
            out.write_bytes(blob)
        return out


def auditad(*args, check: bool = False) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "auditad", *map(str, args)], capture_output=True, text=True)
    if check and proc.returncode not in (0, 1):
        sys.exit(f"auditad {' '.join(map(str, args))} exited {proc.returncode}:\n{proc.stderr}")
    return proc


def build_mvtec(src: Source, work: Path) -> dict:
    """The normals of each category as one class: one .npz per representation (X) and a labels file (y)."""
    paths, labels = {}, None
    for rep, folder in (("resnet18", "CV_by_ResNet18"), ("vit", "CV_by_ViT")):
        Xs, ys = [], []
        for cat in CATEGORIES:
            d = np.load(src.path(f"{folder}/MVTec-AD_{cat}.npz"))
            keep = d["y"] == 0
            Xs.append(d["X"][keep].astype(np.float32))
            ys.append(np.full(int(keep.sum()), cat))
        y = np.concatenate(ys)
        if labels is not None and not np.array_equal(labels, y):
            sys.exit("the ResNet-18 and ViT files hold different numbers of normals per category")
        labels = y
        paths[rep] = work / f"mvtec_{rep}.npz"
        np.savez(paths[rep], X=np.concatenate(Xs))
    np.savez(work / "mvtec_labels.npz", y=labels)
    paths["labels"] = work / "mvtec_labels.npz"
    return paths


def top_level(summary: dict) -> dict:
    """What a reader or a gate sees first: the verdict, the gates and the top-level statistics."""
    prot = summary.get("protocol") or {}
    return {
        "verdict": summary["verdict"],
        "gates": sorted((g["metric"], g["status"], g.get("value")) for g in summary["gates"]),
        "leakage": {k: summary["leakage"].get(k) for k in ("L_k", "representation")},
        "protocol.mean": prot.get("mean"),
        "protocol.worst": prot.get("worst"),
        "protocol.representation": prot.get("representation"),
    }


def check_order(paths: dict, work: Path, seed: int) -> Path:
    outs = {}
    for order in (("resnet18", "vit"), ("vit", "resnet18")):
        out = work / f"audit_{'_'.join(order)}"
        t0 = time.perf_counter()
        emb = [a for rep in order for a in ("--embeddings", f"{rep}={paths[rep]}")]
        proc = auditad(
            "audit", *emb, "--labels", paths["labels"], "--label-column", "y", "--name", "mvtec", "--out", out,
            "--seed", seed, "--quiet", check=True,
        )  # fmt: skip
        print(f"  audit {' then '.join(order)}: exit {proc.returncode} in {time.perf_counter() - t0:.0f} s")
        print("   ", proc.stdout.splitlines()[1] if len(proc.stdout.splitlines()) > 1 else proc.stdout.strip())
        outs[order] = json.loads((out / "mvtec" / "summary.json").read_text(encoding="utf-8"))
    a, b = outs.values()
    same = top_level(a) == top_level(b)
    print(f"  verdict, gates and top-level values identical in both orders: {same}")
    print(f"  verdict {a['verdict']}; gates: " + "; ".join(f"{g['metric']} {g['status']}" for g in a["gates"]))
    print(
        f"  headline leakage from {a['leakage'].get('representation')!r} (largest L_k {a['leakage']['L_k']:.4f}), "
        f"protocol from {a['protocol'].get('representation')!r}"
    )
    diff = auditad("diff", work / "audit_resnet18_vit" / "mvtec", work / "audit_vit_resnet18" / "mvtec")
    print(f"  auditad diff (one order vs the other): exit {diff.returncode}; " + diff.stdout.strip().splitlines()[1])
    if not same or diff.returncode != 0:
        print(diff.stdout)
    return work / "audit_resnet18_vit"


def check_detector_diff(paths: dict, work: Path, seed: int) -> None:
    out = work / "audit_iforest"
    auditad(
        "audit", "--embeddings", f"resnet18={paths['resnet18']}", "--embeddings", f"vit={paths['vit']}",
        "--labels", paths["labels"], "--label-column", "y", "--name", "mvtec", "--detector", "iforest",
        "--out", out, "--seed", seed, "--quiet", check=True,
    )  # fmt: skip
    diff = auditad("diff", work / "audit_resnet18_vit" / "mvtec", out / "mvtec")
    lines = [ln for ln in diff.stdout.splitlines() if ln.strip()]
    print(f"  auditad diff (3 detectors vs iforest only): exit {diff.returncode}; first entries:")
    for ln in lines[:4]:
        print("    " + ln)


def check_labels_travel(src: Source) -> None:
    bert, roberta = src.path("NLP_by_BERT/20news_3.npz"), src.path("NLP_by_RoBERTa/20news_3.npz")
    yb, yr = np.load(bert)["y"], np.load(roberta)["y"]
    print(f"  the two files' own labels differ on {int((yb != yr).sum())} of {len(yb)} rows")
    with tempfile.TemporaryDirectory() as tmp:
        proc = auditad(
            "audit", "--embeddings", f"bert={bert}", "--embeddings", f"roberta={roberta}", "--embeddings-key", "X",
            "--labels", bert, "--label-column", "y", "--out", Path(tmp) / "out", "--quiet",
        )  # fmt: skip
        written = (Path(tmp) / "out").exists()
    print(f"  exit {proc.returncode}; nothing written: {not written}; message: {proc.stderr.strip()}")
    print(f"  names the RoBERTa file: {str(roberta) in proc.stderr}")


def chromium_shot(page: Path, png: Path, height: int = 1150) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("  (no Chromium: no screenshot)")
        return
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--window-size=1280,{height}",
             f"--screenshot={png}", page.resolve().as_uri()],
            capture_output=True, timeout=120,
        )  # fmt: skip
    print(f"  screenshot: {png}")


def check_anomaly_labelled(src: Source, work: Path, screenshot: bool) -> None:
    cardio = src.path("Classical/6_cardio.npz")
    out = work / "audit_cardio"
    proc = auditad(
        "audit", "--embeddings", cardio, "--embeddings-key", "X", "--labels", cardio, "--label-column", "y",
        "--anomaly-column", "y", "--name", "cardio", "--out", out, "--quiet", check=True,
    )  # fmt: skip
    print("  " + "\n  ".join(proc.stdout.splitlines()[:2]))
    s = json.loads((out / "cardio" / "summary.json").read_text(encoding="utf-8"))
    prot = s["protocol"]
    (rep,) = prot["representations"].values()
    rows = [r for r in rep["per_class"] if r["detector"] != "ensemble"]
    n_pos, n_neg = rows[0]["n_pos"], rows[0]["n_neg"]
    print(
        f"  setting {prot['setting']}; anomaly share of the whole data {s['dataset']['anomaly_ratio']:.1%}, of the "
        f"test set scored {n_pos / (n_pos + n_neg):.1%} ({n_pos} anomalies, {n_neg} normals)"
    )
    for r in rows:
        print(
            f"    {r['detector']}: AUROC {r['auroc']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}], {r['significance']}"
        )
    print("  gates: " + "; ".join(f"{g['metric']} {g['status']}" for g in s["gates"]))
    if screenshot:
        chromium_shot(out / "cardio" / "report.html", work / "cardio_first_screen.png")


def check_appendix(audit: Path, work: Path, screenshot: bool) -> None:
    out = work / "appendix"
    proc = auditad("appendix", audit, "--out", out)
    raw = (out / "appendix.tex").read_text(encoding="utf-8") if proc.returncode == 0 else ""
    print(f"  auditad appendix: exit {proc.returncode}; characters written as [U+hhhh]: {raw.count('[U+')}")
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        print("  (no pdflatex: not compiled)")
        return
    doc = work / "paper.tex"
    doc.write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n\\usepackage{longtable}\n"
        "\\begin{document}\n\\input{appendix/appendix.tex}\n\\end{document}\n",
        encoding="utf-8",
    )
    for _ in range(2):
        tex = subprocess.run(
            [pdflatex, "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=work, capture_output=True, text=True
        )
    pages = subprocess.run(["pdfinfo", "paper.pdf"], cwd=work, capture_output=True, text=True).stdout
    small = [ln for ln in (work / "paper.log").read_text(errors="replace").splitlines() if "Overfull" in ln]
    print(
        f"  pdflatex: exit {tex.returncode}; "
        + " ".join(ln.split(":", 1)[1].strip() + " pages" for ln in pages.splitlines() if ln.startswith("Pages"))
        + f"; {len(small)} overfull boxes"
    )
    if screenshot and shutil.which("pdftoppm"):
        subprocess.run(["pdftoppm", "-png", "-r", "70", "-f", "1", "-l", "3", "paper.pdf", "appendix_page"], cwd=work)
        print(f"  pages rendered: {sorted(p.name for p in work.glob('appendix_page*.png'))} in {work}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--datasets", type=Path, help="folder adbench/datasets of an ADBench checkout")
    where.add_argument("--mirror", type=Path, help="git directory of an ADBench clone (read with git show)")
    parser.add_argument("--out", type=Path, default=None, help="working folder (default: a temporary one)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--screenshot", action="store_true")
    parser.add_argument("--steps", default="1,2,3,4,5", help="checks to run (5 needs the audit of 1 in --out)")
    args = parser.parse_args(argv)
    steps = {int(s) for s in args.steps.split(",")}
    work = args.out or Path(tempfile.mkdtemp(prefix="bench-identity-"))
    work.mkdir(parents=True, exist_ok=True)
    src = Source(args.datasets, args.mirror, work)
    t0 = time.perf_counter()
    audit = work / "audit_resnet18_vit"
    if steps & {1, 2}:
        paths = build_mvtec(src, work)
    if 1 in steps:
        print("1. MVTec-AD normals, two representations, both orders")
        audit = check_order(paths, work, args.seed)
    if 2 in steps:
        print("2. three detectors vs Isolation Forest only")
        check_detector_diff(paths, work, args.seed)
    if 3 in steps:
        print("3. 20news_3: BERT rows, RoBERTa rows, BERT labels")
        check_labels_travel(src)
    if 4 in steps:
        print("4. cardio, anomaly-labelled")
        check_anomaly_labelled(src, work, args.screenshot)
    if 5 in steps:
        print("5. appendix of the MVTec audit")
        check_appendix(audit, work, args.screenshot)
    print(f"done in {time.perf_counter() - t0:.0f} s; outputs in {work}")


if __name__ == "__main__":
    main()
