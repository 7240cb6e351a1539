"""The CPU parts of benchmarks/realistic_rows.py: the shapes it runs (and the ones it
skips), one NVRTC compile per (kernel, dtype, N) whatever the row counts, the verdict and
table it writes, and the report section made from a result file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests" / "helpers"))
import realistic_rows as rr  # noqa: E402
import report  # noqa: E402


def test_plan_covers_the_issues_shapes_and_skips_what_does_not_fit():
    keys = rr.plan()
    softmax = [k for k in keys if k.kind == "softmax"]
    assert {k.n for k in softmax} == set(rr.COLS)
    assert {k.dtype for k in softmax} == {"f32", "f16", "bf16"}
    # layer norm and RMSNorm stop where only softmax has a chunked form
    assert max(k.n for k in keys if k.kind != "softmax") <= 16384
    big = next(k for k in keys if k.kind == "softmax" and k.dtype == "f32" and k.n == 131072)
    assert big.rows == [1, 7, 4096] and big.skipped == [16384, 65536]
    for k in keys:
        assert sorted(k.rows + k.skipped) == sorted(rr.ROWS)
        assert all(2 * m * k.n * rr.ELEM_BYTES[k.dtype] <= rr.MAX_BYTES for m in k.rows)


def test_one_compile_per_program_serves_every_row_count():
    """The row count is a run-time argument: compiling the program of a key once gives the
    kernel for every M (the benchmark calls it at each M), and asking again compiles
    nothing."""
    pytest.importorskip("cupy")
    key = rr.Key("softmax", "f16", 1000, rows=[1, 7, 4096])
    try:
        with rr.CompileCounter() as counter:
            first = rr.compile_key(key, arch="sm_90")
            again = rr.compile_key(key, arch="sm_90")
    except (ImportError, OSError) as e:
        pytest.skip(f"NVRTC unavailable: {e}")
    assert counter.count <= 1 and first is again
    assert first.cubin


def _row(m, n, dtype, tilec, triton, memcpy_us=10.0):
    def peer(ratio):
        return {"tbps": 3.0 * ratio, "ratio_same_bytes": ratio, "ratio": ratio, "us": memcpy_us / ratio,
                "spread": 0.01, "timing": "graph"}

    return {"case": f"softmax {dtype} N={n} M={m}", "kind": "softmax", "dtype": dtype, "n": n, "m": m,
            "bytes": 2 * m * n * rr.ELEM_BYTES[dtype], "memcpy_same_bytes_tbps": 3.0, "memcpy_us": memcpy_us,
            "tilec": peer(tilec), "torch": peer(0.9), "triton": peer(triton), "tilec_ok": True}


def test_verdicts():
    assert rr.verdict(_row(16384, 8192, "f32", 0.97, 0.96)) == "yes"
    assert rr.verdict(_row(16384, 8192, "f32", 0.93, 0.90)) == "no"
    assert rr.verdict(_row(16384, 8192, "f32", 0.97, 0.99)) == "no, below Triton"
    assert rr.verdict(_row(7, 8192, "f32", 0.2, 0.1)) == "launch floor"
    assert rr.verdict(_row(16384, 1000, "f32", 0.9, 0.8)) == "yes (rows < 16 KiB: vs Triton only)"
    bad = dict(_row(16384, 8192, "f32", 0.97, 0.96), tilec_ok=False)
    del bad["tilec"]
    assert rr.verdict(bad) == "no (tilec wrong or failed)"


def test_table_and_report_section(tmp_path, monkeypatch):
    results = [_row(16384, 1000, "f16", 0.8, 0.78), _row(7, 50257, "f32", 0.1, 0.1)]
    text = rr.table(results, {"softmax f16 N=1000": 1, "softmax f32 N=50257": 1}, ["softmax f32 N=131072 M=65536"])
    assert "| softmax f16 N=1000 M=16384 | 65536000 | 3.00 TB/s, 10.0 us | 0.80 (12.5 us) |" in text
    assert "softmax f16 N=1000: 1, softmax f32 N=50257: 1" in text
    assert "Skipped (input + output above 4 GiB): softmax f32 N=131072 M=65536." in text
    res = tmp_path / "results"
    res.mkdir()
    for name in ("strided_copy.json", "copy_programs.json", "compute.json", "gemm.json"):
        (res / name).write_text((report.RESULTS / name).read_text())
    assert "Row kernels at users' shapes" not in report.page()  # no result file yet: no section
    (res / "realistic_rows.json").write_text(json.dumps({
        "device": "NVIDIA H100", "date": "2026-11-28 10:00 UTC", "commit": "abc1234", "goal": 0.95,
        "results": results, "compiles": {"softmax f16 N=1000": 1}, "skipped": [],
        "command": "python benchmarks/realistic_rows.py --quick"}))
    monkeypatch.setattr(report, "RESULTS", res)
    page = report.page()
    assert "## Row kernels at users' shapes" in page and "commit `abc1234`" in page
    assert "| softmax f16 N=1000 M=16384 |" in page
