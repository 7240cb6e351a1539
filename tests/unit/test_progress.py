"""tools/progress.py on fake terminals and pipes, and the `tilec` driver's use of it:
progress text on a terminal's stderr, nothing in a pipe."""

import io
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

import tilec
from tilec.tools.progress import Progress, track

ROOT = Path(__file__).parents[2]
TILEC = str(Path(sys.executable).parent / "tilec")


class FakeTty(io.StringIO):
    def isatty(self):
        return True


def test_steps_on_a_terminal_rewrite_one_line():
    tty = FakeTty()
    with Progress(3, stream=tty) as p:
        p.step("compiling transpose_f16")
        p.step("compiling a")
        assert tty.getvalue() == (
            "\r[1/3] compiling transpose_f16 ..."
            "\r[2/3] compiling a ..." + " " * 12
        )
    # leaving the block erases the line and returns to its start
    assert tty.getvalue().endswith("\r" + " " * 21 + "\r")
    assert "\n" not in tty.getvalue()


def test_nothing_at_all_on_a_stream_that_is_not_a_terminal():
    pipe = io.StringIO()
    with Progress(2, stream=pipe) as p:
        p.step("one")
        p.clear()
        p.step("two")
    assert pipe.getvalue() == ""
    assert list(track(["a", "b"], stream=pipe)) == ["a", "b"]
    assert pipe.getvalue() == ""


def test_enabled_overrides_isatty():
    forced = io.StringIO()
    with Progress(1, stream=forced, enabled=True) as p:
        p.step("x")
    assert forced.getvalue().startswith("\r[1/1] x ...")
    off = FakeTty()
    with Progress(1, stream=off, enabled=False) as p:
        p.step("x")
    assert off.getvalue() == ""


def test_clear_then_step_draws_again_and_clear_twice_writes_once():
    tty = FakeTty()
    p = Progress(2, stream=tty)
    p.step("first")
    p.clear()
    p.clear()
    p.step("second")
    p.clear()
    assert tty.getvalue() == (
        "\r[1/2] first ..." "\r" + " " * 15 + "\r"
        "\r[2/2] second ..." "\r" + " " * 16 + "\r"
    )


def test_the_line_is_cut_to_the_terminal_width(monkeypatch):
    monkeypatch.setenv("COLUMNS", "30")
    tty = FakeTty()
    with Progress(1, stream=tty) as p:
        p.step("x" * 100)
    first = tty.getvalue().split("\r")[1]
    assert len(first) == 29 and first.startswith("[1/1] xxx")


def test_the_line_is_erased_when_the_block_raises():
    tty = FakeTty()
    with pytest.raises(RuntimeError):
        with Progress(1, stream=tty) as p:
            p.step("work")
            raise RuntimeError("boom")
    assert tty.getvalue().endswith("\r" + " " * len("[1/1] work ...") + "\r")


def test_track_yields_every_item_and_shows_each():
    tty = FakeTty()
    seen = list(track([3, 1, 2], lambda n: f"case {n}", stream=tty))
    assert seen == [3, 1, 2]
    text = tty.getvalue()
    assert "[1/3] case 3 ..." in text and "[2/3] case 1 ..." in text and "[3/3] case 2 ..." in text
    assert text.endswith("\r")


def test_a_closed_stream_disables_it():
    closed = FakeTty()
    closed.close()
    p = Progress(1, stream=closed, enabled=True)
    p.step("x")  # no exception
    assert p.enabled is False


# ------------------------------------------------------------------ the tilec driver

def _copy(i: int) -> str:
    """@f{i}: an 8-element copy, built and printed for the command line's input."""
    p = tilec.Program(f"f{i}")
    a = p.view(p.pointer("src", "f32", align=None), "8:1")
    b = p.view(p.pointer("dst", "f32", align=None), "8:1")
    p.copy(a, b)
    return str(p.module)


CHUNKS = "\n// -----\n".join(_copy(i) for i in range(3))


def test_cli_in_a_pipe_writes_no_progress():
    proc = subprocess.run(
        [TILEC, "-", "--split-input-file", "--run", "cpu"],
        input=CHUNKS, capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "\r" not in proc.stdout and "[1/3]" not in proc.stdout
    assert proc.stdout.count("on the CPU reference executor") == 3


def test_cli_on_a_terminal_shows_progress_on_stderr_only(tmp_path):
    """stderr is a pseudo-terminal: the progress lines appear there, and stdout (a
    pipe) is the same as without a terminal."""
    source = tmp_path / "chunks.mlir"
    source.write_text(CHUNKS)
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            [TILEC, str(source), "--split-input-file", "--run", "cpu"],
            stdout=subprocess.PIPE, stderr=slave, cwd=ROOT, text=True,
        )
        os.close(slave)
        stdout, _ = proc.communicate(timeout=120)
        terminal = b""
        while select.select([master], [], [], 0.5)[0]:
            try:
                data = os.read(master, 4096)
            except OSError:  # the terminal's other side is closed
                break
            if not data:
                break
            terminal += data
    finally:
        os.close(master)
    assert proc.returncode == 0
    text = terminal.decode()
    for i in range(3):
        assert f"[{i + 1}/3] running @f{i} on the CPU ..." in text
    assert text.endswith("\r"), "the line is erased at the end"
    assert "\r" not in stdout and stdout.count("on the CPU reference executor") == 3


# ------------------------------------------------------------------ benchmarks/copy_bench.py


def _bench_main(monkeypatch, stderr):
    """copy_bench.main with the GPU parts replaced by fakes: two cases, each 'run'
    records what stderr showed while it ran."""
    import importlib.util
    from types import SimpleNamespace

    spec = importlib.util.spec_from_file_location("copy_bench", ROOT / "benchmarks" / "copy_bench.py")
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "copy_bench", bench)  # dataclasses look it up
    spec.loader.exec_module(bench)
    cases = [SimpleNamespace(name="transpose_f16"), SimpleNamespace(name="copy1d")]
    seen_during_run = []

    def fake_run_case(case, memcpy, results, pipelines, peers):
        seen_during_run.append(stderr.getvalue())
        results.append({"case": case.name})

    fake_cp = SimpleNamespace(cuda=SimpleNamespace(runtime=SimpleNamespace(
        getDeviceProperties=lambda i: {"name": b"fake"})))
    monkeypatch.setattr(bench, "cp", fake_cp)
    monkeypatch.setattr(bench, "_has_gpu", lambda: True)
    monkeypatch.setattr(bench, "make_cases", lambda quick: cases)
    monkeypatch.setattr(bench, "memcpy_tbps", lambda n: 1.0)
    monkeypatch.setattr(bench, "run_case", fake_run_case)
    monkeypatch.setattr(bench, "table", lambda results, memcpy: "TABLE")
    monkeypatch.setattr(sys, "stderr", stderr)
    assert bench.main(["--quick"]) == 0
    return seen_during_run


def test_copy_bench_shows_each_case_on_a_terminal(monkeypatch, capsys):
    tty = FakeTty()
    seen = _bench_main(monkeypatch, tty)
    assert seen[0].endswith("[1/2] transpose_f16: compiling, checking, timing ...")
    assert seen[1].endswith("[2/2] copy1d: compiling, checking, timing ...")
    assert tty.getvalue().endswith("\r")
    out = capsys.readouterr().out
    assert '{"case": "transpose_f16"}' in out and "\r" not in out


def test_copy_bench_in_a_pipe_shows_nothing(monkeypatch):
    pipe = io.StringIO()
    _bench_main(monkeypatch, pipe)
    assert pipe.getvalue() == ""
