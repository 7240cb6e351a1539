"""A fork server for the lit tests: `tilec` and `filecheck` RUN lines without Python's
start-up and imports.

Each of the ~390 RUN lines of tests/filecheck starts `tilec` (and most pipe into
`filecheck`); a fresh interpreter spends about half of a typical run importing xDSL,
NumPy and tilec. tests/filecheck/lit.cfg calls `start()`, which

- binds a Unix socket (before the server exists, so that no client can come too early:
  connections wait in the backlog while the server imports),
- starts this module as the server, which imports tilec, its passes, targets and the
  reference executor, and FileCheck, once, and then forks a fresh worker per request,
- writes a small client named `tilec` (and `filecheck`) into a directory that lit puts
  first on the tests' PATH.

The client (Python without `site`, a few milliseconds) sends its arguments, working
directory and environment and passes its stdin, stdout and stderr (the descriptors
themselves, SCM_RIGHTS) to the server; a worker forked from the server takes them as
its own, runs the console script of the real tool as `python` would (runpy, `__main__`,
the same `sys.argv`), and its exit status (or the signal that ended it) becomes the
client's. Output, exit codes and tracebacks are those of the real tool: a test of that
is tests/unit/test_lit_forkserver.py. What differs from a fresh interpreter: every worker
shares the server's string hash seed and has already imported the modules listed in
`WARM` (both stay the same for the whole lit run).

Without a server (it failed to start, or TILEC_LIT_FORKSERVER=0) the client executes the
real tool, so a RUN line never depends on the server. The server ends when the lit
process that started it ends (the read end of a pipe whose write end lit holds).
"""

from __future__ import annotations

import json
import os
import socket
import struct
import subprocess
import sys
import tempfile

WARM = ("tilec.tools.tilec", "filecheck.main")
"""Modules the server imports before it forks; with them, every tilec module (below)."""

TILEC_PACKAGES = ("tilec.support", "tilec.dialects", "tilec.passes", "tilec.compiler", "tilec.runtime", "tilec",
                  "tilec.tools")

_CLIENT = '''#!{python} -S
# Written by tests/helpers/lit_forkserver.py: run `{tool}` in the lit fork server, or the real one.
import os, socket, struct, sys, json
REAL, SOCK = {real!r}, {sock!r}
def real():
    os.execv(REAL, [REAL] + sys.argv[1:])
if os.environ.get("TILEC_LIT_FORKSERVER") == "0":
    real()
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(SOCK)
except OSError:
    real()
body = json.dumps({{"tool": {tool!r}, "argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ)}}).encode()
try:
    socket.send_fds(s, [struct.pack("!Q", len(body))], [0, 1, 2])
    s.sendall(body)
except OSError:  # the server ended: the real tool
    real()
def recv(n):
    data = b""
    while len(data) < n:
        try:
            chunk = s.recv(n - len(data))
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            sys.stderr.write("lit fork server: the worker ended without a status\\n")
            os._exit(125)
        data += chunk
    return data
try:
    (pid,) = struct.unpack("!q", s.recv(8, socket.MSG_WAITALL))
except (OSError, struct.error):
    pid = 0
if pid <= 0:  # refused, or the server ended before taking the request: the real tool
    real()
import signal
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(sig, lambda n, f: os.kill(pid, n))
kind, value = struct.unpack("!qq", recv(16))
if kind == 1:
    signal.signal(value, signal.SIG_DFL)
    os.kill(os.getpid(), value)
os._exit(value)
'''


def _recv_exact(conn: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def _stdio(fd: int, template) -> object:
    """A text stream on `fd` as the interpreter makes sys.stdin/stdout/stderr at start-up:
    buffered as `open` decides, stdout line-buffered on a terminal, stderr always
    line-buffered, the encoding and error handler of the server's own stream."""
    import io

    write = fd != 0
    binary = open(fd, "wb" if write else "rb", closefd=False)  # noqa: SIM115
    line = write and (fd == 2 or os.isatty(fd))
    return io.TextIOWrapper(binary, encoding=template.encoding, errors=template.errors, newline="\n",
                            line_buffering=line)


def _run_tool(script: str) -> int:
    """Run the console script `script` in this (forked) process as `python script` would
    and return the exit status the interpreter would have: SystemExit's code, or 1 after
    the traceback of an uncaught exception (the frames from the script on, as a fresh
    interpreter prints them)."""
    import runpy
    import traceback

    try:
        runpy.run_path(script, run_name="__main__")
        code = 0
    except SystemExit as e:
        if e.code is None:
            code = 0
        elif isinstance(e.code, int):
            code = e.code
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except BaseException as e:  # noqa: BLE001 - what the interpreter does with any exception
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != script:
            tb = tb.tb_next
        sys.stderr.write("".join(traceback.format_exception(type(e), e, tb or e.__traceback__)))
        code = 1
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001, S110 - a closed pipe; the interpreter ignores it too
            pass
    return code & 0xFF


def _worker(conn: socket.socket, fds: list[int], request: dict, scripts: dict[str, str]) -> None:
    """In the forked worker: take the client's descriptors, directory, environment and
    arguments, run the tool, and end with its status."""
    import random
    import signal

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    conn.close()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    sys.stdin = sys.__stdin__ = _stdio(0, sys.__stdin__)
    sys.stdout = sys.__stdout__ = _stdio(1, sys.__stdout__)
    sys.stderr = sys.__stderr__ = _stdio(2, sys.__stderr__)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    random.seed()
    if "numpy.random" in sys.modules:
        sys.modules["numpy.random"].seed()
    script = scripts[request["tool"]]
    sys.argv = [script, *request["argv"]]
    sys.path[0] = os.path.dirname(script)  # as for `python script`
    os._exit(_run_tool(script))


def _handle(conn: socket.socket, scripts: dict[str, str]) -> None:
    """In a forked handler: read the request, fork the worker, report its pid and then
    how it ended (kind 0: exit code; kind 1: the signal that killed it)."""
    import signal

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    msg, fds, _flags, _addr = socket.recv_fds(conn, 8, 3)
    (length,) = struct.unpack("!Q", msg + _recv_exact(conn, 8 - len(msg)))
    request = json.loads(_recv_exact(conn, length))
    if request.get("tool") not in scripts or len(fds) != 3:
        conn.sendall(struct.pack("!q", -1))  # the client runs the real tool
        return
    pid = os.fork()
    if pid == 0:
        try:
            _worker(conn, fds, request, scripts)
        finally:
            os._exit(125)
    for fd in fds:
        os.close(fd)
    conn.sendall(struct.pack("!q", pid))
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        conn.sendall(struct.pack("!qq", 1, os.WTERMSIG(status)))
    else:
        conn.sendall(struct.pack("!qq", 0, os.WEXITSTATUS(status)))


def _warm() -> None:
    import importlib
    import pkgutil

    for name in WARM:
        importlib.import_module(name)
    for pkg in TILEC_PACKAGES:
        module = importlib.import_module(pkg)
        for info in pkgutil.walk_packages(module.__path__, pkg + "."):
            try:
                importlib.import_module(info.name)
            except ImportError:  # an optional dependency (torch) is absent: import on demand
                continue


def serve(listen_fd: int, lifeline_fd: int, scripts: dict[str, str]) -> None:
    """Accept clients on the bound socket `listen_fd` until `lifeline_fd` reads EOF."""
    import select
    import signal

    _warm()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # handlers are reaped by the kernel
    listener = socket.socket(fileno=listen_fd)
    while True:
        ready, _, _ = select.select([listener, lifeline_fd], [], [])
        if lifeline_fd in ready:
            return
        conn, _ = listener.accept()
        if os.fork() == 0:
            listener.close()
            os.close(lifeline_fd)
            try:
                _handle(conn, scripts)
            finally:
                os._exit(0)
        conn.close()


class Server:
    """A running server: `bindir` holds its clients; `stop()` ends it (so does the end of
    this process)."""

    def __init__(self, bindir: str, lifeline: int) -> None:
        self.bindir = bindir
        self._lifeline = lifeline

    def stop(self) -> None:
        if self._lifeline >= 0:
            os.close(self._lifeline)
            self._lifeline = -1


def start(tools: dict[str, str], python: str = sys.executable) -> Server | None:
    """Start a server for `tools` (name -> path of its console script) and write its
    clients into `Server.bindir`, the directory to put first on PATH; None where no server
    can run (the tests then start the real tools)."""
    if os.environ.get("TILEC_LIT_FORKSERVER") == "0" or not hasattr(socket, "send_fds"):
        return None
    if len(python) > 120:  # a #! line's length limit
        return None
    root = tempfile.mkdtemp(prefix="tilec-lit-")
    sock_path = os.path.join(root, "server.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(sock_path)
    listener.listen(128)
    lifeline_r, lifeline_w = os.pipe()
    os.set_inheritable(lifeline_w, False)
    subprocess.Popen(
        [python, __file__, str(listener.fileno()), str(lifeline_r), json.dumps(tools), root],
        pass_fds=(listener.fileno(), lifeline_r),
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    listener.close()
    os.close(lifeline_r)
    bindir = os.path.join(root, "bin")
    os.mkdir(bindir)
    for tool, real in tools.items():
        path = os.path.join(bindir, tool)
        with open(path, "w") as f:
            f.write(_CLIENT.format(python=python, tool=tool, real=real, sock=sock_path))
        os.chmod(path, 0o755)
    return Server(bindir, lifeline_w)


if __name__ == "__main__":
    import shutil

    _listen, _lifeline, _tools, _root = sys.argv[1:5]
    sys.path[0] = os.path.dirname(next(iter(json.loads(_tools).values())))  # not tests/helpers
    try:
        serve(int(_listen), int(_lifeline), json.loads(_tools))
    finally:
        shutil.rmtree(_root, ignore_errors=True)
