"""On a GPU: the row kernels a user writes (examples/python/row_kernels.py, layouts and
warps left to `pack-rows`, `choose-warps` and `coalesce`) against PyTorch in float64 at awkward row lengths (100 and
300: short rows packed several per block; 768, 1000, 1001 (rows not 16-byte aligned),
3072; 50257 and 262144: loops over chunks), in f32, f16 and bf16, each compile serving
several row counts M (1, 7, 300).

Tolerances, per op: the largest |error| over a case, relative to the largest |result|
(`TOL`): f32 1e-5 (the math is f32), f16 2e-3 and bf16 1.6e-2 (the output's rounding,
2^-11 and 2^-8 relative, with room for the f32 math before it). cumsum is held to the
same bounds relative to the largest prefix sum of the case (a prefix sum near zero after
large terms has no relative accuracy to keep), with f32 at 2e-5 for the longer sums.
The reference is PyTorch in float64 on the inputs as rounded to the dtype.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import tilec

pytestmark = [pytest.mark.gpu, pytest.mark.torch]

sys.path.insert(0, str(Path(__file__).parents[2] / "examples" / "python"))
import row_kernels as rk  # noqa: E402

torch = pytest.importorskip("torch")

DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}
TOL = {"f32": 1e-5, "f16": 2e-3, "bf16": 1.6e-2}
CUMSUM_TOL = {"f32": 2e-5, "f16": 2e-3, "bf16": 1.6e-2}


def _reference(name, x, w, b):
    """The op in float64 on the rounded inputs."""
    x = x.double()
    if name == "softmax":
        return torch.softmax(x, dim=1)
    if name == "layer_norm":
        return torch.nn.functional.layer_norm(x, (x.shape[1],), w.double(), b.double(), 1e-5)
    if name == "rms_norm":
        return x * torch.rsqrt((x * x).mean(dim=1, keepdim=True) + 1e-6) * w.double()
    return torch.cumsum(x, dim=1)


def _check(name, dtype, n, rows, pipeline: str = "default"):
    kernel = tilec.compile(rk.KERNELS[name](n, dtype), pipeline)
    td = getattr(torch, DTYPES[dtype])
    for m in rows:  # one compile, every M
        g = torch.Generator(device="cuda").manual_seed(m * 31 + n)
        x = (torch.randn(m, n, device="cuda", generator=g) * 3).to(td)
        w = torch.randn(n, device="cuda", generator=g).to(td)
        b = torch.randn(n, device="cuda", generator=g).to(td)
        y = torch.full_like(x, float("nan"))
        args = [x, y] + ([w, b] if name == "layer_norm" else [w] if name == "rms_norm" else []) + [m]
        kernel(*args)
        torch.cuda.synchronize()
        want = _reference(name, x, w, b)
        assert not torch.isnan(y).any(), (name, dtype, n, m, "an output was not written")
        err = (y.double() - want).abs().max().item()
        scale = want.abs().max().item()
        tol = (CUMSUM_TOL if name == "cumsum" else TOL)[dtype]
        assert err <= tol * scale, (name, dtype, n, m, err, scale)


@pytest.mark.parametrize("n", [100, 300, 768, 1000, 1001, 3072, 50257])
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name", list(rk.KERNELS))
def test_row_kernel_matches_torch_in_float64(name, dtype, n):
    _check(name, dtype, n, (1, 7, 300))


@pytest.mark.parametrize("n", [768, 1001, 3072, 8192])
@pytest.mark.parametrize("dtype", ["f32", "f16"])
@pytest.mark.parametrize("name", list(rk.KERNELS))
def test_row_kernel_at_the_compilers_warps(name, dtype, n):
    """The warps `choose-warps` picks (f16: half the Triton tutorial's) and the index
    arithmetic of the emitted kernel, at the N of issue 37 and odd M (a last block of
    the grid that is not a multiple of anything)."""
    _check(name, dtype, n, (1, 7, 4097))


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
@pytest.mark.parametrize("name", list(rk.KERNELS))
def test_rows_of_256k_elements_in_one_kernel(name, dtype):
    """N = 262144: the loops over chunks of the examples, one kernel per row."""
    _check(name, dtype, 262144, (1, 5))


def test_one_compile_serves_every_row_count(monkeypatch):
    """The NVRTC compiles of one program (the disk cache off) while it runs at five M:
    exactly one."""
    from tilec.runtime import nvrtc

    calls = []
    orig = nvrtc.compile_cuda

    def counted(*a, **kw):
        calls.append(1)
        return orig(*a, **kw)

    monkeypatch.setenv("TILEC_CACHE", "0")
    monkeypatch.setattr(nvrtc, "compile_cuda", counted)
    _check("softmax", "f16", 1003, (1, 7, 64, 300, 4097))
    assert len(calls) == 1


@pytest.mark.parametrize("past", [False, True])
def test_the_index_width_follows_m_times_n(past):
    """softmax f16 over rows of 8192: up to M = 2^18 - 1 rows every offset fits in 32
    bits (the last element is 2^31 - 1) and the 32-bit kernel runs; one row more and the
    64-bit one does (the last row's offsets pass 2^31). The first and last rows are
    checked against PyTorch in float64 (8 GiB of input and output)."""
    from tilec.compiling import IndexWidthKernel

    n = 8192
    kernel = tilec.compile(rk.softmax(n, "f16"))
    assert isinstance(kernel, IndexWidthKernel) and kernel.limit == 2**18 - 1
    m = kernel.limit + (1 if past else 0)
    x = torch.randn(m, n, device="cuda", dtype=torch.float16)
    y = torch.full_like(x, float("nan"))
    assert kernel.specialization(x, y, m) is (kernel.generic if past else kernel.narrow)
    kernel(x, y, m)
    torch.cuda.synchronize()
    for rows in (slice(0, 2), slice(m - 3, m)):
        want = torch.softmax(x[rows].double(), dim=1)
        err = (y[rows].double() - want).abs().max().item()
        assert err <= TOL["f16"] * want.abs().max().item(), (m, rows, err)


@pytest.mark.parametrize("n", [768, 1001, 3072, 8192])
@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("name", list(rk.KERNELS))
def test_the_32_bit_twin_is_bit_exact(name, dtype, n):
    """The 32-bit kernel (`IndexWidthKernel.narrow`) and the 64-bit one compute the same
    arithmetic on the same elements: their outputs are equal bit for bit (M = 4097, odd)."""
    from tilec.compiling import IndexWidthKernel

    kernel = tilec.compile(rk.KERNELS[name](n, dtype))
    assert isinstance(kernel, IndexWidthKernel)
    m = 4097
    td = getattr(torch, DTYPES[dtype])
    g = torch.Generator(device="cuda").manual_seed(n + m)
    x = (torch.randn(m, n, device="cuda", generator=g) * 3).to(td)
    w = torch.randn(n, device="cuda", generator=g).to(td)
    b = torch.randn(n, device="cuda", generator=g).to(td)
    vecs = [w, b] if name == "layer_norm" else [w] if name == "rms_norm" else []
    outs = []
    for k in (kernel.narrow, kernel.generic):
        y = torch.full_like(x, float("nan"))
        k(x, y, *vecs, m)
        outs.append(y)
    torch.cuda.synchronize()
    assert not torch.isnan(outs[0]).any()
    assert torch.equal(outs[0].view(torch.int16 if dtype != "f32" else torch.int32),
                       outs[1].view(torch.int16 if dtype != "f32" else torch.int32))


def _variant(name: str) -> str:
    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    import realistic_rows

    return realistic_rows.variant_pipeline(name)


@pytest.mark.parametrize("n", [1001, 50257])
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_scan_vector_cumsum_of_unaligned_rows(dtype, n):
    """`coalesce{scan_vector}` (the default; off: benchmarks/realistic_rows.py's variant
    `no-scan-vector`, checked too): rows only element-aligned, scanned in 16-byte runs
    a thread, the scalar loads and stores through shared-memory conversions; N = 50257
    in chunks."""
    _check("cumsum", dtype, n, (1, 7, 300))
    _check("cumsum", dtype, n, (1, 7, 300), _variant("no-scan-vector"))


@pytest.mark.parametrize("variant", ["reread-order", "l2-rows", "reread-l2", "reread-hints", "reread-l2-hints",
                                     "reread-prefetch", "reread-l2-prefetch"])
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name", ["softmax", "layer_norm", "rms_norm"])
def test_two_pass_rows_under_the_l2_variants(name, dtype, variant):
    """The two-pass long rows (N = 50257: 13 chunks, the last partial) with the second
    loop backwards (`reread-order`) and/or 32 warps (`choose-warps{l2_rows}`), and with
    L2 eviction priorities on the loops' loads and stores (`reread-order{cache_hints}`:
    PTX `createpolicy` / `.L2::cache_hint` accesses, scalar at these unaligned rows) and
    the row prefetched into L2 first (`reread-order{prefetch}`: an unaligned row's
    16-byte interior)."""
    _check(name, dtype, 50257, (1, 7, 300), _variant(variant))


@pytest.mark.parametrize("variant", ["reread-hints", "reread-l2-hints", "reread-l2-prefetch"])
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name", ["softmax", "layer_norm", "rms_norm"])
def test_two_pass_aligned_rows_with_l2_hints(name, dtype, variant):
    """Rows of 24576 (16-byte aligned: 6 chunks, hinted 16-byte vector loads and
    stores, `tilec_ld_l2` / `tilec_st_l2` moving `uint4`s) under the eviction priorities."""
    _check(name, dtype, 24576, (1, 7, 300), _variant(variant))


@pytest.mark.parametrize("n", [1001, 8192])
@pytest.mark.parametrize("name", list(rk.KERNELS))
def test_rows_at_the_warps_bytes16_variant(name, n):
    """`choose-warps{bytes=16}` (f16 N = 8192: 16 warps)."""
    _check(name, "f16", n, (1, 7, 4097), _variant("warps-bytes16"))


@pytest.mark.parametrize("n", [50257, 24576])
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name", ["softmax", "layer_norm", "rms_norm"])
def test_two_pass_rows_with_and_without_the_stash(name, dtype, n):
    """The two-pass long rows with the second loop reading the shared-memory stash the
    first filled (`stash-rereads`, the `stash` variant: 50257, rows unaligned, the last chunk
    partial; 24576, 16-byte rows, vector accesses to the stash) and without it
    (`no-stash`); rows of 50257 f32 take 208 KiB of a block's 227."""
    _check(name, dtype, n, (1, 7, 300), _variant("no-stash"))
    _check(name, dtype, n, (1, 7, 300), _variant("stash"))


@pytest.mark.parametrize("n", [50257, 24576, 131072])
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name", ["softmax", "layer_norm", "rms_norm"])
def test_two_pass_rows_with_the_window_stash(name, dtype, n):
    """The two-pass long rows with the row copied into a shared-memory stash by 16-byte
    cp.async of its address-aligned window before the loops (the default: `stash-rereads`
    after `choose-warps{stash_rows}`; 50257, rows unaligned, the last row's tail copied
    element by element; 24576, 16-byte rows, the stash the row; 131072: no stash, or
    with `partial` its first chunks), at 16 warps, at 32 (`stash-window-w32`), the whole
    window before the first loop (`stash-one-wait`; the default overlaps the two), and
    read twice (`no-stash`)."""
    _check(name, dtype, n, (1, 7, 300))
    _check(name, dtype, n, (1, 7), _variant("stash-window-w32"))
    _check(name, dtype, n, (1, 7), _variant("stash-one-wait"))
    _check(name, dtype, n, (1, 7), _variant("no-stash"))
    if n == 131072:
        _check(name, dtype, n, (1, 7), _variant("stash-partial"))
