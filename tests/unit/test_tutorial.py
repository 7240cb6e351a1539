"""docs/tutorial.md cannot rot: every command in it is run, and the output it shows is
checked.

Conventions of the tutorial (see its first section):

- ```console blocks hold commands, one per `$ ` line, each followed by the output it
  shows (stdout and stderr together). Commands run with bash from the repository root,
  with the environment's `tilec` and `python` first on PATH, and must exit with status
  0 (a failing command is shown as `tilec ...; echo "exit status $?"`).
- Shown output must match the whole output line by line, where a line `...` stands
  for any number of lines (none included) and `...` inside a line for any text on
  that line. A command with no output lines below it is checked for its exit status.
- A command that needs a GPU (`--run gpu`) is run by a `gpu` test (skipped without one).
- ```python blocks are scripts: each runs on its own and must exit with status 0.
- An ```mlir block right after `<!-- file: PATH -->` must be the text of that file.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
TUTORIAL = ROOT / "docs" / "tutorial.md"
FENCE = re.compile(r"^```(\w*)[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)
FILE_MARK = re.compile(r"<!--\s*file:\s*(\S+)\s*-->\s*$")


@dataclass
class Block:
    lang: str
    body: str
    line: int  # line of the opening fence in the tutorial
    before: str  # the text between the previous block and this one


@dataclass
class Command:
    command: str
    expected: list[str]
    line: int

    @property
    def needs_gpu(self) -> bool:
        return "--run gpu" in self.command

    def __str__(self) -> str:
        return f"tutorial.md:{self.line}: $ {self.command}"


def blocks(text: str) -> list[Block]:
    out, last = [], 0
    for m in FENCE.finditer(text):
        out.append(Block(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1, text[last:m.start()]))
        last = m.end()
    return out


def commands(text: str) -> list[Command]:
    out: list[Command] = []
    for block in blocks(text):
        if block.lang != "console":
            continue
        for i, line in enumerate(block.body.splitlines()):
            if line.startswith("$ "):
                out.append(Command(line[2:].strip(), [], block.line + 1 + i))
            elif out and out[-1].line > block.line:
                out[-1].expected.append(line)
            else:
                raise ValueError(f"tutorial.md:{block.line + 1 + i}: output before any `$ ` command")
    return out


def pattern(expected: list[str]) -> re.Pattern:
    """The regex for a whole output: `...` lines match any lines, `...` in a line any
    text on that line; trailing spaces are ignored."""
    parts = []
    for line in expected:
        line = line.rstrip()
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append("[^\\n]*".join(re.escape(piece) for piece in line.split("...")) + r"[ \t]*\n")
    return re.compile("".join(parts))


def matches(expected: list[str], output: str) -> bool:
    if output and not output.endswith("\n"):
        output += "\n"
    return pattern(expected).fullmatch(output) is not None


def shell_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("COLUMNS", None)
    return env


def run_command(cmd: Command) -> None:
    proc = subprocess.run(
        ["bash", "-c", cmd.command], cwd=ROOT, env=shell_env(), timeout=300,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    assert proc.returncode == 0, f"{cmd}\nexited with {proc.returncode}:\n{proc.stdout}"
    if cmd.expected:
        assert matches(cmd.expected, proc.stdout), (
            f"{cmd}\nshows:\n" + "\n".join(cmd.expected) + f"\n\nbut prints:\n{proc.stdout}"
        )


TEXT = TUTORIAL.read_text()
COMMANDS = commands(TEXT)
CPU_COMMANDS = [c for c in COMMANDS if not c.needs_gpu]
GPU_COMMANDS = [c for c in COMMANDS if c.needs_gpu]


# ------------------------------------------------------------------ the conventions


def test_matching_rules():
    assert matches(["a", "b"], "a\nb\n") and not matches(["a"], "a\nb\n")
    assert matches(["a", "...", "d"], "a\nb\nc\nd\n") and matches(["a", "...", "b"], "a\nb\n")
    assert matches(["x = ... + 1;"], "x = t_3 * 4 + 1;\n") and not matches(["x = ... + 1;"], "x = 1\n+ 1;\n")
    assert not matches(["a", "...", "d"], "a\nb\nc\n")
    assert matches(["a (b) [c]*"], "a (b) [c]*   \n")  # regex characters are literal


def test_commands_are_parsed_with_their_output():
    cmds = commands("text\n```console\n$ tilec a\nout 1\nout 2\n$ tilec b\n```\n```mlir\n$ no\n```\n")
    assert [(c.command, c.expected) for c in cmds] == [("tilec a", ["out 1", "out 2"]), ("tilec b", [])]
    with pytest.raises(ValueError):
        commands("```console\nstray output\n```\n")


def test_the_tutorial_covers_what_it_promises():
    text = " ".join(c.command for c in COMMANDS)
    for needle in ("show-layout", "--run cpu", "-p tile ", "-p tile,distribute ", "--print-between-passes",
                   "-t cuda", "--check-equivalence", "--run gpu", "--compile-only", "python examples/python/"):
        assert needle in text, f"the tutorial has no command with {needle!r}"
    assert len(CPU_COMMANDS) >= 15 and GPU_COMMANDS
    langs = {b.lang for b in blocks(TEXT)}
    assert langs <= {"console", "mlir", "python", "text"}, f"untested code block kinds: {langs}"


def test_readme_links_the_tutorial():
    assert "(docs/tutorial.md)" in (ROOT / "README.md").read_text()


# ------------------------------------------------------------------ running it


@pytest.mark.parametrize("cmd", CPU_COMMANDS, ids=lambda c: f"line{c.line}")
def test_command(cmd):
    run_command(cmd)


@pytest.mark.gpu
@pytest.mark.parametrize("cmd", GPU_COMMANDS, ids=lambda c: f"line{c.line}")
def test_gpu_command(cmd):
    run_command(cmd)


PYTHON_BLOCKS = [b for b in blocks(TEXT) if b.lang == "python"]


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=lambda b: f"line{b.line}")
def test_python_block(block):
    proc = subprocess.run(
        [sys.executable, "-c", block.body], cwd=ROOT, env=shell_env(), timeout=300,
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, f"tutorial.md:{block.line}: python block fails:\n{proc.stdout}{proc.stderr}"


FILE_BLOCKS = [b for b in blocks(TEXT) if b.lang == "mlir" and FILE_MARK.search(b.before.rstrip())]


@pytest.mark.parametrize("block", FILE_BLOCKS, ids=lambda b: f"line{b.line}")
def test_shown_file_is_the_file(block):
    path = FILE_MARK.search(block.before.rstrip()).group(1)
    assert (ROOT / path).read_text() == block.body, f"tutorial.md:{block.line}: differs from {path}"
