"""The flat-destination gather kernel of `tilec.copy_` (api/copy_gather.py) without a
GPU: which copies take it, its key, and its program (the whole-program text and the
compiled kernel) on the CPU reference executor against NumPy, bit for bit, with the
elements around dst untouched: run lengths that wrap the last mode at every point,
carries through several modes, broadcast and stepped sources, 32- and 64-bit offsets."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.operands import operand

from tilec import copy_gather
from tilec.copy_cpu import copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.copy_plan import plan_copy
from tilec.copy_program import copy_program


@pytest.fixture
def always(routes):
    routes(gather="always")


def op(shape, strides=None, dtype="int32", ptr=0):
    return operand(shape, strides, dtype, ptr)


def test_the_measured_rule_takes_short_odd_runs_into_contiguous_dsts():
    # 24 of the strided set: a 17 x 19 transpose inside 323-element blocks
    plan = plan_copy(op((50, 17, 19), ptr=4096), op((50, 17, 19), (323, 1, 17), ptr=64))
    assert plan.key.gather == 32 and plan.extents == (50, 17, 19)
    text = copy_program(plan.key)
    assert "layout.ptr_store" in text and "layout.copy" not in text
    # a power-of-two run, a long transpose, a src wider than the dst: the tiled kernel
    assert plan_copy(op((50, 17, 16)), op((50, 17, 16), (272, 1, 17))).key.gather == 0
    assert plan_copy(op((5000, 300)), op((5000, 300), (1, 5000))).key.gather == 0
    wide = op((50, 17, 19), (323, 1, 17), dtype="int64")
    assert plan_copy(op((50, 17, 19), dtype="int8"), wide).key.gather == 0
    # rows of 5 into a padded dst (46 of the strided set): the rule keeps the tiled
    # kernel (the gather's scalar stores lost on the H100); forced, the gather kernel
    # computes the dst offsets as the src's
    dst, src = op((9000, 5), (10, 1), dtype="int64", ptr=4096), op((9000, 5), dtype="int64")
    assert plan_copy(dst, src).key.gather == 0
    assert plan.key.dst_flat


def test_broadcasts_take_the_gather_kernel_whatever_their_rows():
    # 02, 08 and 38 of the strided set: long rows, a column, rows of 1123 bf16
    rows = plan_copy(op((4456, 41440), dtype="int16", ptr=4096), op((1, 41440), dtype="int16"))
    assert rows.key.gather == 32 and rows.key.dst_flat
    column = plan_copy(op((2532, 6882), ptr=4096), op((2532, 1), ptr=64))
    assert column.key.gather == 32
    mid = plan_copy(op((185, 5, 257, 1123), dtype="bfloat16"), op((1, 5, 1, 1123), dtype="bfloat16"))
    assert mid.key.gather == 32
    assert rows.key.src_runs and rows.key.src_align == 16  # runs of 8 from an aligned row
    assert not column.key.src_runs and not mid.key.src_runs  # a column; rows of 1123 wrap runs
    # 1-byte broadcasts: where each run is a vector of an aligned src only
    ones = plan_copy(op((4456, 41440), dtype="uint8"), op((1, 41440), dtype="uint8", ptr=4096))
    assert ones.key.gather == 32 and ones.key.src_runs
    assert plan_copy(op((4456, 41440), dtype="uint8"), op((1, 41440), dtype="uint8", ptr=4099)).key.gather == 0
    # a padded dst, a src wider than the dst: tiled
    assert plan_copy(op((4456, 41440), (41444, 1), dtype="int16"), op((1, 41440), dtype="int16")).key.gather == 0
    assert plan_copy(op((4456, 41440), dtype="int16"), op((1, 41440), dtype="int32")).key.gather == 0


def test_forced_gather_into_a_padded_dst_stores_scalars(always):
    padded = plan_copy(op((9000, 5), (10, 1), dtype="int64", ptr=4096), op((9000, 5), dtype="int64"))
    assert padded.key.gather == 32 and not padded.key.dst_flat and padded.key.dst_align == 8
    assert "%doffs" in copy_program(padded.key)


def test_gather_key_drops_stride_facts_and_sizes_offsets(always):
    small = plan_copy(op((1000, 259), dtype="uint8", ptr=4096), op((1, 259), dtype="uint8", ptr=3))
    assert small.key.gather == 32 and small.key.dst_align == 16 and small.key.src_align == 1
    assert small.key.src_divisors == (1, 1) and small.key.dst_divisors == (1, 1)
    big = plan_copy(op((3, 5), dtype="uint8", ptr=4096), op((3, 5), (2**30, 1), dtype="uint8"))
    assert big.key.gather == 64
    # runs never wrap the last mode twice: V at most half the last extent's class
    assert copy_gather.gather_vector(plan_copy(op((99, 3), dtype="int8"), op((99, 3), (1, 99), dtype="int8")).key) == 2


def _check(dst_shape, src, dst_base, window, compiled, kernels):
    """Copy `src` into `dst_base[window]` viewed as `dst_shape`; nothing else moves."""
    want = dst_base.copy()
    want[window] = np.broadcast_to(src, dst_shape).reshape(want[window].shape)
    copy_numpy(dst_base[window].reshape(dst_shape), src, compiled=compiled, kernels=kernels)
    assert np.array_equal(dst_base, want)


@pytest.mark.parametrize("compiled", [False, True])
def test_gather_copies_match_numpy(always, compiled, nvrtc_available):
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    rng = np.random.default_rng(20)
    kernels = CopyKernels(arch="sm_90", disk=False) if compiled else None
    for dtype in ("int8", "int16", "int32", "int64"):
        info = np.iinfo(dtype)

        def rand(shape, info=info, dtype=dtype):
            return rng.integers(info.min, info.max, size=shape, dtype=dtype)

        # a transpose of two short odd modes in blocks (runs wrap the last mode anywhere)
        base = rand((7, 5, 19, 17))
        src = base.transpose(0, 1, 3, 2)
        out = np.full((7 * 5 * 17 * 19 + 5,), 7, dtype)
        _check(src.shape, src, out, slice(3, 3 + src.size), compiled, kernels)
        # the same written into a contiguous 4-D dst: carries through three modes
        _check(src.shape, src, np.full(src.shape, 7, dtype), (slice(None),) * 4, compiled, kernels)
        # into a padded, offset dst (offsets computed for both views)
        pad = np.full((7 * 5 * 17 + 2, 23), 7, dtype)
        _check((7, 5, 17, 19), src, pad, (slice(1, 596), slice(2, 21)), compiled, kernels)
        # a broadcast row, and a stepped, offset, permuted source
        row = rand((1, 37))
        _check((41, 37), row, np.full((41, 37), 7, dtype), (slice(None), slice(None)), compiled, kernels)
        base = rand((13, 30, 11))
        src = base[2:11:3, 1::2, :].transpose(2, 0, 1)  # (11, 3, 15)
        _check(src.shape, src, np.full(src.shape, 7, dtype), (slice(None),) * 3, compiled, kernels)
    if compiled:
        assert all(k.gather for k in kernels._entries)


def test_gather_with_64_bit_offsets_matches_numpy(monkeypatch, nvrtc_available, routes):
    """The 64-bit variant, forced by a lower limit (real 2**31 offsets need GiBs)."""
    routes(gather="always")
    monkeypatch.setattr(copy_gather, "INDEX32_LIMIT", 100)
    rng = np.random.default_rng(64)
    base = rng.integers(-128, 127, size=(6, 21, 9), dtype=np.int8)
    src = base.transpose(0, 2, 1)
    dst = np.full(src.shape, 7, np.int8)
    assert plan_copy(op(dst.shape, dtype="int8"), op(src.shape, (189, 1, 9), dtype="int8")).key.gather == 64
    for compiled in (False, True) if nvrtc_available else (False,):
        dst[...] = 7
        copy_numpy(dst, src, compiled=compiled, kernels=CopyKernels(arch="sm_90", disk=False) if compiled else None)
        assert np.array_equal(dst, src)


@pytest.mark.parametrize(
    "sd, dd",
    [
        ("uint8", "float64"),
        ("float32", "bfloat16"),
        ("float64", "float16"),
        ("int32", "float16"),
        ("float32", "uint8"),
        ("float16", "bool"),
        ("int64", "int8"),
        ("bool", "int16"),
        ("int8", "int64"),
    ],
)
def test_converting_gathers_match_numpy(always, sd, dd, nvrtc_available):
    """Conversions in registers between the gather and the store (conversion_steps),
    on a 17 x 19 transpose in blocks, against `convert_values` (PyTorch's rules)."""
    from tilec.dialects.conversions import convert_values

    hold = {"bfloat16": np.uint16, "bool": np.uint8}
    rng = np.random.default_rng(len(sd) * 7 + len(dd))
    if sd in ("float16", "float32", "float64"):
        base = np.clip(rng.standard_normal((3, 19, 17)) * 60, -120, 120).astype(sd)
        base.flat[::29] = 0
    elif sd == "bool":
        base = (rng.random((3, 19, 17)) > 0.5).astype(np.uint8)
    else:
        info = np.iinfo(sd)
        base = rng.integers(info.min, info.max, size=(3, 19, 17), dtype=sd)
    src = base.transpose(0, 2, 1)
    want = convert_values(np.ascontiguousarray(src), sd, dd).view(hold.get(dd, dd))
    for compiled in (False, True) if nvrtc_available else (False,):
        dst = np.full(src.shape, 7, hold.get(dd, dd))
        kernels = CopyKernels(arch="sm_90", disk=False) if compiled else None
        copy_numpy(dst, src, src_dtype=sd, dst_dtype=dd, compiled=compiled, kernels=kernels)
        assert np.array_equal(dst, want), (sd, dd, compiled)


def test_gather_host_function_has_a_recipe(nvrtc_available):
    """The gather kernel's host function (the grid over the flat dst) is a recipe,
    so its kernel goes to the disk cache and a new process launches it without xDSL."""
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    from tilec.runtime.host_ops import RecipeProgram

    plan = plan_copy(op((50, 17, 19), ptr=4096), op((50, 17, 19), (323, 1, 17), ptr=64))
    entry = CopyKernels(arch="sm_90", disk=False).get(plan.key)
    host = entry.kernel.host_program
    assert host.recipe is not None
    rng = np.random.default_rng(2)
    for _ in range(5):
        args = ["s", "d", *(int(v) for v in rng.integers(1, 5000, size=len(plan.args)))]
        launches = host.run(args)
        assert RecipeProgram(host.recipe).run(args) == launches and len(launches) == 1
        n = args[2] * args[3] * args[4]
        block = copy_gather.THREADS * copy_gather.ROWS_PER_THREAD * copy_gather.gather_vector(plan.key)
        assert launches[0].grid[0] == -(-n // block)


def _aligned(rng, shape, dtype):
    """Random values of `dtype` in an array whose data is 16-byte aligned."""
    size = int(np.prod(shape))
    buf = np.empty(size + 16, dtype)
    off = (-buf.__array_interface__["data"][0] % 16) // buf.itemsize
    a = buf[off : off + size].reshape(shape)
    info = np.iinfo(dtype)
    a[...] = rng.integers(info.min, info.max, size=shape, dtype=dtype)
    return a


@pytest.mark.parametrize("compiled", [False, True])
def test_vector_runs_match_numpy(compiled, nvrtc_available):
    """Broadcasts whose runs are whole src vectors (`CopyKey.src_runs`): rows from one
    row, rows of a padded src repeated along a middle mode (a run-time src stride,
    a multiple of the run), with a last block that ends mid-run."""
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    rng = np.random.default_rng(16)
    kernels = CopyKernels(arch="sm_90", disk=False) if compiled else None
    for dtype in ("int8", "int16", "int32", "int64"):
        v = 16 // np.dtype(dtype).itemsize
        row = _aligned(rng, (1, 6 * v), dtype)
        padded = _aligned(rng, (5, 7 * v), dtype)[:, : 3 * v].reshape(5, 1, 3 * v)
        for src, shape in ((row, (301, 6 * v)), (padded, (5, 13, 3 * v))):
            plan = plan_copy(
                op(shape, dtype=dtype, ptr=4096),
                op(src.shape, [s // src.itemsize for s in src.strides], dtype, src.__array_interface__["data"][0]),
            )
            assert plan.key.gather and plan.key.src_runs, (dtype, shape)
            _check(shape, src, np.full(shape, 7, dtype), (slice(None),) * len(shape), compiled, kernels)
