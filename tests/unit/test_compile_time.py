"""The compile-time benchmark's programs (benchmarks/compile_time.py) compile, and the
fast `canonicalize` that keeps their times leaves exactly xDSL's IR. No seconds are
asserted here: speed is measured by the benchmark, not by a test on a loaded machine."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.gemm import choose_config

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import compile_time  # noqa: E402

sys.path.remove(str(ROOT / "benchmarks"))


def test_the_benchmark_reports_a_row_per_program(tmp_path, capsys):
    out = tmp_path / "rows.json"
    assert compile_time.main(["--only", "example: transpose", "--json", str(out)]) == 0
    import json

    rows = json.loads(out.read_text())
    assert [r["program"] for r in rows] == ["example: transpose.mlir", "example: transpose_odd.mlir"]
    assert all(r["cold_s"] > 0 and r["warm_s"] > 0 for r in rows)
    assert "example: transpose.mlir" in capsys.readouterr().out


def test_fast_canonicalize_gives_the_ir_of_xdsl_canonicalize():
    """tilec's `canonicalize` (passes/_canonicalize.py) must leave exactly the IR xDSL's
    pass leaves, on every program of the compile-time benchmark."""
    from xdsl.transforms.canonicalize import CanonicalizePass

    from tilec.compiler.pipeline import NAMED_PIPELINES, make_context
    from tilec.passes._canonicalize import Canonicalize

    passes = NAMED_PIPELINES["default"].split(",")
    last = len(passes) - 1 - passes[::-1].index("canonicalize")  # the default's last canonicalize
    before = ",".join(passes[:last])
    progs = compile_time.programs()
    assert len(progs) > 10
    for name, text in progs.items():
        ours = parse_module(text, name)
        run_pipeline(ours, before)
        theirs = ours.clone()
        Canonicalize().apply(make_context(), ours)
        CanonicalizePass().apply(make_context(), theirs)
        assert emit(ours, "mlir") == emit(theirs, "mlir"), name


def test_the_gemm_rows_split_the_first_call(tmp_path):
    """`--gemm`: a row per GEMM case with its parts and sizes (NVRTC compiles it; no
    seconds asserted), the K loops kept loops: one trip's wgmma in the PTX."""
    pytest.importorskip("cupy_backends.cuda.libs.nvrtc")
    import json

    out = tmp_path / "gemm.json"
    assert compile_time.main(["--gemm", "--only", "down M=128", "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())
    # the rule's configuration of `x @ w.t()` (B K-major): the swap of 128 columns split twice
    config = choose_config(128, 4096, 132, k=14336, b_kmajor=True)
    assert row["case"] == "down M=128" and row["config"] == config.name and config.swap_ab and config.split_k == 2
    assert all(row[k] > 0 for k in ("build_s", "passes_s", "emit_s", "nvrtc_s", "cuda_lines", "ptx_lines"))
    # 4 stages of 8 wgmma.m64n128k16 (bk 128), not one per K step
    assert row["ptx_wgmma"] == config.stages * config.bk // 16 == 4 * 8
