"""One glibc malloc arena per auditad process (`auditad._memory.configure_arenas`)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from auditad import _memory
from auditad._memory import ARENA_VARIABLE, M_ARENA_MAX, configure_arenas as configure


def test_the_users_variable_is_left_alone():
    calls = []
    env = {ARENA_VARIABLE: "4"}
    assert configure(env, mallopt=lambda *a: calls.append(a) or 1) == "user"
    assert env == {ARENA_VARIABLE: "4"} and calls == []


def test_one_arena_is_asked_for_and_passed_on_to_child_processes():
    calls, env = [], {}
    assert configure(env, mallopt=lambda *a: calls.append(a) or 1) == "one"
    assert calls == [(M_ARENA_MAX, 1)] and env == {ARENA_VARIABLE: "1"}


def test_a_refusal_or_another_c_library_changes_nothing(monkeypatch):
    env = {}
    assert configure(env, mallopt=lambda *a: 0) == "kept" and env == {}
    monkeypatch.setattr(_memory, "_glibc_mallopt", lambda: None)
    assert configure(env) == "kept" and env == {}


ARENAS = textwrap.dedent(
    """
    import ctypes, os, sys, tempfile, threading
    from auditad import _memory
    if sys.argv[1] == "configure":
        assert _memory.configure_arenas({}) == "one"
    libc = ctypes.CDLL("libc.so.6")
    libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    libc.fopen.restype, libc.fopen.argtypes = ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_char_p]
    libc.malloc_info.argtypes, libc.fclose.argtypes = [ctypes.c_int, ctypes.c_void_p], [ctypes.c_void_p]
    go = threading.Barrier(4)
    def work():
        go.wait()  # (all four threads alive at once: each would get an arena of its own)
        libc.free(libc.malloc(1 << 16))
        go.wait()
    threads = [threading.Thread(target=work) for _ in range(4)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    path = os.path.join(tempfile.mkdtemp(), "info.xml")
    fh = libc.fopen(path.encode(), b"w")
    libc.malloc_info(0, fh)
    libc.fclose(fh)
    print(open(path).read().count("<heap nr="))
    """
)


@pytest.mark.skipif(_memory._glibc_mallopt() is None, reason="glibc only")
def test_threads_share_one_arena_after_configure():
    """In a fresh process whose four threads allocate at once, glibc's own report (malloc_info) lists one heap
    after `configure` and more than one without it."""

    def heaps(mode):
        env = {k: v for k, v in __import__("os").environ.items() if k != ARENA_VARIABLE}
        out = subprocess.run([sys.executable, "-c", ARENAS, mode], capture_output=True, text=True, env=env, check=True)
        return int(out.stdout.strip())

    assert heaps("configure") == 1
    assert heaps("default") > 1
