"""Fingerprints of the CUDA tilec emits: every example, every lit input that reaches
`-t cuda`, every benchmark case.

A refactoring of the passes or the emitter must not change one byte of the CUDA; the
test `tests/unit/test_cuda_fingerprints.py` compares the fingerprints recorded in
`tests/data/cuda_fingerprints.json` with today's. A change that means to change the
CUDA records the new fingerprints, in its own commit, with:

    python -m tilec.tools.cuda_fingerprints --update

Each entry is `name -> sha256 of the CUDA text`; `name` says where the program comes
from (`example:transpose.mlir`, `lit:dialect/foo.mlir#2 -p default`,
`bench:copy transpose f32`, `bench:softmax f16 16384x4096`).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "tests" / "data" / "cuda_fingerprints.json"


def _cli_cuda(argv: list[str]) -> str | None:
    """The stdout of `tilec argv`, or None where the command fails (inputs that
    expect an error are not fingerprinted)."""
    from tilec.tools.tilec import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return out.getvalue() if rc == 0 else None


def _examples() -> Iterator[tuple[str, list[str]]]:
    for path in sorted((ROOT / "examples").glob("*.mlir")):
        yield f"example:{path.name}", [f"examples/{path.name}", "-p", "default", "-t", "cuda"]


def _lit_runs() -> Iterator[tuple[str, list[str]]]:
    """The `tilec` commands of lit RUN lines that print CUDA (`-t cuda`)."""
    base = ROOT / "tests" / "filecheck"
    for path in sorted(base.rglob("*.mlir")):
        if "Inputs" in path.parts or "Output" in path.parts:
            continue
        runs = [ln.split("RUN:", 1)[1] for ln in path.read_text().splitlines() if "RUN:" in ln]
        for i, run in enumerate(runs):
            cmd = run.split("|")[0].strip()
            if not cmd.startswith("tilec ") or "-t cuda" not in cmd:
                continue
            file = path.relative_to(ROOT).as_posix()
            words = shlex.split(cmd.replace("%s", file).replace("%S", str(Path(file).parent)))[1:]
            rel = path.relative_to(base).as_posix()
            yield f"lit:{rel}#{i} {' '.join(w for w in words if w != file)}", words


def _bench_programs() -> Iterator[tuple[str, str, str]]:
    """(name, IR text, pipeline) of the copy and compute benchmark cases, at the sizes
    the benchmarks run (their modules, built in Python, printed: the CUDA's location
    comments then name lines of that text, the same in every checkout)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import compute_bench
    import copy_bench

    from tilec.compiler.pipeline import emit

    for case in copy_bench.make_cases(quick=False):
        yield f"bench:copy {case.name}", emit(copy_bench.build_tilec(case)), case.pipeline or "default"
    for kind in ("softmax", "layer_norm", "cumsum"):
        dtypes = ("f32", "f16") if kind != "cumsum" else ("f32", "i32")
        for dtype in dtypes:
            for n in (1024, 4096, 16384):
                text = emit(compute_bench.program(kind, 16384, n, dtype, {}))
                yield f"bench:{kind} {dtype} 16384x{n}", text, "default"


def fingerprints() -> dict[str, str]:
    """name -> sha256 of the CUDA each source program compiles to today."""
    return {name: hashlib.sha256(cuda.encode()).hexdigest() for name, cuda in cuda_programs().items()}


def cuda_programs() -> dict[str, str]:
    """name -> the CUDA of each source program. Files are named relative to the
    repository (the CUDA's location comments hold the name), so that the text is the
    same in every checkout."""
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        return _cuda_programs()
    finally:
        os.chdir(cwd)


def _cuda_programs() -> dict[str, str]:
    from tilec.compiler.pipeline import emit, parse_module, run_pipeline

    out: dict[str, str] = {}
    for name, argv in [*_examples(), *_lit_runs()]:
        cuda = _cli_cuda(argv)
        if cuda is not None:
            out[name] = cuda
    for name, text, pipeline in _bench_programs():
        module = parse_module(text, name)
        run_pipeline(module, pipeline)
        out[name] = emit(module, "cuda")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--update", action="store_true", help=f"write {RECORD.relative_to(ROOT)}")
    args = ap.parse_args(argv)
    now = fingerprints()
    if args.update:
        RECORD.parent.mkdir(parents=True, exist_ok=True)
        RECORD.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
        print(f"recorded {len(now)} fingerprints in {RECORD.relative_to(ROOT)}")
        return 0
    old = json.loads(RECORD.read_text())
    changed = sorted(k for k in old.keys() | now.keys() if old.get(k) != now.get(k))
    for k in changed:
        print(f"changed: {k}")
    print(f"{len(now)} fingerprints, {len(changed)} changed")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
