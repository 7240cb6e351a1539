"""Running `tilec` on fuzzed input and judging the outcome (issue #10).

The contract every input must meet: tilec ends in success (status 0) or in a
diagnostic and status 1 -- never a Python traceback, an "internal error" (status 2),
a hang or unbounded memory use. A diagnostic is one line

    FILE:LINE:COL: error: MESSAGE          (about the input)
    tilec: error: MESSAGE                  (about the command line: bad -p, -t, ...)

`run_tilec` calls `tilec.tools.tilec.main(argv)` in this process (fast: no interpreter
start-up), with stdout/stderr captured and a time bound enforced by SIGALRM;
`check_outcome` asserts the contract. `budget(default)` scales the number of inputs:
`TILEC_FUZZ_EXAMPLES=N` runs N per test instead of the CI default.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import re
import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TIME_BOUND_S = int(os.environ.get("TILEC_FUZZ_TIMEOUT", "20"))
"""Seconds one tilec run may take before it counts as a hang. The slowest valid input
of the corpus (a 2^20-element copy through the default pipeline and the CPU reference
executor twice) takes about 1 s on a loaded 2-core machine."""

LOCATED = re.compile(r"^.+:\d+:\d+: error: ", re.M)
"""A diagnostic about the input, with its line and column."""

UNLOCATED = re.compile(r"^tilec: error: ", re.M)
"""The documented form of a diagnostic about the command line (no file position)."""


def budget(default: int) -> int:
    """Inputs per test: `default` in CI, `TILEC_FUZZ_EXAMPLES` when set."""
    env = os.environ.get("TILEC_FUZZ_EXAMPLES")
    return max(1, int(env)) if env else default


class TimeBound(BaseException):
    """Raised by SIGALRM in the middle of tilec. A BaseException, so that the driver's
    `except Exception` cannot turn a hang into an ordinary diagnostic."""


@dataclass
class Outcome:
    argv: list[str]
    rc: int | str  # an exit status, or "timeout"
    stdout: str
    stderr: str
    seconds: float

    def describe(self) -> str:
        return (
            f"tilec {' '.join(self.argv)} -> {self.rc} in {self.seconds:.2f}s\n"
            f"stderr: {self.stderr[-2000:]!r}"
        )


def _on_alarm(signum, frame):
    raise TimeBound()


def run_tilec(argv: list[str], text: str | None = None, timeout: int = TIME_BOUND_S) -> Outcome:
    """Run `tilec ARGV` in process. With `text`, it is written to a temporary file
    whose path replaces `{input}` in `argv` (or is prepended when `{input}` is absent)."""
    from tilec.tools.tilec import main

    with tempfile.TemporaryDirectory(prefix="tilec-fuzz-") as tmp:
        if text is not None:
            path = os.path.join(tmp, "input.mlir")
            with open(path, "w", encoding="utf-8", errors="surrogatepass") as f:
                f.write(text)
            argv = [path if a == "{input}" else a for a in argv] if "{input}" in argv else [path, *argv]
        out, err = io.StringIO(), io.StringIO()
        old = signal.signal(signal.SIGALRM, _on_alarm)
        old_env = os.environ.pop("TILEC_TRACEBACK", None)
        start = time.perf_counter()
        signal.alarm(timeout)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc: int | str = main(list(argv))
        except TimeBound:
            rc = "timeout"
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
            if old_env is not None:
                os.environ["TILEC_TRACEBACK"] = old_env
        return Outcome(list(argv), rc, out.getvalue(), err.getvalue(), time.perf_counter() - start)


KNOWN_BUGS = {
}
"""Bugs the fuzzer found in files this harness's authors may not edit (see
test_known_bugs.py: each has a strict-xfail reproducer, which turns into a failure
the day the bug is fixed, so that its entry here is removed). An outcome showing one
is tolerated by `check_outcome` unless TILEC_FUZZ_STRICT=1."""

STRICT = os.environ.get("TILEC_FUZZ_STRICT") == "1"


def known_bug(o: Outcome) -> str | None:
    """The KNOWN_BUGS key whose signature the outcome's stderr shows, if any."""
    if STRICT:
        return None
    for key, signature in KNOWN_BUGS.items():
        if signature in o.stderr:
            return key
    return None


def check_outcome(o: Outcome, *, cli_errors: bool = False) -> None:
    """Assert the contract (module docstring). `cli_errors`: the command line itself
    may be wrong (random pass options), so `tilec: error: ...` is accepted too.
    Outcomes of KNOWN_BUGS pass (and are counted as hypothesis events by callers)."""
    assert o.rc != "timeout", f"no result within {TIME_BOUND_S}s (hang?)\n{o.describe()}"
    assert o.rc in (0, 1), f"exit status must be 0 or 1\n{o.describe()}"
    assert "Traceback" not in o.stderr, o.describe()
    assert "internal error" not in o.stderr, o.describe()
    if o.rc == 1:
        ok = LOCATED.search(o.stderr) or (cli_errors and UNLOCATED.search(o.stderr))
        if not ok and UNLOCATED.search(o.stderr):
            ok = any(m in o.stderr for m in WHOLE_MODULE_MESSAGES)
        assert ok, f"status 1 without a `file:line:col: error:` line\n{o.describe()}"


WHOLE_MODULE_MESSAGES = (
    "nothing to run: the module has no host function",
)
"""Diagnostics about the whole module, which have no op to point at (documented in
runtime/reference/cli.py): printed as `tilec: error: ...`."""


# ----------------------------------------------------------------------------- corpus


def corpus_files() -> list[Path]:
    """Every example and every lit test input: the seeds of the fuzzer."""
    files = sorted((ROOT / "examples").glob("*.mlir"))
    files += sorted((ROOT / "tests" / "filecheck").rglob("*.mlir"))
    return [f for f in files if f.name != "binary.mlir" and "/Output/" not in str(f)]


def read_corpus() -> dict[str, str]:
    return {str(f.relative_to(ROOT)): f.read_text(encoding="utf-8") for f in corpus_files()}


_GENERIC: dict[str, str | None] = {}


def generic_form(name: str, text: str) -> str | None:
    """`text` printed in the generic form (`"op"(...) <{props}> : type`), where every
    property, operand and result is explicit, so that token mutations of it drop
    properties and operands that the custom syntax would require (None if `text` does
    not parse). Computed on first use."""
    if name not in _GENERIC:
        out = run_tilec(["--print-op-generic", *extra_args(text)], text)
        _GENERIC[name] = out.stdout if out.rc == 0 and out.stdout.strip() else None
    return _GENERIC[name]


def extra_args(text: str) -> list[str]:
    """`--split-input-file` for files made of `// -----` chunks."""
    return ["--split-input-file"] if re.search(r"^// -----", text, re.M) else []


# -------------------------------------------------------------------------- mutations

TOKEN = re.compile(r"\s+|//[^\n]*|\"(?:[^\"\\\n]|\\.)*\"|[#!%^@]?[A-Za-z_][\w.$-]*|-?\d+(?:\.\d+)?|.", re.S)

SPECIAL_NUMBERS = [
    "-1", "0", "1", "3", "7", "1024", "65536", str(2**31), str(2**32), str(2**40),
    str(2**63 - 1), str(2**63), str(2**64), str(10**30), "1099511627776",
]
"""Numbers that break arithmetic: signs, zero, non-powers of two, int32/int64 edges."""

UNKNOWN_NAMES = [
    "layout.nosuch", "foo.bar", "#layout.nosuch<1>", "!layout.nosuch", "#nosuch",
    "!nosuch", "%undefined", "@undefined", "^bb9", "gmem", "smem", "rmem", "vec",
    "masked", "index", "i1", "i3", "f80", "tensor<4xf32>", "memref<?xf32>", "?", "_",
]
"""Unknown ops and attributes, undefined values, and words out of place."""

TYPES = ["f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64", "index", "i1", "i3"]


NUMBER = re.compile(r"(?<![\w.%#@^-])(\d+)(?![\w.])")
"""A whole decimal number (not part of a name, a value id or a float)."""

EDGE_NUMBERS = [0, 1, 2, 3, 5, 7, 8, 12, 16, 24, 32, 33, 48, 64, 100, 128, 255, 256, 257, 512, 1024,
                4096, 65536, 2**31, 2**32, 2**63, 2**64]
"""Replacements of `mutate_numbers`: off-by-one and non-power-of-two extents, swizzle
and descriptor bits, instruction shapes, register and thread counts, integer edges."""


def mutate_numbers(text: str, rng: random.Random) -> str:
    """Replace 1-2 numbers of `text` by EDGE_NUMBERS. Unlike `mutate`, the result
    usually still parses, so it reaches the verifiers, the passes and the executor."""
    parts = NUMBER.split(text)
    spots = range(1, len(parts), 2)
    for _ in range(rng.randint(1, 2)):
        if spots:
            parts[rng.choice(spots)] = str(rng.choice(EDGE_NUMBERS))
    return "".join(parts)


def mutate(text: str, rng: random.Random, steps: int | None = None) -> str:
    """1-3 random token edits: delete, duplicate or swap tokens; replace a number by a
    SPECIAL_NUMBER, a word by an UNKNOWN_NAME, a type by another type."""
    toks = TOKEN.findall(text)
    if not toks:
        return text
    for _ in range(steps or rng.randint(1, 3)):
        k = rng.randrange(len(toks))
        op = rng.randrange(7)
        if op == 0 and len(toks) > 1:
            del toks[k]
        elif op == 1:
            toks.insert(k, toks[k])
        elif op == 2:
            j = rng.randrange(len(toks))
            toks[k], toks[j] = toks[j], toks[k]
        elif op in (3, 4):
            nums = [i for i, t in enumerate(toks) if re.fullmatch(r"-?\d+", t)]
            if nums:
                toks[rng.choice(nums)] = rng.choice(SPECIAL_NUMBERS)
        elif op == 5:
            words = [i for i, t in enumerate(toks) if re.match(r"[#!%^@]?[A-Za-z_]", t)]
            if words:
                toks[rng.choice(words)] = rng.choice(UNKNOWN_NAMES)
        else:
            types = [i for i, t in enumerate(toks) if t in TYPES]
            if types:
                toks[rng.choice(types)] = rng.choice(TYPES)
    return "".join(toks)
