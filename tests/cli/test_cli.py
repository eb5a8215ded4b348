"""The command-line interface: leakage command, exit codes, error messages."""

import json

import numpy as np
import pytest
from sklearn.datasets import load_digits

from auditad.cli import main
from auditad.leakage import leakage


@pytest.fixture
def digits_files(tmp_path):
    X, y = load_digits(return_X_y=True)
    np.save(tmp_path / "X.npy", X[:400])
    np.save(tmp_path / "y.npy", y[:400])
    return tmp_path, X[:400], y[:400]


def test_leakage_command_prints_table_and_writes_json(digits_files, capsys):
    d, X, y = digits_files
    code = main(
        [
            "leakage",
            "--embeddings",
            str(d / "X.npy"),
            "--labels",
            str(d / "y.npy"),
            "--k",
            "10",
            "--k",
            "3",
            "--backend",
            "exact",
            "--json",
            str(d / "out.json"),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "Neighbourhood class leakage" in out and "L_k" in out
    payload = json.loads((d / "out.json").read_text())
    assert payload["L_k"] == pytest.approx(leakage(X, y, k=10, backend="exact").L_k, abs=1e-15)
    assert set(payload["by_k"]) == {"10", "3"}
    assert not list(d.glob(".out.json.*"))  # no temporary left behind


@pytest.mark.parametrize(
    "args, match",
    [
        (["--embeddings", "{d}/missing.npy", "--labels", "{d}/y.npy"], "does not exist"),
        (["--embeddings", "{d}/X.npy", "--labels", "{d}/y.npy", "--k", "400"], "k must be smaller"),
        (["--embeddings", "{d}/X.npy", "--labels", "{d}/y.npy", "--label-column", "x", "--json", "{d}"], "directory"),
    ],
)
def test_user_mistakes_exit_2_with_one_line(digits_files, capsys, args, match):
    d, _, _ = digits_files
    code = main(["leakage"] + [a.format(d=d) for a in args] + ["--backend", "exact"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("auditad: error:") and match in err and "Traceback" not in err


def test_usage_errors_exit_2(capsys):
    assert main(["leakage", "--k", "3"]) == 2  # argparse's SystemExit becomes a return value
    assert "required: --embeddings" in capsys.readouterr().err
    assert main([]) == 2
    assert main(["--version"]) == 0


# --------------------------------------------------------------------------- exit-code contract
def _boom(exc):
    def run(args):
        raise exc

    return run


@pytest.mark.parametrize(
    "exc, code, words",
    [
        (
            TypeError("unsupported operand"),
            3,
            ["internal error: TypeError: unsupported operand", "(at auditad/cli/__init__.py:", "report it", "--debug"],
        ),
        (MemoryError(), 3, ["internal error: out of memory (MemoryError"]),
        (RecursionError("maximum recursion depth exceeded"), 3, ["internal error: RecursionError"]),
        (KeyboardInterrupt(), 130, ["auditad: interrupted"]),
        (OSError(28, "No space left on device", "/data/out/r.json"), 2, ["'/data/out/r.json': No space left"]),
        (OSError(5, "Input/output error"), 3, ["internal error: OSError"]),
        (PermissionError(13, "Permission denied", "/etc/x"), 2, ["'/etc/x': Permission denied"]),
        (ValueError("raw numpy complaint"), 3, ["internal error: ValueError: raw numpy complaint"]),
    ],
)
def test_every_exception_maps_to_one_exit_code_and_one_line(monkeypatch, capsys, exc, code, words):
    from auditad import cli

    monkeypatch.setitem(cli.COMMANDS, "nulls", (cli.COMMANDS["nulls"][0], _boom(exc)))
    monkeypatch.delenv("AUDITAD_DEBUG", raising=False)
    assert main(["nulls", "--n-pos", "3", "--n-neg", "5"]) == code
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    for w in words:
        assert w in err


def test_sigterm_exception_is_143_and_debug_shows_the_traceback(monkeypatch, capsys):
    from auditad import cli
    from auditad.cli.terminal import Terminated

    monkeypatch.setitem(cli.COMMANDS, "nulls", (cli.COMMANDS["nulls"][0], _boom(Terminated())))
    assert main(["nulls"]) == 143 and "terminated" in capsys.readouterr().err
    monkeypatch.setitem(cli.COMMANDS, "nulls", (cli.COMMANDS["nulls"][0], _boom(TypeError("x"))))
    assert main(["--debug", "nulls"]) == 3
    err = capsys.readouterr().err
    assert "Traceback" in err and err.strip().splitlines()[-1].startswith("auditad: internal error: TypeError")
    monkeypatch.setenv("AUDITAD_DEBUG", "1")
    assert main(["nulls"]) == 3 and "Traceback" in capsys.readouterr().err


def test_terminal_control_characters_in_labels_are_escaped(tmp_path, capsys):
    X, y = load_digits(return_X_y=True)
    names = np.array(["\x1b[31mred\x1b[0m", "bell\x07", "rtl\u202eevil", "ok"])
    np.save(tmp_path / "X.npy", X[:200])
    np.save(tmp_path / "y.npy", names[y[:200] % 4])
    assert (
        main(
            [
                "leakage",
                "--embeddings",
                str(tmp_path / "X.npy"),
                "--labels",
                str(tmp_path / "y.npy"),
                "--k",
                "3",
                "--backend",
                "exact",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "\\x1b[31mred\\x1b[0m" in out and "bell\\x07" in out and "rtl\\u202eevil" in out


def test_json_through_a_symlink_writes_the_target_and_keeps_the_link(digits_files, capsys):
    d, _, _ = digits_files
    (d / "results").mkdir()
    (d / "results" / "r.json").write_text("old")
    (d / "link.json").symlink_to(d / "results" / "r.json")
    (d / "dangling.json").symlink_to(d / "results" / "new.json")
    for link in ("link.json", "dangling.json"):
        assert (
            main(
                [
                    "leakage",
                    "--embeddings",
                    str(d / "X.npy"),
                    "--labels",
                    str(d / "y.npy"),
                    "--k",
                    "3",
                    "--backend",
                    "exact",
                    "--json",
                    str(d / link),
                ]
            )
            == 0
        )
        assert (d / link).is_symlink()
    assert json.loads((d / "results" / "r.json").read_text())["k"] == 3
    assert json.loads((d / "results" / "new.json").read_text())["k"] == 3
    assert sorted(p.name for p in (d / "results").iterdir()) == ["new.json", "r.json"]
    (d / "dev.json").symlink_to("/dev/null")
    assert (
        main(
            [
                "leakage",
                "--embeddings",
                str(d / "X.npy"),
                "--labels",
                str(d / "y.npy"),
                "--k",
                "3",
                "--json",
                str(d / "dev.json"),
            ]
        )
        == 2
    )
    assert "special file" in capsys.readouterr().err and (d / "dev.json").is_symlink()


def test_missing_numbers_print_as_a_dash(tmp_path, capsys):
    path = tmp_path / "summary.json"
    path.write_text(
        json.dumps(
            {"schema_version": "1.0", "benchmark": "b", "protocol": {"mean": {"rho_dir": None, "mean_auc": 0.75}}}
        )
    )
    code = main(["gate", str(path), "--gate", "protocol.mean.rho_dir <= 0.2", "--gate", "protocol.mean.mean_auc > 0.5"])
    out = capsys.readouterr().out
    assert code == 1 and "nan" not in out.lower().replace("mean", "")
    rows = [line.split() for line in out.splitlines() if "protocol.mean" in line and "FAIL" in line]
    assert rows and rows[0][4] == "\u2013"


def test_protocol_with_k_too_large_is_bad_input_without_a_warning_line(digits_files, capsys):
    d, _, _ = digits_files
    code = main(
        [
            "protocol",
            "--embeddings",
            str(d / "X.npy"),
            "--labels",
            str(d / "y.npy"),
            "--k",
            "500",
            "--detector",
            "knn",
            "--leakage-k",
            "0",
            "--quiet",
        ]
    )
    captured = capsys.readouterr()
    assert code == 2 and "nan" not in captured.out
    last = captured.err.strip().splitlines()[-1]
    assert last.startswith("auditad: error:") and "could not be evaluated" in last
    assert "(--k 500)" in last and "k=500" not in last  # the library's k=500, spoken as the flag
    assert "Warning:" not in captured.err and "cli.py" not in captured.err


# --------------------------------------------------------------------------- library errors in the CLI's words
@pytest.mark.parametrize(
    "command, message, expected",
    [
        ("appendix", "out_dir='/a/b' would replace the audit folder '/a/b'", "--out '/a/b' would replace"),
        ("audit", "out='/x' is a non-empty folder", "--out '/x' is a non-empty folder"),
        ("audit", "junit='/x/j.xml': its folder does not exist", "--junit '/x/j.xml': its folder"),
        ("audit", "fail_on='sometimes' is not one of", "--fail-on 'sometimes' is not one of"),
        ("audit", "embeddings['pixels']='p.npy' has 3 rows", "--embeddings pixels='p.npy' has 3 rows"),
        ("audit", "k must be >= 1, got 0", "--k must be >= 1, got 0"),  # a setting flag (dest setting_k)
        ("audit", "manifest='m.toml' lists no task", "--manifest 'm.toml' lists no task"),
        ("landscape", "ratios: unknown preset 'Atlantis'", "--ratio: unknown preset 'Atlantis'"),
        (
            "nulls",
            "both n_pos and n_neg are needed, got n_pos=5, n_neg=None",
            "both --n-pos and --n-neg are needed, got --n-pos 5, --n-neg None",
        ),
        ("protocol", "needs at least 500 training normals (k=500)", "(--k 500)"),
        ("protocol", "train_fraction must be < 1.0, got 1.5", "--train-fraction must be < 1.0"),
        ("diff", "base='a.json' and new='b.json' differ", "BASE 'a.json' and NEW 'b.json' differ"),
        # left alone: dotted keys, names inside paths and quotes, comparisons, names the command does not have
        (
            "gate",
            "leakage.L_k <= 0.5 in '/tmp/k=3/summary.json' (k==3)",
            "leakage.L_k <= 0.5 in '/tmp/k=3/summary.json' (k==3)",
        ),
        ("leakage", "resolution must be >= 2", "resolution must be >= 2"),
    ],
)
def test_library_parameter_names_become_the_commands_flags(command, message, expected):
    import argparse

    from auditad.cli.terminal import flag_names, speak_cli
    from auditad.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    assert expected in speak_cli(message, flag_names(sub))


def test_flag_names_come_from_the_parser_actions():
    import argparse

    from auditad.cli.terminal import flag_names
    from auditad.cli import build_parser

    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    for name, sub in subs.items():
        flags = flag_names(sub)
        for action in sub._actions:
            if action.option_strings and action.dest != "help":
                assert flags[action.dest] in action.option_strings, (name, action.dest)
    assert flag_names(subs["appendix"])["out_dir"] == "--out"
    assert (
        flag_names(subs["audit"])["leakage_k"] == "--leakage-k"
        and flag_names(subs["audit"])["detectors"] == "--detector"
    )


def test_gate_flags_are_generated_from_one_declaration():
    import argparse

    from auditad.cli import build_parser
    from auditad.gates.options import GATE_OPTIONS

    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    # written out by hand: the commands with gates and their gate flags
    expected = {
        "audit": {"--gate", "--fail-on", "--no-default-gates", "--junit", "--markdown"},
        "demo": {"--gate", "--fail-on", "--junit", "--markdown"},
        **{c: {"--gate", "--fail-on", "--junit", "--markdown"} for c in ("gate", "results", "diff")},
    }
    declared = {o.flag: o for o in GATE_OPTIONS}
    for command, flags in expected.items():
        actions = {a.option_strings[0]: a for a in subs[command]._actions if a.option_strings}
        assert flags <= set(actions) and not (set(declared) - flags) & set(actions), command
        for flag in flags - {"--no-default-gates"}:
            assert actions[flag].help == declared[flag].help_for(command) and actions[flag].dest == declared[flag].name
        assert actions["--fail-on"].choices == ["fail", "warn"] and actions["--fail-on"].default == "fail"
    # the configuration keys (read by auditad.audit.config; tests/audit/test_config.py reads configs with them)
    assert declared["--gate"].config == "gates" and declared["--no-default-gates"].config == "settings.default_gates"


# --------------------------------------------------------------------------- start-up: lazy imports, Ctrl-C at any time
ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
HEAVY = ("numpy", "scipy", "pandas", "sklearn", "matplotlib", "jinja2", "pynndescent", "numba")


def _env():
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("AUDITAD_DEBUG", None)
    return env


def test_version_and_help_import_no_numerical_library():
    import subprocess
    import sys

    for args in (["--version"], ["--help"], ["leakage", "--help"]):
        r = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "auditad", *args],
            env=_env(),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0, r.stderr[-2000:]
        imported = {line.split("|")[-1].strip() for line in r.stderr.splitlines() if line.startswith("import time:")}
        assert "auditad.cli" in imported
        heavy = sorted(m for m in imported if m.split(".")[0] in HEAVY)
        assert not heavy, (args, heavy[:10])
    assert (
        "auditad 0.3.0"
        in subprocess.run(
            [sys.executable, "-m", "auditad", "--version"],
            env=_env(),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
    )


def test_public_names_load_on_first_access_and_leakage_stays_the_function():
    import subprocess
    import sys

    code = (
        "import sys, auditad; assert 'numpy' not in sys.modules, 'eager'; "
        "import auditad.leakage as m; from auditad import leakage, LeakageResult; "
        "assert callable(leakage) and leakage is auditad.leakage and leakage.__module__ == 'auditad.leakage'; "
        "assert sys.modules['auditad.leakage'].leakage is leakage; "
        "assert all(hasattr(auditad, n) for n in auditad.__all__) and set(auditad.__all__) <= set(dir(auditad)); "
        "import auditad.metrics; assert auditad.metrics.auroc is auditad.auroc; print('ok')"
    )
    r = subprocess.run([sys.executable, "-c", code], env=_env(), cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.stdout.strip() == "ok", r.stderr[-2000:]


def _wait_until_catching(proc, signum, timeout: float = 60.0) -> bool:
    """Wait until process ``proc`` catches ``signum`` (its ``SigCgt`` mask in ``/proc``); False without ``/proc``."""
    import time
    from pathlib import Path

    status = Path(f"/proc/{proc.pid}/status")
    if not status.exists():
        return False
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout and proc.poll() is None:
        try:
            caught = next(line for line in status.read_text().splitlines() if line.startswith("SigCgt:"))
        except (OSError, StopIteration):
            return False
        if int(caught.split()[1], 16) >> (signum - 1) & 1:
            return True
        time.sleep(0.005)
    return False


def test_ctrl_c_during_the_imports_gives_one_line_and_exit_130(tmp_path):
    """SIGINT as soon as ``main`` has installed its handlers lands in the heavy imports of ``leakage``
    (NumPy, SciPy, scikit-learn): exit 130, one line, no traceback, nothing on stdout.  The moment is
    found in ``/proc`` (the process catches SIGTERM from then on); without ``/proc``, 0.1 s after the
    start, and an interrupt that lands in the interpreter's own start-up (``site``, before any auditad
    code runs; the stderr then never mentions auditad) is retried."""
    import signal
    import subprocess
    import sys
    import time

    np.save(tmp_path / "X.npy", np.random.default_rng(0).normal(size=(300, 4)))
    np.save(tmp_path / "y.npy", np.repeat([0, 1, 2], 100))
    cmd = [
        sys.executable,
        "-m",
        "auditad",
        "leakage",
        "--embeddings",
        str(tmp_path / "X.npy"),
        "--labels",
        str(tmp_path / "y.npy"),
        "--quiet",
    ]
    outcomes = []
    for attempt in range(8):
        proc = subprocess.Popen(
            cmd,
            env=_env(),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            # (a test run started in the background of a script ignores SIGINT; the child would inherit that)
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        if not _wait_until_catching(proc, signal.SIGTERM):
            time.sleep(0.1 * 1.6**attempt)  # 0.1 s, then up to 2.7 s (a busy machine starts the interpreter slower)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
        outcomes.append((proc.returncode, err[-600:]))
        if "auditad" not in err and proc.returncode != 130:
            continue  # interrupted inside the interpreter's start-up, before auditad existed
        assert proc.returncode == 130, outcomes
        assert err == "auditad: interrupted; nothing half-written was left\n", outcomes
        assert out == ""
        break
    else:
        pytest.fail(f"never interrupted auditad itself: {outcomes}")


def test_an_interrupt_wrapped_by_a_library_is_still_an_interrupt():
    import signal

    from auditad.cli import terminal as _terminal

    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as ki:
            raise ImportError("IMPORTANT: PLEASE READ THIS FOR ADVICE") from ki
    except ImportError as exc:
        assert _terminal.exit_status(exc)[0] == 130
    plain = ImportError("numpy._core.multiarray failed to import")  # a C module's failure, no chain
    assert _terminal.exit_status(plain)[0] == 3
    _terminal.RECEIVED[:] = [signal.SIGINT]
    try:
        assert _terminal.exit_status(plain) == (130, "auditad: interrupted; nothing half-written was left")
        _terminal.RECEIVED[:] = [signal.SIGTERM]
        assert _terminal.exit_status(plain)[0] == 143
    finally:
        _terminal.RECEIVED.clear()


# --------------------------------------------------------------------------- landscape: the CLI only parses and prints
def test_landscape_command_writes_the_library_tables(tmp_path, capsys):
    import pandas as pd

    from auditad.landscapes import landscape, landscape_difference, minimal_tpr

    out = tmp_path / "land"
    code = main(
        [
            "landscape",
            "--ratio",
            "0.0019",
            "--ratio",
            "MVTec",
            "--metric",
            "auroc",
            "--metric",
            "f1",
            "--resolution",
            "11",
            "--reference",
            "0.3",
            "--out",
            str(out),
            "--no-figures",
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "at 0.19%, MVTec (11 x 11 grid); differences against ratio 0.3" in printed  # 0.0019 is not "UCR"
    land = landscape([0.0019, "MVTec"], metrics=("auroc", "f1"), resolution=11)
    pd.testing.assert_frame_equal(
        pd.read_csv(out / "landscape.csv"), land.to_frame(), check_dtype=False, check_exact=False, rtol=1e-12
    )
    diff = landscape_difference(land, reference=0.3).to_frame()
    assert len(pd.read_csv(out / "differences.csv")) == len(diff)
    assert len(pd.read_csv(out / "minimal_tpr.csv")) == len(minimal_tpr(land).to_frame())
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["landscape.csv", "differences.csv", "regions.csv", "minimal_tpr.csv", "coverage.csv", "correlations.csv"]
    )


def test_landscape_figures_are_named_by_the_ratio_label(tmp_path, capsys):
    code = main(
        [
            "landscape",
            "--ratio",
            "0.0019",
            "--ratio",
            "VisA (L)",
            "--metric",
            "auroc",
            "--resolution",
            "5",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0
    names = {p.name for p in tmp_path.glob("*.png")}
    assert {
        "landscape_0.19pct.png",
        "difference_0.19pct.png",
        "landscape_VisA_L.png",
        "minimal_tpr.png",
        "coverage.png",
    } <= names
    assert not any("UCR" in n for n in names)


def test_a_switch_is_named_without_a_value(tmp_path, capsys):
    """``percent=True`` of the library is the switch ``--percent`` on the command line."""
    (tmp_path / "t.csv").write_text("method,class,auroc\nA,0,61.6\nA,1,70.0\n")
    assert main(["results", str(tmp_path / "t.csv")]) == 2
    err = capsys.readouterr().err
    assert "pass --percent" in err and "percent=True" not in err and "--percent True" not in err


# --------------------------------------------------------------------------- the first hour (issue #23)
LIGHT = [
    "--detector",
    "knn",
    "--null-runs",
    "50",
    "--landscape-resolution",
    "11",
    "--leakage-k",
    "3",
    "--null-metric",
    "auroc",
    "--landscape-metric",
    "auroc",
    "--quiet",
]


@pytest.fixture
def to_csv_bench(tmp_path):
    """8 features and a label written by pandas' default ``to_csv()`` (with the unnamed index column)."""
    import pandas as pd

    X, y = load_digits(return_X_y=True)
    frame = pd.DataFrame(X[:240, 20:28], columns=[f"f{i}" for i in range(8)])
    frame["label"] = y[:240]
    frame.to_csv(tmp_path / "bench.csv")
    return tmp_path / "bench.csv"


def test_a_to_csv_file_is_audited_with_its_real_dimension(to_csv_bench, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["audit", "--embeddings", str(to_csv_bench), "--labels", str(to_csv_bench), "--out", str(out), *LIGHT])
    err = capsys.readouterr().err
    assert code in (0, 1), err
    summary = json.loads((out / "bench" / "summary.json").read_text())
    assert summary["dataset"]["representations"] == {"bench": {"dim": 8}}  # not 9 (index) nor 10 (label too)
    notes = [line for line in err.splitlines() if "empty header" in line]
    assert len(notes) == 1 and notes[0].startswith("auditad: note: bench: SkippedItemWarning: bench.csv:")
    assert "values 0..239" in notes[0]
    assert any("empty header" in w for w in summary["warnings"])  # the report lists it too


def test_embedding_columns_and_prefix_flags_and_config_keys(to_csv_bench, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(
        [
            "audit",
            "--embeddings",
            str(to_csv_bench),
            "--labels",
            str(to_csv_bench),
            "--out",
            str(out),
            "--embedding-columns",
            "f1, f3,f5",
            *LIGHT,
        ]
    ) in (0, 1)
    summary = json.loads((out / "bench" / "summary.json").read_text())
    assert summary["dataset"]["representations"]["bench"]["dim"] == 3
    (tmp_path / "audit.toml").write_text(
        'version = 1\n[[benchmarks]]\nname = "b"\nlabels = "bench.csv"\n'
        'embeddings = "bench.csv"\nembedding_prefix = "f"\n'
    )
    assert main(["audit", str(tmp_path / "audit.toml"), "--out", str(tmp_path / "o2"), *LIGHT]) in (0, 1)
    summary = json.loads((tmp_path / "o2" / "b" / "summary.json").read_text())
    assert summary["dataset"]["representations"]["bench"]["dim"] == 8
    capsys.readouterr()


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--embedding-columns", "f0,f9"], ["--embedding-columns ['f0', 'f9']", "has no column(s) ['f9']"]),
        (["--embedding-prefix", "emb_"], ["--embedding-prefix 'emb_'", "no column starting with 'emb_'"]),
        (["--embedding-columns", "f0,,f1"], ["--embedding-columns must be a non-empty list"]),
        (
            ["--embedding-prefix", "f", "--embedding-columns", "f0"],
            ["either --embedding-columns or --embedding-prefix"],
        ),
    ],
)
def test_bad_embedding_columns_exit_2_with_one_line(tmp_path, capsys, extra, words):
    import pandas as pd

    pd.DataFrame({"f0": np.arange(6.0), "f1": 1.0, "label": [0, 1] * 3}).to_csv(tmp_path / "t.csv", index=False)
    code = main(
        [
            "audit",
            "--embeddings",
            str(tmp_path / "t.csv"),
            "--labels",
            str(tmp_path / "t.csv"),
            "--out",
            str(tmp_path / "out"),
            *extra,
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and err.startswith("auditad: error:"), err
    for w in words:
        assert w in err
    assert not (tmp_path / "out").exists()


def test_a_data_file_given_as_the_config_suggests_embeddings(to_csv_bench, tmp_path, capsys):
    assert main(["audit", str(to_csv_bench), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "did you mean --embeddings" in err and "invalid TOML" not in err
    np.save(tmp_path / "X.npy", np.zeros((3, 2)))
    assert main(["audit", str(tmp_path / "X.npy"), "--out", str(tmp_path / "out")]) == 2
    assert f"did you mean --embeddings {tmp_path / 'X.npy'} --labels LABELS?" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, words",
    [
        (["audit", "x.toml"], ["required: --out", "see auditad audit --help"]),
        (["audit", "--out", "o", "--fail-on", "never"], ["--fail-on", "invalid choice"]),
        (["leakage", "--labels", "y.npy"], ["required: --embeddings"]),
        (["nosuchcommand"], ["invalid choice"]),
    ],
)
def test_a_usage_error_is_one_line_without_the_usage_block(capsys, argv, words):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("auditad: error:") and "usage:" not in err, err
    for w in words:
        assert w in err


def _help(capsys, *argv) -> str:
    assert main([*argv, "--help"]) == 0
    return capsys.readouterr().out


def test_audit_help_is_grouped_short_and_true(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    text = _help(capsys, "audit")
    lines = text.splitlines()
    assert lines[0] == "usage: auditad audit [options] (CONFIG.toml | --embeddings FILE --labels FILE) --out DIR"
    assert len(lines) < 178
    heads = [line for line in lines if line and not line.startswith(" ") and line.endswith(":")]
    assert heads[0] == "common options:" and "gates and CI outputs:" in heads and "execution:" in heads
    common = text.split("common options:")[1].split("\n\n")[0]
    for flag in ("CONFIG.toml", "--embeddings", "--labels", "--out DIR", "--seed", "--quiet", "--help"):
        assert flag in common, flag
    flat = " ".join(text.split())
    assert ".npy, .npz, .mat, CSV/TSV or Parquet" in flat  # not ".npy/.npz" only
    assert "--no-default-gates do not apply the default warning gates" in flat
    assert "--embedding-columns" in flat and "--embedding-prefix" in flat


def test_no_default_gates_does_what_its_help_says(to_csv_bench, tmp_path, capsys):
    assert (
        main(
            [
                "audit",
                "--embeddings",
                str(to_csv_bench),
                "--labels",
                str(to_csv_bench),
                "--out",
                str(tmp_path / "out"),
                "--no-default-gates",
                *LIGHT,
            ]
        )
        == 0
    )
    assert json.loads((tmp_path / "out" / "bench" / "summary.json").read_text())["gates"] == []
    capsys.readouterr()


def test_every_command_takes_quiet_and_names_its_files_alike(capsys):
    from auditad.cli import COMMANDS

    for name in COMMANDS:
        text = _help(capsys, name)
        assert "--quiet" in text, name
        if "--json" in text:
            assert "--json FILE" in text, name
        if "--out" in text:
            assert "--out DIR" in text or "--out APPENDIX_DIR" in text, name


def test_demo_help_states_its_lighter_settings(capsys):
    flat = " ".join(_help(capsys, "demo").split())
    assert "50 Isolation-Forest trees instead of 100" in flat and "1000 Monte Carlo null runs instead of 2000" in flat
    assert "0.897" in flat and "0.893" in flat


class _Stream:
    def __init__(self, tty):
        self.tty, self.parts = tty, []

    def isatty(self):
        return self.tty

    def write(self, text):
        self.parts.append(text)

    def flush(self):
        pass


def test_progress_redraws_on_a_terminal_and_writes_one_line_per_stage_elsewhere(monkeypatch):
    from auditad import _progress
    from auditad._progress import Progress

    log = _Stream(tty=False)
    with Progress(500, "stage", stream=log) as bar:
        for _ in range(500):
            bar.update()
    assert log.parts == [log.parts[0]] and log.parts[0].startswith("stage: done 500/500 in ")
    tty = _Stream(tty=True)
    with Progress(50, "stage", stream=tty) as bar:
        for _ in range(50):
            bar.update()
    assert len(tty.parts) == 52 and all(p.startswith("\r") for p in tty.parts) and tty.parts[-1].endswith("\n")
    log = _Stream(tty=False)  # a long stage: at most one line per HEARTBEAT_SECONDS while it runs
    monkeypatch.setattr(_progress, "HEARTBEAT_SECONDS", 0.0)
    with pytest.raises(KeyboardInterrupt), Progress(3, "slow", stream=log) as bar:
        bar.update()
        raise KeyboardInterrupt
    assert log.parts == ["slow: 1/3 after 0s\n", log.parts[-1]] and "stopped at 1/3" in log.parts[-1]


@pytest.mark.slow
def test_the_demo_writes_few_lines_to_a_log(tmp_path, capsys, quiet_demo, monkeypatch):
    assert main(["demo", "--out", str(tmp_path / "demo")]) == 0
    captured = capsys.readouterr()
    err = captured.err.splitlines()
    assert 1 <= len(err) <= 20 and not any("\r" in line for line in err), err
    assert any(line.startswith("audit_protocol: done") for line in err)
    assert "report:" in captured.out
    # --quiet: nothing on stderr (the same demo, run once for the report tests: tests/conftest.py)
    assert quiet_demo[1] == 0 and quiet_demo[3] == "" and "report:" in quiet_demo[2]
    # --no-selection reaches the demo's inputs (stopped there: the rest is the run above)
    from auditad.audit import runner
    from auditad.errors import InvalidInputError

    asked = []

    def inputs(**kw):
        asked.append(kw["selection"])
        raise InvalidInputError("stop here")

    monkeypatch.setattr(runner, "example_inputs", inputs)
    assert main(["demo", "--out", str(tmp_path / "quiet"), "--quiet", "--no-selection"]) == 2
    assert main(["demo", "--out", str(tmp_path / "quiet"), "--quiet"]) == 2
    assert asked == [False, True] and "stop here" in capsys.readouterr().err


def test_gate_writes_its_results_as_json(tmp_path, capsys):
    """Every command that computes something offers --json FILE; gate writes each result and the verdict."""
    summary = {
        "schema_version": "1.0",
        "leakage": {"L_k": 0.7},
        "protocol": {"mean": {"rho_dir": 0.1}},
        "gates": [],
        "verdict": "pass",
    }
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(summary))
    out = tmp_path / "gates.json"
    code = main(
        [
            "gate",
            str(path),
            "--gate",
            "leakage.L_k <= 0.5",
            "--gate",
            "warn: protocol.mean.rho_dir <= 0.2",
            "--json",
            str(out),
        ]
    )
    assert code == 1
    payload = json.loads(out.read_text())
    assert payload["verdict"] == "fail" and payload["exit_code"] == 1
    (results,) = payload["benchmarks"].values()
    assert [(r["metric"], r["status"]) for r in results] == [("leakage.L_k", "fail"), ("protocol.mean.rho_dir", "pass")]
