"""tilec.copy_ / contiguous / permute on the GPU: PyTorch tensors compared bit for bit
with PyTorch's own `copy_` (outputs poisoned first), CuPy arrays (negative strides),
launches on the framework's current stream, and refused requests that write nothing.

    python -m pytest -m "gpu or torch" tests/gpu/test_tensor_copy_gpu.py
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers.canonical_copies import key_strategy
from helpers.torch_gpu import torch_cuda

import tilec
from tilec.copy_kernels import CopyKernels
from tilec.support.diagnostics import TilecError

pytestmark = pytest.mark.gpu

DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]
FLOATS = {"float16", "bfloat16", "float32", "float64"}


def _random(torch, dtype, shape, gen, small=False):
    """Random values of `dtype`; `small` keeps floats inside every integer type's
    range (float -> int conversions out of range are undefined, in PyTorch too)."""
    t = getattr(torch, dtype)
    if dtype == "bool":
        return torch.rand(shape, generator=gen, device="cuda") > 0.5
    if dtype in FLOATS:
        x = torch.randn(shape, generator=gen, device="cuda") * (30 if small else 1000)
        if small:
            x = x.clamp(-120, 120)
        else:
            x.view(-1)[:4] = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0])
        return x.to(t)
    info = torch.iinfo(t)
    return torch.randint(info.min, info.max, shape, generator=gen, device="cuda", dtype=t)


def _bits(torch, x):
    """A tensor's bits, to compare NaNs and signed zeros exactly."""
    size = x.element_size()
    view = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[size]
    return x.contiguous().view(view) if x.dtype != torch.bool else x.contiguous().view(torch.uint8)


def _poison(torch, x):
    """Fill `x` with 77 (True for bool): an element a copy forgets keeps it."""
    x.copy_(torch.full(x.shape, 77, device="cuda").to(x.dtype))
    return x


def _cases(torch, gen):
    """(name, make_src(dtype), dst_shape, dst_view) for strided patterns."""
    yield "permute3", (lambda d: _random(torch, d, (37, 64, 19), gen, True).permute(2, 0, 1)), None
    yield "nhwc_nchw", (lambda d: _random(torch, d, (2, 56, 56, 24), gen, True).permute(0, 3, 1, 2)), None
    yield "slice_step", (lambda d: _random(torch, d, (129, 301), gen, True)[3::2, 5:290:3]), None
    yield "broadcast", (lambda d: _random(torch, d, (1, 77, 1), gen, True)), (31, 77, 5)
    yield "transpose_odd", (lambda d: _random(torch, d, (1021, 1027), gen, True).t()), None
    yield "rank6", (lambda d: _random(torch, d, (3, 4, 5, 2, 3, 7), gen, True).permute(5, 3, 1, 0, 4, 2)), None
    yield "scalar", (lambda d: _random(torch, d, (), gen, True)), None


def _check_against_torch(torch, make_src, shape, src_dtype, dst_dtype, name):
    """tilec.copy_ into a strided, offset window of a poisoned tensor, against
    PyTorch's copy_ into a clone of it: every byte, inside the window and out."""
    src = make_src(src_dtype)
    shape = shape or tuple(src.shape)
    big = torch.empty((*shape[:-1], shape[-1] + 3) if shape else (4,), device="cuda",
                      dtype=getattr(torch, dst_dtype))
    dst = big[..., 1 : 1 + shape[-1]] if shape else big[1]
    _poison(torch, big)
    want = big.clone()
    want_view = want[..., 1 : 1 + shape[-1]] if shape else want[1]
    want_view.copy_(src)
    tilec.copy_(dst, src)
    torch.cuda.synchronize()
    assert torch.equal(_bits(torch, big), _bits(torch, want)), (name, src_dtype, dst_dtype)


@pytest.mark.torch
@pytest.mark.parametrize("src_dtype", DTYPES)
def test_every_dtype_pair_matches_torch_bit_for_bit(src_dtype):
    """All 100 dtype pairs on a sliced transpose of odd extents (one kernel each)."""
    torch = torch_cuda()
    gen = torch.Generator(device="cuda").manual_seed(DTYPES.index(src_dtype))
    for dst_dtype in DTYPES:
        make = lambda d: _random(torch, d, (301, 517), gen, True)[5:, 3::2].t()
        _check_against_torch(torch, make, None, src_dtype, dst_dtype, "sliced transpose")


@pytest.mark.torch
@pytest.mark.parametrize("pair", [("float32", "float32"), ("float32", "bfloat16"), ("uint8", "float16"),
                                  ("float64", "int8"), ("bool", "int64")])
def test_strided_patterns_match_torch_bit_for_bit(pair):
    """Permutes (rank 3, NHWC -> NCHW, rank 6), slices with steps, broadcasts, a 0-d
    tensor, an odd transpose, for a few dtype pairs."""
    torch = torch_cuda()
    src_dtype, dst_dtype = pair
    gen = torch.Generator(device="cuda").manual_seed(DTYPES.index(src_dtype) * 16 + DTYPES.index(dst_dtype))
    for name, make_src, shape in _cases(torch, gen):
        _check_against_torch(torch, make_src, shape, src_dtype, dst_dtype, name)


@pytest.mark.torch
def test_float_specials_and_rounding_match_torch():
    torch = torch_cuda()
    x = torch.tensor([1 + 2**-11, 1 + 3 * 2**-11, float("nan"), float("inf"), -float("inf"),
                      65520.0, -0.0, 3.4e38, 1e-40], dtype=torch.float64, device="cuda")
    for dt in (torch.float16, torch.bfloat16, torch.float32):
        out = torch.empty(x.shape, dtype=dt, device="cuda")
        tilec.copy_(out, x)
        assert torch.equal(_bits(torch, out), _bits(torch, x.to(dt)))


@pytest.mark.torch
def test_contiguous_and_permute_return_torch_tensors():
    torch = torch_cuda()
    x = torch.randn(8, 16, 32, device="cuda").to(torch.bfloat16)
    y = tilec.permute(x, (2, 0, 1))
    assert isinstance(y, torch.Tensor) and y.is_contiguous()
    assert torch.equal(_bits(torch, y), _bits(torch, x.permute(2, 0, 1)))
    z = tilec.contiguous(x[:, ::2].transpose(0, 1))
    assert torch.equal(_bits(torch, z), _bits(torch, x[:, ::2].transpose(0, 1)))


@pytest.mark.torch
def test_runs_on_torch_current_stream():
    """A long kernel queued first on a side stream writes src; tilec.copy_ on that
    stream must see the write (on another stream it would copy the old values)."""
    torch = torch_cuda()
    src = torch.zeros(1 << 20, device="cuda")
    dst = torch.full((1 << 20,), -1.0, device="cuda")
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(200_000_000)  # ~0.1 s of spinning on the side stream
        src.fill_(5.0)
        tilec.copy_(dst, src)
    side.synchronize()
    assert bool((dst == 5.0).all())


def test_runs_on_cupy_current_stream():
    cp = pytest.importorskip("cupy")
    spin = cp.RawKernel(
        r'''extern "C" __global__ void spin(float* x, long long cycles) {
              long long t = clock64(); while (clock64() - t < cycles) {} x[0] = 5.0f; }''',
        "spin",
    )
    src = cp.zeros(1 << 20, cp.float32)
    dst = cp.full(1 << 20, -1.0, cp.float32)
    cp.cuda.Device().synchronize()
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        spin((1,), (1,), (src, np.int64(200_000_000)))
        tilec.copy_(dst, src)
    stream.synchronize()
    assert float(dst[0]) == 5.0


def test_cupy_negative_strides_and_offsets():
    cp = pytest.importorskip("cupy")
    rng = cp.random.default_rng(0)
    x = rng.standard_normal((63, 47), dtype=cp.float32)
    for src in (x[::-1], x[:, ::-2], x.T[::-3, 5:], x[10:50:3, ::-1].T):
        out = cp.full(src.shape, cp.nan, cp.float32)
        tilec.copy_(out, src)
        assert bool(cp.array_equal(out, src))
        out2 = cp.full(src.shape[::-1], cp.nan, cp.float32).T[::-1]  # negative dst strides
        tilec.copy_(out2, src)
        assert bool(cp.array_equal(out2, src))
    assert bool(cp.array_equal(tilec.permute(x, (1, 0)), x.T))
    y = tilec.contiguous(x[::-1].astype(cp.float16))
    assert isinstance(y, cp.ndarray) and y.flags.c_contiguous


def test_cuda_array_interface_and_dlpack_objects():
    cp = pytest.importorskip("cupy")

    class Wrapped:
        def __init__(self, a):
            self.__cuda_array_interface__ = a.__cuda_array_interface__

    x = cp.arange(100, dtype=cp.int32).reshape(10, 10)
    out = cp.zeros((10, 10), cp.int32)
    tilec.copy_(Wrapped(out), Wrapped(x.T))
    cp.cuda.Device().synchronize()
    assert bool(cp.array_equal(out, x.T))


def test_bad_input_writes_nothing():
    cp = pytest.importorskip("cupy")
    dst = cp.zeros((4, 5), cp.float32)
    with pytest.raises(TilecError, match="does not broadcast"):
        tilec.copy_(dst, cp.ones((4, 6), cp.float32))
    with pytest.raises(TilecError, match="unsupported dtype complex64"):
        tilec.copy_(dst, cp.ones((4, 5), cp.complex64))
    with pytest.raises(TilecError, match="NumPy \\(host\\) array"):
        tilec.copy_(dst, np.ones((4, 5), np.float32))
    overlapping = cp.lib.stride_tricks.as_strided(dst, (4, 5), (4, 4))
    with pytest.raises(TilecError, match="overlapping elements"):
        tilec.copy_(overlapping, cp.ones((4, 5), cp.float32))
    cp.cuda.Device().synchronize()
    assert not bool(dst.any())


@pytest.mark.torch
def test_torch_cpu_tensors_and_other_devices_are_refused():
    torch = torch_cuda()
    with pytest.raises(TilecError, match="PyTorch CPU tensor"):
        tilec.copy_(torch.zeros(4, device="cuda"), torch.zeros(4))
    if torch.cuda.device_count() > 1:
        with pytest.raises(TilecError, match="different|device 0 and src on device 1"):
            tilec.copy_(torch.zeros(4, device="cuda:0"), torch.zeros(4, device="cuda:1"))
    dst = torch.zeros(4, 5, device="cuda")
    with pytest.raises(TilecError, match="overlapping elements"):
        tilec.copy_(dst[:1].expand(4, 5), torch.ones(4, 5, device="cuda"))
    torch.cuda.synchronize()
    assert not bool(dst.any())


def test_partial_overlap_goes_through_a_temporary():
    cp = pytest.importorskip("cupy")
    x = cp.arange(64 * 64, dtype=cp.float32).reshape(64, 64)
    want = x.T.copy()
    tilec.copy_(x, x.T)
    assert bool(cp.array_equal(x, want))


def test_100_shapes_of_one_pattern_compile_a_handful_of_kernels():
    cp = pytest.importorskip("cupy")
    kernels = CopyKernels()
    from tilec.tensor_copy import copy_

    rng = np.random.default_rng(5)
    for _ in range(100):
        m, n = (int(v) for v in rng.integers(65, 700, size=2))
        off = int(rng.integers(0, 4))
        x = cp.arange(m * n + off, dtype=cp.float32)[off:].reshape(n, m)
        out = cp.empty((m, n), cp.float32)
        copy_(out, x.T, kernels=kernels)
        assert bool(cp.array_equal(out, x.T))
    # each view 16-byte vectorizable (pointer and row stride) or not, times each extent a
    # multiple of the vector or not (CopyKey.extent_divisors)
    assert kernels.stats.compiles <= 4 * 4, kernels.stats


@pytest.mark.torch
@pytest.mark.parametrize("force", ["auto", "always"])
@pytest.mark.parametrize("inbounds", [None, 1])
def test_gather_kernel_matches_torch_bit_for_bit(force, inbounds, monkeypatch, routes):
    """Copies into contiguous dsts with short odd rows, which the gather strategy
    (the copy-strategy pass, passes/_gather_tile.py) takes: the strided set's cases 20, 24, 26, 32, 35 and 47 at a few
    MiB, with and without conversions; forced (`always`), also into a padded dst (dst
    offsets computed, scalar stores) and with 64-bit offsets (a lowered limit); by the
    default loads and with `inbounds=1` (unmasked loads, in bounds by construction)."""
    from tilec import copy_plan
    from tilec.tensor_copy import copy_

    torch = torch_cuda()
    routes(gather=force, inbounds=inbounds)
    gen = torch.Generator(device="cuda").manual_seed(20)
    cases = [
        ("uint8", "uint8", lambda d: _random(torch, d, (1, 259), gen, True), (4099, 259)),
        ("int32", "int32", lambda d: _random(torch, d, (131, 25, 19, 17), gen, True).permute(0, 1, 3, 2), None),
        ("float32", "float32", lambda d: _random(torch, d, (1, 209, 1), gen, True), (8, 209, 137)),
        ("bfloat16", "bfloat16", lambda d: _random(torch, d, (1, 7757, 1), gen, True), (33, 7757, 3)),
        ("uint8", "int8", lambda d: _random(torch, d, (5, 37, 7379), gen, True).permute(1, 2, 0), None),
        ("uint8", "float64", lambda d: _random(torch, d, (17, 11151), gen, True).t(), None),
        ("int16", "float32", lambda d: _random(torch, d, (97, 19, 17), gen, True).permute(0, 2, 1), None),
    ]
    for limit in (copy_plan.INDEX32_LIMIT, 1000) if force == "always" else (copy_plan.INDEX32_LIMIT,):
        monkeypatch.setattr(copy_plan, "INDEX32_LIMIT", limit)
        for sd, dd, make, shape in cases:
            kernels = CopyKernels(disk=False)
            src = make(sd)
            shape = shape or tuple(src.shape)
            out = _poison(torch, torch.empty(shape, dtype=getattr(torch, dd), device="cuda"))
            copy_(out, src, kernels=kernels)
            want = torch.empty_like(out).copy_(src)
            torch.cuda.synchronize()
            assert torch.equal(_bits(torch, out), _bits(torch, want)), (sd, dd, shape)
            keys = list(kernels._entries)
            if force == "auto" and (sd, dd) == ("uint8", "int8"):
                # rows of 5 bytes: the box strategy's (its plan states the misalignments)
                assert len(keys) == 1 and keys[0].aligned_pointers
                continue
            if force == "auto" and (sd, dd) == ("uint8", "uint8"):
                # rows of 259 bytes from one row: padded rows (259 of a 512 ceiling,
                # `_copy_cost.padded_last`), gathered with the row's length exact
                assert len(keys) == 1 and key_strategy(keys[0]) == "gather" and keys[0].exact_extents[-1]
                continue
            assert len(keys) == 1 and key_strategy(keys[0]) == "gather" and keys[0].dst_flat
            assert keys[0].index_bits == (32 if limit > 1000 else 64)
        if force == "always":  # a padded dst: rows of 5 in rows of 8
            big = _poison(torch, torch.empty((3001, 8), dtype=torch.int64, device="cuda"))
            src = _random(torch, "int64", (3001, 5), gen, True)
            want = big.clone()
            want[:, 1:6].copy_(src)
            kernels = CopyKernels(disk=False)
            copy_(big[:, 1:6], src, kernels=kernels)
            torch.cuda.synchronize()
            assert torch.equal(big, want)
            assert [k.dst_flat for k in kernels._entries] == [False]


@pytest.mark.torch
@pytest.mark.parametrize("runs", [1, 2])
def test_gather_bytes_kernels_match_torch_bit_for_bit(runs, routes):
    """The `tile` pass's `gather_bytes=32` (pc49: a gather run a whole destination sector,
    two vector stores a run): 47's kind made small (uint8 -> float64 rows of 17), a
    converting permute into rows of 17 f32 and a 2-byte broadcast, forced through the
    gather with 1 and 2 runs a thread, bit for bit against PyTorch, outputs poisoned first."""
    from tilec.compiler.pipeline import expand_pipeline
    from tilec.tensor_copy import copy_

    torch = torch_cuda()
    routes(gather="always")
    tile = f"tile{{runs={runs} gather_bytes=32}}"
    pipeline = ",".join(tile if p == "tile" else p for p in expand_pipeline("default").split(","))
    gen = torch.Generator(device="cuda").manual_seed(49)
    cases = [
        ("uint8", "float64", lambda d: _random(torch, d, (17, 11151), gen, True).t(), None),
        ("int16", "float32", lambda d: _random(torch, d, (97, 19, 17), gen, True).permute(0, 2, 1), None),
        ("bfloat16", "bfloat16", lambda d: _random(torch, d, (1, 7757, 1), gen, True), (33, 7757, 3)),
    ]
    for sd, dd, make, shape in cases:
        kernels = CopyKernels(disk=False, pipeline=pipeline)
        src = make(sd)
        shape = shape or tuple(src.shape)
        out = _poison(torch, torch.empty(shape, dtype=getattr(torch, dd), device="cuda"))
        copy_(out, src, kernels=kernels)
        want = torch.empty_like(out).copy_(src)
        torch.cuda.synchronize()
        assert torch.equal(_bits(torch, out), _bits(torch, want)), (sd, dd, shape, runs)
        assert [key_strategy(k) for k in kernels._entries] == ["gather"]


@pytest.mark.torch
def test_strided_set_patterns_in_small_match_torch_bit_for_bit():
    """The strategies and tiles the `copy-strategy` and `tile` passes choose from the
    facts of copy programs, on the strided set's cases 42, 36, 29, 30, 23, 02, 38 and 20
    made small, and 16 (rows of 254 int16 into rows of 256 at an odd offset), bit for
    bit against PyTorch, outputs poisoned first, padded dsts compared whole. Each copy
    compiles one kernel (`tilec.copy_`'s implementation with kernels of its own), of
    the strategy the CPU test pins (tests/unit/test_strided_set_small.py, on the
    reference executor)."""
    from tilec.copy_program import pass_tile
    from tilec.tensor_copy import copy_

    torch = torch_cuda()
    gen = torch.Generator(device="cuda").manual_seed(42)
    cases = [
        # 42: rows of 17 bytes in steps of 19: the box's rows flavour (passes/_box_tile.py)
        ("int8", "int8", lambda d: _random(torch, d, (6, 37, 9, 19, 17), gen, True).permute(2, 4, 0, 1, 3), None,
         "box<rows>"),
        # a rank-6 permute of 1-byte elements (case 36): tiled, the stride-1 mode being its slowest
        # (`_copy_cost.sector_use`: no re-read factor without a slower mode; 0.086 of cudaMemcpy
        # against the gather's 0.023 on the H200)
        ("int8", "int8", lambda d: _random(torch, d, (21, 7, 12, 5, 31, 19), gen, True).permute(5, 2, 4, 1, 3, 0),
         None, "tiled"),
        # converting transposes of 1- and 2-byte source elements, both contiguous modes long
        # (23): the converting box<tiles> (`_copy_cost.TILES_CONVERT_BYTES`)
        ("float16", "bfloat16", lambda d: _random(torch, d, (42, 3, 5, 7, 181), gen, True).permute(4, 2, 3, 0, 1),
         None, "box<tiles>"),
        # 30: columns of 19 bools from a flat (n, 19): the box's cols flavour
        ("bool", "bool", lambda d: _random(torch, d, (19, 100003), gen, True).t(), None, "box<cols>"),
        ("bool", "int16", lambda d: _random(torch, d, (1700, 2850), gen, True).t(), None, "box<tiles>"),
        ("int16", "int16", lambda d: _random(torch, d, (1, 41440), gen, True), (45, 41440), "gather"),
        # 38: a misaligned broadcast into compact rows of 2246 bytes: realign's run form
        ("bfloat16", "bfloat16", lambda d: _random(torch, d, (1, 5, 1, 1123), gen, True), (3, 5, 7, 1123), "realign"),
        # 20: rows of 259 bytes broadcast from one row (a padded row of 65-512: gathered)
        ("uint8", "uint8", lambda d: _random(torch, d, (1, 259), gen, True), (450, 259), "gather"),
    ]
    for sd, dd, make, shape, strategy in cases:
        src = make(sd)
        shape = shape or tuple(src.shape)
        out = _poison(torch, torch.empty(shape, dtype=getattr(torch, dd), device="cuda"))
        kernels = CopyKernels(disk=False)
        copy_(out, src, kernels=kernels)
        want = torch.empty_like(out).copy_(src)
        torch.cuda.synchronize()
        assert torch.equal(_bits(torch, out), _bits(torch, want)), (sd, dd, shape)
        keys = list(kernels._entries)
        assert [key_strategy(k) for k in keys] == [strategy], (sd, dd, shape)
        # box and realign plans take their pointers aligned down to 16 bytes (`CopyKey.aligned_pointers`);
        # every other strategy's tile is the `tile` pass's
        aligned = strategy.startswith("box") or strategy == "realign"
        assert [k.aligned_pointers for k in keys] == [aligned], (sd, dd, shape)
        assert aligned or pass_tile(keys[0]), (sd, dd, shape)
    # rows of 254 int16 into rows of 256 at an odd offset (case 16): the realign
    # strategy (passes/_realign_tile.py), the padding untouched
    src = _random(torch, "int16", (31, 3, 11, 254), gen, True)
    big = _poison(torch, torch.empty((31, 3, 11, 256), dtype=torch.int16, device="cuda"))
    want = big.clone()
    want[..., 1:255].copy_(src)
    kernels = CopyKernels(disk=False)
    copy_(big[..., 1:255], src, kernels=kernels)
    torch.cuda.synchronize()
    assert torch.equal(big, want)
    keys = list(kernels._entries)
    assert [key_strategy(k) for k in keys] == ["realign"] and keys[0].aligned_pointers


@pytest.mark.torch
def test_32_bit_offsets_near_the_limit_and_64_bit_past_it():
    """A 19 x n uint8 transpose (the strided set's case 30 made larger) whose tiles'
    offsets stay under 2^31 runs with 32-bit index arithmetic (`CopyKey.index_bits`;
    tiles of 8 rows cover 24, so the masked rows reach offset 23 n), one whose views
    span more than 2^31 bytes with 64-bit: both bit for bit against PyTorch, outputs
    poisoned first."""
    from tilec.copy_kernels import CopyKernels
    from tilec.tensor_copy import copy_

    torch = torch_cuda()
    gen = torch.Generator(device="cuda").manual_seed(7)
    for n, bits in ((85_000_000, 32), (115_000_000, 64)):
        src = torch.randint(0, 2, (n, 19), generator=gen, device="cuda", dtype=torch.uint8).t()
        out = _poison(torch, torch.empty((19, n), dtype=torch.uint8, device="cuda"))
        kernels = CopyKernels(disk=False)
        copy_(out, src, kernels=kernels)
        want = torch.empty_like(out).copy_(src)
        torch.cuda.synchronize()
        assert [k.index_bits for k in kernels._entries] == [bits], n
        assert torch.equal(out, want), n
        del src, out, want
        torch.cuda.empty_cache()


@pytest.mark.torch
def test_short_periods_and_broadcasts_match_torch_bit_for_bit():
    """Broadcasts into flat dsts: short periods split in parts (copy_period.py: cases
    44, 32, 20 and 14 of the strided set made small, with and without a tail, into a
    window of a poisoned buffer that must stay untouched around it) and broadcasts
    through the gather strategy (passes/_copy_cost.py: 02, 08; 1-byte rows of whole
    aligned vectors, one vector load per run) or, misaligned into compact rows of
    >= 512 bytes (38), realign's run form: bit for bit against PyTorch."""
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_period import period_parts
    from tilec.copy_plan import plan_copy
    from tilec.tensor_copy import as_array, copy_

    torch = torch_cuda()
    gen = torch.Generator(device="cuda").manual_seed(44)
    cases = [
        ("uint8", (1, 3), (1500007, 3), True),  # rows of 3 bytes: parts with a tail
        ("uint8", (1, 3), (1500000, 3), True),  # 16 x 93750 rows of 48: no tail
        ("bfloat16", (1, 1757, 1), (801, 1757, 3), True),  # each element 3 times
        ("int16", (1, 5), (900001, 5), True),
        ("uint8", (1, 259), (20011, 259), True),  # rows of 259 bytes: padded rows, gathered in periods
        ("bool", (1, 19), (300007, 19), True),
        ("uint8", (1, 4096), (1100, 4096), False),  # whole vectors: the gather's vector runs
        ("int16", (1, 41440), (45, 41440), False),  # long rows from one row
        ("int32", (2532, 1), (2532, 6882), False),  # a column repeated
        ("bfloat16", (1, 5, 1, 1123), (3, 5, 7, 1123), False),  # 38: realign's run form (rows of 2246 B)
    ]
    for dtype, sshape, dshape, split in cases:
        kernels = CopyKernels(disk=False)
        src = _random(torch, dtype, sshape, gen, True)
        size = math.prod(dshape)
        buf = _poison(torch, torch.empty(size + 64, dtype=getattr(torch, dtype), device="cuda"))
        dst = buf[16 : 16 + size].view(dshape)  # 16 elements in: 16-byte aligned
        want = buf.clone()
        want[16 : 16 + size].view(dshape).copy_(src)
        plan = plan_copy(as_array("dst", dst).operand, as_array("src", src).operand)
        assert bool(period_parts(plan)) == split, (dtype, dshape)
        copy_(dst, src, kernels=kernels)
        torch.cuda.synchronize()
        assert torch.equal(_bits(torch, buf), _bits(torch, want)), (dtype, dshape)
        keys = list(kernels._entries)
        if split:  # the rows: a compact dst
            assert any(k.dst_flat for k in keys), (dtype, dshape)
        else:  # 1-byte rows of whole aligned vectors too (vector runs)
            # misaligned broadcasts into compact rows of >= 512 bytes: realign's run form
            want_strategy = "realign" if dtype == "bfloat16" else "gather"
            assert len(keys) == 1 and key_strategy(keys[0]) == want_strategy, (dtype, dshape)
        # again through the cached launcher (the torch fast path)
        _poison(torch, buf)
        copy_(dst, src, kernels=kernels)
        torch.cuda.synchronize()
        assert torch.equal(_bits(torch, buf), _bits(torch, want)), (dtype, dshape)


@pytest.mark.torch
@pytest.mark.parametrize("policy", ["auto", "never"])
def test_box_strategy_matches_torch_bit_for_bit(policy, routes):
    """The box strategy (`tilec.copy_`'s program through the default pipeline: the
    `tile` pass's launch, passes/_box_tile.py) on the strided set's cases 30, 42, 35
    and 01 made small, at several pointer remainders mod 16, into padded dst rows (case
    30's shape), in int8, uint8 and bool, with the box's shared memory lowered too
    (many blocks, partial chunks); `never` checks the same copies on the other
    strategies."""
    from tilec.passes._copy_cost import BOX_SMEM
    from tilec.tensor_copy import copy_

    torch = torch_cuda()
    gen = torch.Generator(device="cuda").manual_seed(30)
    for smem in (BOX_SMEM, 2048):
        routes(box=policy, box_smem=smem)
        for dtype in ("int8", "uint8", "bool"):
            cases = [
                # case 30: (19, n) from a flat (n, 19), src and dst at offsets 0..15
                *[(lambda o=o, d=dtype: _random(torch, d, (19 * 100003 + 16,), gen, True)[o : o + 19 * 100003]
                   .view(100003, 19).t(), 2 * o + 1) for o in (0, 5, 15)],
                # case 42: (346, 37, 1691, 17) perm [2, 4, 0, 1, 3], smaller
                (lambda d=dtype: _random(torch, d, (40, 37, 91, 19, 17), gen, True).permute(2, 4, 0, 1, 3), 0),
                # a dst mode of 16 exactly; the same from an offset slice
                (lambda d=dtype: _random(torch, d, (301, 5, 16, 7), gen, True).permute(1, 3, 0, 2), 0),
                (lambda d=dtype: _random(torch, d, (301, 5, 16, 7), gen, True).permute(1, 3, 0, 2)[:, :, 1:300], 0),
                # case 35: rows of 5 from 5 long src rows (BoxShape.COLS), src at offsets; a grid mode
                *[(lambda o=o, d=dtype: _random(torch, d, (5 * 100003 + 16,), gen, True)[o : o + 5 * 100003]
                   .view(5, 100003).t(), 0) for o in (0, 7)],
                (lambda d=dtype: _random(torch, d, (37, 3, 2111), gen, True).permute(1, 2, 0), 0),
                # case 01: rows of 5 at a pitch of 7 (box<span>), src at offsets; rows of
                # 13 at 20 into padded dst rows
                *[(lambda o=o, d=dtype: _random(torch, d, (100003 * 7 + 16,), gen, True)[o : o + 100003 * 7]
                   .view(100003, 7)[:, :5], 0) for o in (0, 3)],
                (lambda d=dtype: _random(torch, d, (30011, 20), gen, True)[:, 4:17], 0),
            ]
            for make, pad in cases:
                kernels = CopyKernels(disk=False)
                src = make()
                shape = tuple(src.shape)
                big = _poison(torch, torch.empty((*shape[:-1], shape[-1] + pad), dtype=getattr(torch, dtype), device="cuda"))
                want = big.clone()
                want[..., pad // 2 : pad // 2 + shape[-1]].copy_(src)
                copy_(big[..., pad // 2 : pad // 2 + shape[-1]], src, kernels=kernels)
                torch.cuda.synchronize()
                assert torch.equal(_bits(torch, big), _bits(torch, want)), (dtype, shape, pad, smem, policy)
                box = [key_strategy(k).startswith("box") for k in kernels._entries]
                assert box == [policy != "never"], box


@pytest.mark.torch
@pytest.mark.parametrize("pair", [("float32", "float8_e4m3fn"), ("float8_e4m3fn", "float32"),
                                  ("bfloat16", "float8_e5m2"), ("float8_e5m2", "float16"),
                                  ("float64", "float8_e4m3fn"), ("float8_e4m3fn", "float8_e5m2"),
                                  ("float16", "float8_e5m2")])
def test_fp8_copies_match_torch_bit_for_bit(pair):
    """Converting copies to and from the 8-bit floats on a sliced transpose, with the
    specials PyTorch's conversion defines (dialects/dtypes.py): ties, subnormals,
    overflow (e4m3fn: NaN from beyond 464; e5m2: infinity from 61440), infinities, a
    positive NaN (PyTorch keeps a NaN's sign, tilec gives 0x7F: no negative NaN here).
    From an 8-bit float source the values stay finite: a NaN widened has no one bit
    pattern (PyTorch's and cuda_fp8.h's payloads differ)."""
    torch = torch_cuda()
    src_dtype, dst_dtype = pair
    gen = torch.Generator(device="cuda").manual_seed(len(src_dtype) * 31 + len(dst_dtype))
    x = torch.randn(301, 517, generator=gen, device="cuda") * 40
    x.view(-1)[:12] = torch.tensor([464.0, 465.0, -500.0, 61440.0, 61439.0, float("inf"), -float("inf"),
                                    float("nan"), 2.0**-10, 3 * 2.0**-10, -0.0, 1.0625])
    if src_dtype.startswith("float8"):
        x = torch.nan_to_num(x, nan=0.0).clamp(-440.0, 440.0)
    src = x.to(getattr(torch, src_dtype))[5:, 3::2].t()
    _check_against_torch(torch, lambda d: src, None, src_dtype, dst_dtype, "fp8 sliced transpose")
