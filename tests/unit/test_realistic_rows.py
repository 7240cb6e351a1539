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
    keys = rr.plan(sample=False)
    for kind in rr.KINDS:
        mine = [k for k in keys if k.kind == kind]
        assert {k.n for k in mine} == set(rr.COLS)  # every kernel at every N: long rows in chunks
        assert {k.dtype for k in mine} == {"f32", "f16", "bf16"}
    assert set(rr.KINDS) == {"softmax", "layer_norm", "rms_norm", "cumsum"}
    big = next(k for k in keys if k.kind == "softmax" and k.dtype == "f32" and k.n == 131072)
    assert big.rows == [1, 7, 4096] and big.skipped == [16384, 65536]
    for k in keys:
        assert sorted(k.rows + k.skipped) == sorted(rr.ROWS)
        assert all(2 * m * k.n * rr.ELEM_BYTES[k.dtype] <= rr.MAX_BYTES for m in k.rows)


def test_the_sampled_grid_is_every_n_at_one_m_and_every_m_at_two_n():
    keys = rr.plan()
    assert len(keys) == len(rr.KINDS) * 3 * len(rr.COLS)  # the same programs as the full grid
    for k in keys:
        want = rr.ROWS if k.n in rr.ALL_M_AT else (rr.SAMPLE_M,)
        assert sorted(k.rows + k.skipped) == sorted(want)
    # one kind is one command of the benchmark: about 50 cases
    assert 40 <= sum(len(k.rows) for k in keys if k.kind == "softmax") <= 60
    assert rr.plan(rows=(7,), cols=(128,), kinds=("cumsum",), dtypes=("f16",))[0].rows == [7]


@pytest.mark.parametrize("kind,dtype,n,program,rows", [
    ("softmax", "f16", 1000, "softmax", 1),
    ("softmax", "bf16", 131072, "softmax_online", 1),
    ("layer_norm", "f32", 128, "layer_norm", 8),
    ("layer_norm", "bf16", 50257, "layer_norm_chunked", 1),
    ("rms_norm", "f16", 768, "rms_norm", 1),
    ("rms_norm", "f32", 131072, "rms_norm_chunked", 1),
    ("cumsum", "bf16", 128, "cumsum", 16),
    ("cumsum", "f32", 50257, "cumsum", 1),  # chunked by the compiler
])
def test_dry_run_builds_and_lowers_the_benchmarks_programs(kind, dtype, n, program, rows):
    """The benchmark's program construction, without a GPU: each key's user program
    goes through the default pipeline to CUDA (so the benchmark cannot rot between GPU
    runs); short rows are packed, long rows are the chunked forms, aligned rows move
    16-byte vectors."""
    (got,) = rr.dry_run([rr.Key(kind, dtype, n)])
    assert got["program"] == program and got["rows_per_block"] == rows
    assert got["loop"] == (n > 16384) and (got["tile"] == 4096) == (n > 16384)
    if n % (16 // rr.ELEM_BYTES[dtype]) == 0:
        assert str(16 // rr.ELEM_BYTES[dtype]) in got["vectors"]


def test_dry_run_from_the_command_line(capsys):
    assert rr.main(["--dry-run", "--kinds", "cumsum", "--dtypes", "f16", "--cols", "1000,131072"]) == 0
    out = capsys.readouterr().out
    assert '"program": "cumsum"' in out and "2 programs, 6 cases, 0 skipped" in out


def test_one_compile_per_program_serves_every_row_count():
    """The row count is a run-time argument: compiling the program of a key once gives the
    kernel for every M (the benchmark calls it at each M): at most two NVRTC compiles,
    the kernel and its 32-bit twin (`tilec.compile`'s IndexWidthKernel, run while M x N
    fits), and asking again compiles nothing."""
    pytest.importorskip("cupy")
    key = rr.Key("softmax", "f16", 1000, rows=[1, 7, 4096])
    try:
        with rr.CompileCounter() as counter:
            first = rr.compile_key(key, arch="sm_90")
            again = rr.compile_key(key, arch="sm_90")
    except (ImportError, OSError) as e:
        pytest.skip(f"NVRTC unavailable: {e}")
    assert counter.count <= 2 and first is again
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
    assert ("NVRTC compiles: 2 for 2 tilec programs (one per kernel, dtype and N), serving 2 cases; "
            "0 programs served several M each, none compiled twice.") in text
    assert "Skipped (input + output above 8 GiB): softmax f32 N=131072 M=65536." in text
    assert "Not run" not in text
    assert "Not run (the run's time budget was spent): cumsum f32 N=8192 M=7." in rr.table(
        results, {}, [], ["cumsum f32 N=8192 M=7"])
    twice = rr.compile_line([_row(7, 1000, "f16", 1, 1), _row(4096, 1000, "f16", 1, 1)], {"softmax f16 N=1000": 2})
    assert "1 programs served several M each: softmax f16 N=1000: 2 compiles." in twice
    res = tmp_path / "results"
    res.mkdir()
    for name in ("strided_copy.json", "copy_programs.json", "compute.json", "gemm.json"):
        (res / name).write_text((report.RESULTS / name).read_text())
    monkeypatch.setattr(report, "RESULTS", res)
    assert "Row kernels at users' shapes" not in report.page()  # no result file yet: no section
    (res / "realistic_rows_softmax.json").write_text(json.dumps({
        "device": "NVIDIA H100", "date": "2026-11-28 10:00 UTC", "commit": "abc1234", "goal": 0.95,
        "results": results, "compiles": {"softmax f16 N=1000": 1}, "skipped": [],
        "command": "python benchmarks/realistic_rows.py --quick"}))
    cum = dict(_row(4096, 3072, "bf16", 0.9, 0.9), case="cumsum bf16 N=3072 M=4096", kind="cumsum")
    (res / "realistic_rows_cumsum.json").write_text(json.dumps({
        "device": "NVIDIA H100", "date": "2026-11-28 10:05 UTC", "commit": "abc1234", "goal": 0.95,
        "results": [cum], "compiles": {"cumsum bf16 N=3072": 1}, "skipped": [], "not_run": ["cumsum f32 N=128 M=7"],
        "command": "python benchmarks/realistic_rows.py --kinds cumsum"}))
    monkeypatch.setattr(report, "RESULTS", res)
    page = report.page()
    assert "## Row kernels at users' shapes" in page and "commit `abc1234`" in page
    assert "| softmax f16 N=1000 M=16384 |" in page and "| cumsum bf16 N=3072 M=4096 |" in page  # both files
    assert "`python benchmarks/realistic_rows.py --kinds cumsum`" in page
    assert "Not run (the run's time budget was spent): cumsum f32 N=128 M=7." in page


class _Launched:
    """A stand-in for a @triton.jit kernel: records `kernel[grid](*args, **meta)`."""

    def __init__(self, fn, log):
        self.name, self.log = fn.__name__, log

    def __getitem__(self, grid):
        return lambda *args, **meta: self.log.append((self.name, grid, args, meta))


class _Shape:
    def __init__(self, m, n):
        self.shape = (m, n)


@pytest.mark.parametrize("kind,n,kernel,meta", [
    ("softmax", 1000, "softmax_kernel", {"BLOCK": 1024, "num_warps": 4}),
    ("softmax", 131072, "softmax_online_kernel", {"CHUNK": 4096, "num_warps": 8}),
    ("layer_norm", 3072, "layer_norm_kernel", {"BLOCK": 4096, "num_warps": 8}),
    ("layer_norm", 50257, "layer_norm_chunked_kernel", {"CHUNK": 4096, "num_warps": 8}),
    ("rms_norm", 8192, "rms_norm_kernel", {"BLOCK": 8192, "num_warps": 16}),
    ("rms_norm", 50257, "rms_norm_chunked_kernel", {"CHUNK": 4096, "num_warps": 8}),
    ("cumsum", 128, "cumsum_kernel", {"BLOCK": 128, "num_warps": 4}),
    ("cumsum", 131072, "cumsum_chunked_kernel", {"CHUNK": 4096, "num_warps": 8}),  # tilec: chunk-rows
])
def test_triton_peer_is_the_same_program(monkeypatch, kind, n, kernel, meta):
    """Without Triton installed (a stand-in module records the launches): each case runs
    the Triton program of the same form as tilec's (chunked where tilec's is, above
    ONLINE_ABOVE) with the same block and warps, one program per row."""
    import types

    log = []
    triton = types.ModuleType("triton")
    triton.jit = lambda fn: _Launched(fn, log)
    triton.next_power_of_2 = rr.rk.next_pow2
    language = types.ModuleType("triton.language")
    triton.language = language
    monkeypatch.setitem(sys.modules, "triton", triton)
    monkeypatch.setitem(sys.modules, "triton.language", language)
    run = rr.triton_kernels()
    run(kind, _Shape(7, n), "y", "w", "b")
    (name, grid, _, got), = log
    assert (name, grid, got) == (kernel, (7,), meta)
    if kind != "cumsum":  # tilec's cumsum is one program for every N (the compiler makes its loop)
        assert rr.build(rr.Key(kind, "f32", n)).name == kernel.removesuffix("_kernel")


def test_variants_replace_one_pass_and_add_a_column():
    """`--variants`: each the default pipeline with passes given options, replaced or left
    out; a column each
    in the table ("=" where the variant's CUDA was the default's, so it was not timed)."""
    from tilec.compiler.pipeline import NAMED_PIPELINES

    default = NAMED_PIPELINES["default"].split(",")
    for name, changes in rr.VARIANTS.items():
        want = ",".join(q for p in default if (q := changes.get(p, p)))  # "": the pass left out
        assert rr.variant_pipeline(name) == want != ",".join(default), name
    # the default reads a two-pass row once (stash-rereads after choose-warps); no-stash twice
    assert default.index("stash-rereads") == default.index("choose-warps") + 1
    assert "stash-rereads" not in rr.variant_pipeline("no-stash").split(",")
    stash = rr.variant_pipeline("stash").split(",")
    assert stash.index("stash-rereads") < stash.index("choose-warps{stash_rows=false}") and stash.count("stash-rereads") == 1
    timed = dict(_row(16384, 50257, "f16", 0.2, 0.34), **{"no-scan-vector": {"ratio_same_bytes": 0.7, "us": 1.0}})
    text = rr.table([timed, _row(16384, 1000, "f16", 0.9, 0.8)], {}, [], variants=("no-scan-vector",))
    assert text.splitlines()[0].endswith("| goal | tilec no-scan-vector | tilec / best |")
    # the last column: the fastest of the default and the variants over the default (50 us against 1 us)
    assert text.splitlines()[2].endswith("| 0.70 (1.0 us) | 0.02 |") and text.splitlines()[3].endswith("| = | 1.00 |")
    assert rr.main(["--dry-run", "--kinds", "softmax", "--cols", "4096", "--rows", "16384", "--dtypes", "f16",
                    "--variants", "SWEEP"]) == 0
    with pytest.raises(SystemExit):
        rr.main(["--dry-run", "--variants", "no-such-variant"])


def test_dry_run_names_the_variants_that_change_a_program():
    """The no-scan-vector variant (the default's `coalesce{scan_vector}` off) changes
    cumsum at rows only element-aligned, not at 16-byte-aligned ones (nor any softmax);
    its CUDA compiles with NVRTC."""
    keys = rr.plan(("cumsum", "softmax"), ("f16",), (1000, 1001), (16384,))
    out = {d["key"]: d["variants_differ"] for d in rr.dry_run(keys, variants=("no-scan-vector",))}
    assert out == {"cumsum f16 N=1000": [], "cumsum f16 N=1001": ["no-scan-vector"],
                   "softmax f16 N=1000": [], "softmax f16 N=1001": []}
