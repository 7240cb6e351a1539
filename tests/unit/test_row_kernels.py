"""The row kernels a user writes (examples/python/row_kernels.py: softmax, layer norm,
RMSNorm, cumsum with masked tiles, a run-time row count and `#layout.auto` layouts) give
NumPy's results at row lengths that are not powers of two, on the CPU reference executor
both as written and after the default pipeline (where `pack-rows` and `coalesce` choose
their layouts and `chunk-rows` makes a long cumsum a loop over chunks), and their CUDA
compiles with NVRTC."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects.auto_layout import AutoLayoutAttr

sys.path.insert(0, str(Path(__file__).parents[2] / "examples" / "python"))
sys.path.insert(0, str(Path(__file__).parents[1] / "helpers"))
import row_kernels as rk  # noqa: E402
from nvrtc import compile_sm90_or_skip  # noqa: E402


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _layer_norm(x, w, b, eps=1e-5):
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def _rms_norm(x, w, eps=1e-6):
    return x / np.sqrt((x * x).mean(axis=1, keepdims=True) + eps) * w


def _inputs(name: str, m: int, n: int, dtype: str):
    rng = np.random.default_rng(m * 7919 + n)
    nd = {"f32": np.float32, "f16": np.float16}[dtype]
    x = (rng.standard_normal((m, n)) * 3).astype(nd)
    args = {"src": x.ravel(), "dst": np.full(m * n, np.nan, nd), "m": m}
    xs = x.astype(np.float64)
    if name == "softmax":
        want = _softmax(xs)
    elif name == "layer_norm":
        args["weight"] = rng.standard_normal(n).astype(nd)
        args["bias"] = rng.standard_normal(n).astype(nd)
        want = _layer_norm(xs, args["weight"].astype(np.float64), args["bias"].astype(np.float64))
    elif name == "rms_norm":
        args["weight"] = rng.standard_normal(n).astype(nd)
        want = _rms_norm(xs, args["weight"].astype(np.float64))
    else:
        want = np.cumsum(xs, axis=1)  # summed in f32 by the kernel, rounded once per output
    return args, want


CASES = [
    ("softmax", 7, 1000, "f32"),
    ("softmax", 3, 1001, "f32"),
    ("softmax", 3, 1001, "f16"),
    ("softmax", 5, 50257, "f32"),  # rows in chunks (softmax_online)
    ("softmax", 9, 100, "f32"),  # short rows: several per block after pack-rows
    ("layer_norm", 7, 1000, "f32"),
    ("layer_norm", 3, 1001, "f16"),
    ("layer_norm", 9, 300, "f32"),
    ("rms_norm", 7, 1000, "f32"),
    ("rms_norm", 3, 3072, "f16"),
    ("cumsum", 7, 1000, "f32"),
    ("cumsum", 3, 1001, "f32"),
    ("cumsum", 3, 1001, "f16"),
    ("cumsum", 9, 100, "f32"),  # short rows: several per block after pack-rows
    ("rms_norm", 9, 100, "f16"),
]

CHUNKED = {"softmax": rk.softmax_online, "layer_norm": rk.layer_norm_chunked, "rms_norm": rk.rms_norm_chunked}


@pytest.mark.parametrize("name,m,n,dtype", CASES)
def test_row_kernel_matches_numpy_before_and_after_the_default_pipeline(name, m, n, dtype):
    program = rk.KERNELS[name](n, dtype)
    args, want = _inputs(name, m, n, dtype)
    tol = {"f32": 2e-5, "f16": 2e-3}[dtype]
    if name == "cumsum":
        tol *= 8  # a running sum over 1000 elements, rounded in another order
    lowered = program.module.clone()
    run_pipeline(lowered, "default")
    for module in (program.module, lowered):
        got = tilec.run_reference(module, args)["dst"].reshape(m, n).astype(np.float64)
        scale = np.abs(want).max()
        assert np.abs(got - want).max() <= tol * scale, (name, m, n, dtype)


@pytest.mark.parametrize("name", list(CHUNKED))
@pytest.mark.parametrize("n,dtype", [(5000, "f32"), (2500, "f16"), (4096, "f32")])
def test_chunked_row_kernel_matches_numpy(name, n, dtype):
    """The loops over chunks (as at N > ONLINE_ABOVE, here with chunks of 1024 so the
    rows stay small for the executor: 5 and 3 chunks, the last one partial; 4 whole ones)."""
    m = 3
    program = CHUNKED[name](n, dtype, chunk=1024)
    args, want = _inputs(name, m, n, dtype)
    tol = {"f32": 2e-5, "f16": 2e-3}[dtype]
    lowered = program.module.clone()
    run_pipeline(lowered, "default")
    for module in (program.module, lowered):
        got = tilec.run_reference(module, args)["dst"].reshape(m, n).astype(np.float64)
        assert np.abs(got - want).max() <= tol * np.abs(want).max(), (name, n, dtype)


def test_chunked_layer_norm_keeps_its_precision_far_from_zero():
    """Rows of mean 100 and deviation 1: each chunk's squares are taken about its own
    mean over its elements inside the row and merged (Chan's formula), so nothing
    cancels (a sum of squares less n mean^2 would lose 4 digits here)."""
    n, m = 5000, 2
    x = (np.random.default_rng(5).standard_normal((m, n)) + 100).astype(np.float32)
    args = {"src": x.ravel(), "dst": np.full(m * n, np.nan, np.float32), "m": m,
            "weight": np.ones(n, np.float32), "bias": np.zeros(n, np.float32)}
    xs = x.astype(np.float64)
    want = _layer_norm(xs, 1.0, 0.0)
    lowered = rk.layer_norm_chunked(n, chunk=1024).module.clone()
    run_pipeline(lowered, "default")
    got = tilec.run_reference(lowered, args)["dst"].reshape(m, n)
    assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()


def test_long_rows_choose_the_chunked_form():
    assert rk.softmax(rk.ONLINE_ABOVE + 1).name == "softmax_online"
    assert rk.layer_norm(50257).name == "layer_norm_chunked"
    assert rk.rms_norm(131072).name == "rms_norm_chunked"
    assert rk.cumsum(262144).name == "cumsum"  # one form: chunk-rows makes its loop


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_a_long_cumsum_is_chunked_by_the_compiler(dtype):
    """cumsum of rows of 40000 (a 65536 tile): `chunk-rows` makes it 10 chunks of 4096,
    the running total carried (in f32 for f16 rows: the conversions are chunked with the
    scan); the results are NumPy's after the default pipeline."""
    program = rk.cumsum(40000, dtype)
    module = program.module.clone()
    run_pipeline(module, "chunk-rows")
    text = emit(module)
    assert "tile = array<i64: 1, 4096>" in text and "scf.for" in text and "arith.constant 10 : index" in text
    args, want = _inputs("cumsum", 2, 40000, dtype)
    lowered = program.module.clone()
    run_pipeline(lowered, "default")
    got = tilec.run_reference(lowered, args)["dst"].reshape(2, 40000).astype(np.float64)
    assert np.abs(got - want).max() <= {"f32": 2e-5, "f16": 2e-3}[dtype] * np.abs(want).max()


def test_the_layouts_are_the_compilers():
    """The program states no layout; after the default pipeline's `coalesce` none is left
    open, and the 1000-wide f32 rows move 4 floats per access."""
    program = rk.softmax(1000)
    assert any(isinstance(getattr(r.type, "encoding", None), AutoLayoutAttr)
               for o in program.module.walk() for r in o.results)
    module = program.module.clone()
    run_pipeline(module, "expand-iterators,tile,order-grid,tma,distribute,pack-rows,coalesce,vectorize")
    text = emit(module)
    assert "#layout.auto" not in text
    assert "sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4]" in text
    assert "{vector = 4 : i64, uniform_mask}" in text  # one predicate per vector (1000 % 4 == 0)


WARPS = {  # (N, dtype) -> the warps `choose-warps` gives the user's softmax (docs/passes.md)
    (768, "f16"): 2, (1000, "f16"): 2, (1001, "f16"): 2, (3072, "f16"): 4, (8192, "f16"): 8, (50257, "f16"): 16,
    (768, "f32"): 4, (1000, "f32"): 4, (1001, "f32"): 4, (3072, "f32"): 8, (8192, "f32"): 16, (50257, "f32"): 16,
}
STASHED = {50257}
"""Rows the default pipeline reads once from a shared-memory stash (`stash-rereads`):
`choose-warps{stash_rows}` gives it the warps that fill the multiprocessor at the blocks
the stash leaves, at most 16 (f32: one block, f16: two; both 16 warps)."""


@pytest.mark.parametrize("n,dtype", list(WARPS))
def test_the_warps_are_the_compilers(n, dtype):
    """The programs leave their threads open (`threads(auto)`); `choose-warps` gives each
    thread at least 32 bytes of its row tile (64 past 4 warps): f16 rows get half the
    warps of the Triton tutorial's rule, f32 rows the same; a chunked row that the stash
    holds (N = 50257) the warps that fill a multiprocessor (`STASHED`)."""
    from tilec.dialects.layout import LaunchOp

    module = rk.softmax(n, dtype).module.clone()
    assert all(o.is_open for o in module.walk() if isinstance(o, LaunchOp))
    run_pipeline(module, "expand-iterators,tile,order-grid,tma,distribute,chunk-rows,pack-rows,choose-warps")
    (launch,) = [o for o in module.walk() if isinstance(o, LaunchOp)]
    assert not launch.is_open and launch.num_threads == 32 * WARPS[n, dtype]
    if n not in STASHED:
        tile = rk.next_pow2(n)
        assert WARPS[n, dtype] == (rk.num_warps(tile) if dtype == "f32" else rk.num_warps(tile) // 2)


@pytest.mark.parametrize("name", list(rk.KERNELS))
@pytest.mark.parametrize("n,rows", [(100, 8), (128, 8), (300, 2), (512, 2)])
def test_short_rows_are_packed_several_per_block(name, n, rows):
    """Every kernel of the benchmark gets several rows per block from `pack-rows` when
    its rows are short (N <= 512; f16 rows are half the bytes, so twice the rows)."""
    for dtype, k in (("f32", 1), ("f16", 2)):
        module = rk.KERNELS[name](n, dtype).module.clone()
        run_pipeline(module, "expand-iterators,tile,order-grid,tma,distribute,pack-rows,coalesce")  # the default's
        text = emit(module)
        assert f"tile = array<i64: {rows * k}, {rk.next_pow2(n)}>" in text and "arith.ceildivui %m" in text, (dtype,)


@pytest.mark.parametrize("name", list(rk.KERNELS))
def test_rows_past_512_stay_one_per_block(name):
    module = rk.KERNELS[name](768).module.clone()
    run_pipeline(module, "pack-rows")
    assert "tile = array<i64: 1, 1024>" in emit(module)


def test_one_program_serves_every_row_count():
    """M is a run-time argument: the CUDA of a (kernel, dtype, N) is one, whatever M."""
    module = rk.softmax(1000, "f16").module.clone()
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    assert "long long m)" in cuda


@pytest.mark.parametrize("name", list(rk.KERNELS))
@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
def test_row_kernel_cuda_compiles_with_nvrtc(name, dtype):
    module = rk.KERNELS[name](1000, dtype).module.clone()
    run_pipeline(module, "default")
    compile_sm90_or_skip(emit(module, "cuda"))


@pytest.mark.parametrize("name,n", [("softmax", n) for n in (768, 3072, 50257, 131072, 262144)]
                         + [(k, n) for k in ("layer_norm", "rms_norm", "cumsum") for n in (50257, 262144)])
def test_row_kernel_cuda_compiles_with_nvrtc_at_user_sizes(name, n):
    module = rk.KERNELS[name](n).module.clone()
    run_pipeline(module, "default")
    compile_sm90_or_skip(emit(module, "cuda"))


@pytest.mark.parametrize("n", [768, 1000, 3072, 50257])
def test_the_tuned_generators_say_where_any_n_is_handled(n):
    """benchmarks/compute_kernels.py tiles rows exactly: at other N it says so and names
    the user's kernels, instead of failing in a layout."""
    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    import compute_kernels as ck

    for make in (ck.softmax, ck.layer_norm, ck.cumsum):
        with pytest.raises(ValueError, match="row_kernels.py"):
            make(64, n)


@pytest.mark.parametrize("n", [768, 1000, 1001, 3072, 4096, 50257])
@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
def test_coalesce_gives_each_row_the_widest_aligned_vector(n, dtype):
    """The rows start at multiples of N elements from a 16-byte aligned pointer: the
    vector is the largest power of two v <= 16 bytes that divides N, whatever the tile."""
    from tilec.dialects.layout import LoadOp

    e = 4 if dtype == "f32" else 2
    want = 16 // e
    while n % want:
        want //= 2
    module = rk.softmax(n, dtype).module.clone()
    run_pipeline(module, "pack-rows,coalesce,vectorize")
    loads = [o for o in module.walk() if isinstance(o, LoadOp)]
    assert loads
    for o in loads:
        enc = o.result.type.encoding.data
        assert enc.size_per_thread == (1, want) and enc.threads_per_warp == (1, 32)
        assert (o.vector.value.data if o.vector is not None else 1) == want  # width 1: no `vector`


def test_launch_threads_are_a_count_a_shape_or_auto():
    """`threads="auto"` leaves the threads to `choose-warps`; any other string is the
    user's error, located at their line."""
    from tilec.compiler.builder import Program
    from tilec.support.diagnostics import TilecError

    p = Program("k")
    with pytest.raises(TilecError, match='threads is a count, a block shape or "auto", got \'many\'') as e:
        with p.launch(grid=(1, 1, 1), threads="many"):
            pass
    assert e.value.loc is not None and "test_row_kernels.py" in str(e.value.loc)


def test_the_warps_rule_in_bytes():
    """`choose-warps`' one rule (docs/passes.md): at least 32 bytes per thread, 64 past
    4 warps, 2 to 16 warps."""
    from tilec.passes.choose_warps import default_warps

    kib = 1024
    got = {b: default_warps(b) for b in (256, kib, 2 * kib, 4 * kib, 8 * kib, 16 * kib, 32 * kib, 64 * kib, 256 * kib)}
    assert got == {256: 2, kib: 2, 2 * kib: 2, 4 * kib: 4, 8 * kib: 4, 16 * kib: 8, 32 * kib: 16, 64 * kib: 16,
                   256 * kib: 16}
    assert default_warps(16 * kib, bytes_per_thread=64) == 4 and default_warps(64 * kib, max_warps=32) == 32
    assert default_warps(256, max_warps=1) == 1


def _small_integers(m: int, n: int, dtype):
    """Rows of integers in [-3, 3]: every prefix sum (at most 3 n) is exact in f32 and,
    below 2048, in f16, in any order of summation."""
    return np.random.default_rng(n).integers(-3, 4, (m, n)).astype(dtype)


@pytest.mark.parametrize("n,dtype", [(1001, "f32"), (1001, "f16"), (5001, "f16")])
def test_scan_vector_cumsum_is_exact(n, dtype):
    """`coalesce{scan_vector}` (the default) on cumsum rows that are only element-aligned (5001:
    chunked, here in chunks of 1024): the scan runs on 16-byte runs a thread with the
    scalar load and store through conversions; the results are NumPy's exactly."""
    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    import realistic_rows

    pipeline = realistic_rows.variant_pipeline("no-scan-vector").replace("coalesce{scan_vector=false}", "coalesce")
    pipeline = pipeline.replace("chunk-rows,", "chunk-rows{max_row=4096 chunk=1024},")
    m = 2
    nd = {"f32": np.float32, "f16": np.float16}[dtype]
    x = _small_integers(m, n, nd)
    program = rk.cumsum(n, dtype)
    lowered = program.module.clone()
    run_pipeline(lowered, pipeline)
    if n > 4096:
        assert "scf.for" in emit(lowered)
    cuda = emit(lowered, "cuda")
    assert "convert_layout via smem" in cuda
    got = tilec.run_reference(lowered, {"src": x.ravel(), "dst": np.full(m * n, np.nan, nd), "m": m})["dst"]
    want = np.cumsum(x.astype(np.float64), axis=1).astype(nd)
    assert np.array_equal(got.reshape(m, n), want)
    compile_sm90_or_skip(cuda)


@pytest.mark.parametrize("name", list(CHUNKED))
def test_reread_order_reverses_the_second_pass_and_changes_no_bit(name):
    """`reread-order` runs the second loop over chunks backwards (4 - j for 5 chunks of
    1024 of rows of 5000): each output computed as before, the CPU reference's results
    are the default pipeline's bit for bit; with `choose-warps{l2_rows}` too (rows of
    20 KB: 8 warps instead of 4) they are NumPy's within the usual tolerance."""
    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    import realistic_rows

    m, n = 3, 5000
    program = CHUNKED[name](n, "f32", chunk=1024)
    args, want = _inputs(name, m, n, "f32")
    outs = {}
    for variant in (None, "reread-order", "reread-l2"):
        lowered = program.module.clone()
        run_pipeline(lowered, "default" if variant is None else realistic_rows.variant_pipeline(variant))
        outs[variant] = tilec.run_reference(lowered, args)["dst"]
        if variant is not None:
            shaped = program.module.clone()
            run_pipeline(shaped, realistic_rows.variant_pipeline(variant).split(",coalesce,")[0])
            text = emit(shaped)
            assert "arith.constant 4 : index" in text and "arith.subi" in text
            assert ("threads(256)" if variant == "reread-l2" else "threads(128)") in text
    assert np.array_equal(outs[None], outs["reread-order"])
    got = outs["reread-l2"].reshape(m, n).astype(np.float64)
    assert np.abs(got - want).max() <= 2e-5 * np.abs(want).max()


def test_l2_rows_needs_the_targets_l2():
    """`choose-warps{l2_rows}` on a target whose L2 size is unknown (sm_86) keeps the
    bytes rule's warps; on sm_90 the two-pass rows of 50257 f16 take 32."""
    from tilec.passes.choose_warps import l2_row_warps
    from tilec.support.target import target

    program = rk.softmax_online(50257, "f16")
    module = program.module.clone()
    run_pipeline(module, "chunk-rows,pack-rows")
    launch = next(o for o in module.walk() if type(o).__name__ == "LaunchOp")
    assert l2_row_warps(launch, 4, target("sm_86")) == 4
    assert l2_row_warps(launch, 4, target("sm_90")) == 32
