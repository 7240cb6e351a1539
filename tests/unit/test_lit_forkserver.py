"""The lit fork server (tests/helpers/lit_forkserver.py) gives each command what the
real tool gives: stdout, stderr (also both into one pipe), the exit status, a traceback,
death by a signal, stdin, the working directory and the environment."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "helpers"))
import lit_forkserver

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

PROBE = """
import os, sys
print("warm" if "tilec.passes.tile" in sys.modules else "cold")
print(sys.argv[1:], os.getcwd(), os.environ.get("PROBE_VAR"))
print("to stderr", file=sys.stderr)
print(sys.stdin.read().upper(), end="")
what = sys.argv[1] if len(sys.argv) > 1 else ""
if what == "raise":
    def inner():
        raise ValueError("boom")
    inner()
if what == "exit-text":
    sys.exit("a message")
if what == "signal":
    sys.stdout.flush()
    os.kill(os.getpid(), 15)
sys.exit(int(what) if what.isdigit() else 0)
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    probe = tmp_path_factory.mktemp("probe") / "probe"
    probe.write_text(f"#!{sys.executable}\n{PROBE}")
    probe.chmod(0o755)
    tools = {"tilec": shutil.which("tilec", path=str(BIN)), "filecheck": shutil.which("filecheck", path=str(BIN)),
             "probe": str(probe)}
    srv = lit_forkserver.start(tools)
    assert srv is not None
    yield srv, tools
    srv.stop()


def _both(server, tool: str, args: list[str], *, stdin: str = "", env: dict | None = None, merged: bool = False,
          cwd: Path = ROOT):
    """(real tool's result, the server's result) of the same command."""
    srv, tools = server
    out = []
    for exe in (tools[tool], os.path.join(srv.bindir, tool)):
        r = subprocess.run([exe, *args], check=False, input=stdin, capture_output=not merged, text=True, cwd=cwd,
                           env={**os.environ, **(env or {})},
                           stdout=subprocess.PIPE if merged else None, stderr=subprocess.STDOUT if merged else None)
        out.append((r.returncode, r.stdout, r.stderr))
    return out


def test_the_server_runs_the_command_with_modules_already_imported(server, tmp_path):
    real, served = _both(server, "probe", ["x", "y z"], stdin="abc", env={"PROBE_VAR": "v"}, cwd=tmp_path)
    assert real[1].startswith("cold\n") and served[1].startswith("warm\n")
    assert real[1].split("\n", 1)[1] == served[1].split("\n", 1)[1]
    assert f"['x', 'y z'] {tmp_path} v\nABC" in served[1]
    assert real[0] == served[0] == 0 and real[2] == served[2] == "to stderr\n"


@pytest.mark.parametrize("what", ["3", "raise", "exit-text", "signal"])
def test_exit_status_traceback_and_signals_are_the_real_ones(server, what):
    real, served = _both(server, "probe", [what])
    assert real[0] == served[0]
    assert real[2] == served[2]
    assert real[1].split("\n", 1)[1] == served[1].split("\n", 1)[1]
    if what == "signal":
        assert served[0] == -signal.SIGTERM
    if what == "raise":
        assert "Traceback (most recent call last)" in served[2] and "ValueError: boom" in served[2]


@pytest.mark.parametrize("args", [
    ["examples/transpose.mlir", "-p", "default", "-t", "cuda"],
    ["examples/transpose.mlir", "-p", "no-such-pass"],
    ["examples/transpose.mlir", "--run", "cpu"],
    ["--version"],
    ["--list-passes"],
])
def test_tilec_gives_the_same_output_and_status(server, args):
    real, served = _both(server, "tilec", args)
    assert real == served
    real, served = _both(server, "tilec", args, merged=True)
    assert real == served


def test_tilec_reads_stdin_and_filecheck_fails_alike(server):
    text = (ROOT / "examples" / "transpose.mlir").read_text()
    real, served = _both(server, "tilec", ["-p", "tile"], stdin=text)
    assert real == served and real[0] == 0 and "layout.launch" in real[1]
    check = ROOT / "tests" / "filecheck" / "tile" / "errors.mlir"
    real, served = _both(server, "filecheck", [str(check), "--check-prefix=RANK"], stdin="nothing it expects\n")
    assert real == served and real[0] == 1


def test_without_the_server_the_client_runs_the_real_tool(server):
    srv, _ = server
    r = subprocess.run([os.path.join(srv.bindir, "probe")], check=False, capture_output=True, text=True,
                       env={**os.environ, "TILEC_LIT_FORKSERVER": "0"})
    assert r.stdout.startswith("cold\n")
