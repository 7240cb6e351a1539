"""tilec.copy_ without a GPU: the planning (checks, broadcasting, mode merging, the
specialisation key), the programs it compiles, run on the CPU reference executor
against NumPy (`tilec.copy_cpu.copy_numpy`), and the compile-once caches."""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers.operands import operand

import tilec
from tilec.copy_cpu import copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.copy_plan import Operand, merge_modes, overlap, plan_copy
from tilec.copy_program import copy_program
from tilec.dialects.conversions import conversion_steps, convert_values
from tilec.dialects.dtypes import f32_to_bf16
from tilec.support.diagnostics import TilecError

DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]
_HOLD = {"bfloat16": np.uint16, "bool": np.uint8}



def op(shape, strides=None, dtype="float32", ptr=0, device=None):
    return operand(shape, strides, dtype, ptr, device)


# ------------------------------------------------------------------------ planning


def test_nhwc_to_nchw_is_a_2d_transpose():
    n, h, w, c = 8, 56, 56, 64
    # src NHWC, read as NCHW: strides (h*w*c, 1, w*c, c); dst contiguous NCHW
    src = op((n, c, h, w), (h * w * c, 1, w * c, c))
    dst = op((n, c, h, w))
    plan = plan_copy(dst, src)
    assert plan.extents == (n, c, h * w)
    assert plan.key.dst_strides == (None, None, 1)
    assert plan.key.src_strides == (None, 1, None)
    assert plan.key.rank == 3
    # 16-byte multiples everywhere: both views may use 16-byte vectors
    assert (plan.key.src_align, plan.key.src_divisors) == (16, (4, 1, 4))
    assert (plan.key.dst_align, plan.key.dst_divisors) == (16, (4, 4, 1))
    # (8 and 64 are exactly their classes: promised at most and a multiple of them)
    # h * w = 3136, a multiple of the 4-element vector along the src's contiguous mode (extent_divisors)
    assert "divisible = array<i64: 8, 64, 4, 4, 4>" in copy_program(plan.key)
    # one odd stride: the view gets no vectors, and its key forgets its alignment
    odd = plan_copy(dst, op((n, c, h, w), (h * w * c + 1, 1, w * c, c)))
    assert (odd.key.src_align, odd.key.src_divisors) == (4, (1, 1, 1))


def test_contiguous_copy_is_one_mode_and_size_one_modes_drop():
    plan = plan_copy(op((4, 1, 6, 8)), op((4, 1, 6, 8)))
    assert plan.extents == (192,) and plan.key.src_strides == (1,) and plan.key.dst_strides == (1,)
    assert plan_copy(op(()), op(())).extents == (1,)


def test_broadcast_gets_zero_strides():
    plan = plan_copy(op((5, 7, 3)), op((7, 1)))
    assert plan.key.src_strides == (0, 1, 0) and plan.key.dst_strides == (None, None, 1)
    assert plan.num_elements == 105


def test_negative_dst_stride_is_reversed_in_both_views():
    # dst = buf[::-1] (ptr at the last element), src contiguous
    dst = op((10,), (-1,), ptr=9 * 4)
    src = op((10,), (1,), ptr=1000)
    plan = plan_copy(dst, src)
    assert plan.dst_strides == (1,) and plan.src_strides == (-1,)
    assert plan.dst_ptr == 0 and plan.src_ptr == 1000 + 9 * 4


def test_merge_modes_keeps_a_single_element():
    assert merge_modes((1, 1), (5, 3), (2, 1)) == ([1], [1], [1], 0, 0)


@pytest.mark.parametrize(
    "dst, src, message",
    [
        (op((4, 5)), op((4, 6)), "does not broadcast to dst's shape [4, 5] (dimension 1: 6 vs 5)"),
        (op((4,)), op((2, 4)), "src has more dimensions"),
        (op((4, 5), (0, 1)), op((4, 5)), "dst has overlapping elements"),
        (op((4, 5), (2, 1)), op((4, 5)), "dst may have overlapping elements"),
        (op((2,) * 9), op((2,) * 9), "at most 8"),
        (op((4,), dtype="complex64"), op((4,)), "dst: unsupported dtype complex64"),
        (op((4,)), op((4,), dtype="uint16"), "src: unsupported dtype uint16"),
        (op((4,), device=0), op((4,), device=1), "dst is on device 0 and src on device 1"),
    ],
)
def test_bad_requests_are_refused(dst, src, message):
    with pytest.raises(TilecError, match=re.escape(message)):
        plan_copy(dst, src)


@pytest.mark.parametrize("shape, strides", [((0, 6), (0, 0)), ((0, 6), (6, 1)), ((3, 0, 2), (0, 0, 1))])
def test_empty_dst_is_a_no_op_whatever_its_strides(shape, strides):
    """An empty view has no overlapping elements (NumPy gives np.zeros((0, 6))
    strides (0, 0); PyTorch copies into empty tensors): found by the fuzzer,
    copy_numpy refused it as "dst has overlapping elements"."""
    plan_copy(op(shape, strides), op(shape, strides))
    dst = np.zeros(shape, np.float32)
    assert copy_numpy(dst, np.ones(shape, np.float32)) is dst


def test_overlap_kinds():
    a = op((8,), ptr=0)
    assert overlap(a, a) == "same"
    assert overlap(op((8,), ptr=0), op((8,), ptr=16)) == "partial"
    assert overlap(op((8,), ptr=0), op((8,), ptr=32)) == "none"
    assert overlap(op((4, 4), (1, 4)), op((4, 4))) == "partial"  # in-place transpose


def test_host_arrays_are_refused_by_the_gpu_front_end():
    x = np.zeros(4, np.float32)
    with pytest.raises(TilecError, match="dst is a NumPy \\(host\\) array"):
        tilec.copy_(x, x)
    with pytest.raises(TilecError, match="expected a device array"):
        tilec.copy_([1, 2], [1, 2])


# ------------------------------------------------------------------------ programs on the CPU


def _random_values(rng, dtype, shape):
    v = rng.uniform(-100, 100, size=shape).astype(np.float32)
    if dtype == "bfloat16":
        return f32_to_bf16(v)
    if dtype == "bool":
        return (v > 0).astype(np.uint8)
    if dtype == "uint8":
        return rng.integers(0, 256, size=shape).astype(np.uint8)
    return v.astype(dtype)


def _expected(dst_shape, src, sd, dd):
    full = np.broadcast_to(src, dst_shape)
    return convert_values(np.ascontiguousarray(full), sd, dd).view(_HOLD.get(dd, dd))


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("sd, dd", [
    ("float32", "float32"), ("float32", "bfloat16"), ("float64", "float16"), ("int32", "float16"),
    ("float32", "uint8"), ("uint8", "bool"), ("float16", "int8"), ("bool", "float32"),
    ("int64", "int8"), ("bfloat16", "float16"), ("int8", "int64"), ("uint8", "int32"),
])
def test_permute_slice_convert_matches_numpy(sd, dd, compiled, nvrtc_available):
    """A permuted, sliced (offset and step) source into a sliced destination."""
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    rng = np.random.default_rng(DTYPES.index(sd) * 16 + DTYPES.index(dd))
    base = _random_values(rng, sd, (7, 12, 9))
    src = base.transpose(2, 0, 1)[1:8:2, 2:, ::3]                  # (4, 5, 4), offset
    if sd in ("float32", "float16", "float64") and dd in ("int8", "uint8"):
        src = np.clip(src, -120, 120).astype(src.dtype)            # defined conversions
    hold = np.dtype(_HOLD.get(dd, dd))
    out_base = np.zeros((6, 5, 9 * hold.itemsize), np.uint8).view(hold)
    out_base[...] = np.array(7).astype(hold)  # poison
    dst = out_base[1:5, :, 2:6]                                     # offset, row stride 9
    before = out_base.copy()
    copy_numpy(dst, src, src_dtype=sd, dst_dtype=dd, compiled=compiled,
               kernels=CopyKernels(arch="sm_90") if compiled else None)
    want = _expected(dst.shape, src, sd, dd)
    assert np.array_equal(dst.view(np.uint8 if hold.itemsize == 1 else hold), want.view(np.uint8 if hold.itemsize == 1 else hold))
    mask = np.ones(out_base.shape, bool)
    mask[1:5, :, 2:6] = False
    assert np.array_equal(out_base[mask], before[mask]), "wrote outside dst"


def test_broadcast_into_transposed_dst_and_negative_dst_strides():
    rng = np.random.default_rng(1)
    row = rng.standard_normal(13).astype(np.float32)
    out = np.full((13, 11), np.nan, np.float32)
    dst = out.T[::-1]                                               # (11, 13), strides (-1, 11)
    copy_numpy(dst, row)
    assert np.array_equal(dst, np.broadcast_to(row, (11, 13)))


def test_partial_overlap_copies_through_a_temporary():
    x = np.arange(36, dtype=np.float32).reshape(6, 6)
    want = x.T.copy()
    copy_numpy(x, x.T)                                              # in-place transpose
    assert np.array_equal(x, want)
    y = np.arange(10, dtype=np.int32)
    copy_numpy(y[2:], y[:-2])                                       # shifted, overlapping
    assert np.array_equal(y, [0, 1, 0, 1, 2, 3, 4, 5, 6, 7])


def test_rank_8_and_rank_0():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 2, 3, 2, 3, 2, 3)).astype(np.float32)
    perm = (7, 0, 6, 1, 5, 2, 4, 3)
    out = np.empty([x.shape[p] for p in perm], np.float32)
    copy_numpy(out, x.transpose(perm))
    assert np.array_equal(out, x.transpose(perm))
    z = np.zeros((), np.float64)
    copy_numpy(z, np.array(2.5, np.float32))
    assert z == 2.5


def test_conversion_steps_go_through_float32_as_c10_does():
    assert conversion_steps("float64", "float16") == [("truncf", "f32"), ("truncf", "f16")]
    assert conversion_steps("int64", "bfloat16") == [("sitofp", "f32"), ("truncf", "bf16")]
    assert conversion_steps("float16", "uint8") == [("extf", "f32"), ("fptosi", "i64"), ("trunci", "i8")]
    assert conversion_steps("bfloat16", "float16") == [("extf", "f32"), ("truncf", "f16")]
    assert conversion_steps("uint8", "int32") == [("extui", "i32")]
    assert conversion_steps("int8", "uint8") == []


def test_convert_values_rounds_and_keeps_nan_and_inf():
    x = np.array([1 + 2**-11, 1 + 3 * 2**-11, np.nan, np.inf, -np.inf, 65520.0], np.float64)
    h = convert_values(x, "float64", "float16")
    assert list(h[:2]) == [1.0, np.float16(1 + 2**-9)]               # ties to even
    assert np.isnan(h[2]) and h[3] == np.inf and h[4] == -np.inf and h[5] == np.inf
    assert list(convert_values(np.array([-3.7, 2.9, -0.5], np.float32), "float32", "int32")) == [-3, 2, 0]
    assert list(convert_values(np.array([-3.7, 0.0, np.nan], np.float32), "float32", "bool")) == [1, 0, 1]
    assert list(convert_values(np.array([-3.0], np.float32), "float32", "uint8").view(np.uint8)) == [253]


# ------------------------------------------------------------------------ caches


def test_one_pattern_of_100_shapes_compiles_a_handful_of_kernels():
    """Transposes of random (often odd) extents above SMALL_EXTENT and random offsets:
    the key is the pattern, not the shape. Keys are counted (compiling each costs
    NVRTC time; see below)."""
    rng = np.random.default_rng(3)
    keys = set()
    for _ in range(100):
        m, n = (int(v) for v in rng.integers(65, 3000, size=2))
        off = int(rng.integers(0, 8))
        src = op((m, n), (1, m), ptr=4 * off)
        dst = op((m, n), ptr=4096)
        keys.add(plan_copy(dst, src).key)
    # each view 16-byte vectorizable (pointer and stride multiples of 16 bytes) or not,
    # times whether each of the two extents is a multiple of the vector (extent_divisors)
    assert len(keys) <= 4 * 4


def test_small_extents_are_specialised_and_promised_to_the_tile_pass(routes):
    from tilec.copy_program import pass_tile

    # rows of 5 go to the gather strategy (copy-strategy): here the tiled one is tested
    routes(gather="never")
    plan = plan_copy(op((100000, 5)), op((100000, 5), (1, 100000)))
    assert plan.key.small_extents == (None, 8)
    text = copy_program(plan.key)
    assert "at_most = array<i64: 0, 8" in text and "tile = array" not in text
    tile = pass_tile(plan.key)
    assert tile[1] == 8  # the short mode whole, the long one grows within the budget
    assert tile[0] >= 512  # the 16 KiB tile: a contiguous mode known short takes no 128 KiB tile
    # a transpose of long modes: the pass's square tile
    assert pass_tile(plan_copy(op((100, 500)), op((100, 500), (1, 100))).key) == (64, 64)


def test_cached_compile_runs_no_pipeline(monkeypatch, nvrtc_available):
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    kernels = CopyKernels(arch="sm_90")
    rng = np.random.default_rng(4)
    for _ in range(20):
        m, n = (4 * int(v) for v in rng.integers(17, 125, size=2))
        kernels.get(plan_copy(op((m, n), ptr=0), op((m, n), (1, m), ptr=64)).key)
    assert kernels.stats.compiles == 1 and kernels.stats.hits == 19

    from tilec import compiling

    text = copy_program(plan_copy(op((3, 5)), op((3, 5), (1, 3))).key)
    first = tilec.compile(text, arch="sm_90")

    def boom(*a, **k):
        raise AssertionError("the pipeline ran again")

    monkeypatch.setattr(compiling, "run_pipeline", boom)
    assert tilec.compile(text, arch="sm_90") is first


def test_run_reference_takes_larger_flat_arrays(nvrtc_available):
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    p = tilec.Program("copy")
    a = p.view(p.pointer("src", "f32"), "1919:1")
    b = p.view(p.pointer("dst", "f32"), "1919:1")
    p.copy(a, b)
    k = tilec.compile(p, arch="sm_90")
    x = np.arange(1920, dtype=np.float32)
    y = np.full(1920, -1.0, np.float32)
    out = tilec.run_reference(k, {"src": x, "dst": y})["dst"]
    assert np.array_equal(out[:1919], x[:1919]) and out[1919] == -1.0


# ------------------------------------------------------------------------ the front end, host memory


@pytest.fixture
def host_front_end(monkeypatch):
    """tilec.copy_ on NumPy arrays: the front end as it is (checks, launcher cache,
    overlap, temporaries) with the launch replaced by the reference executor running
    the compiled kernel on host memory (`copy_cpu.run_launcher`)."""
    import tilec.tensor_copy as tc
    from tilec.copy_cpu import run_launcher
    from tilec.copy_launch import Launcher

    def as_array(what, a):
        if not isinstance(a, np.ndarray):
            raise TilecError(f"{what}: not an array")
        strides = tuple(s // a.itemsize for s in a.strides)
        return tc._Array(Operand(a.__array_interface__["data"][0], a.dtype.name, a.shape, strides), "numpy", a)

    monkeypatch.setattr(tc, "as_array", as_array)
    monkeypatch.setattr(tc, "current_stream", lambda a: None)
    monkeypatch.setattr(tc, "_empty_like_shape", lambda like, shape: np.empty(shape, like.obj.dtype))
    monkeypatch.setattr(Launcher, "__call__", lambda self, d, s, device, stream: run_launcher(self, d, s))
    return tc, CopyKernels(arch="sm_90")


def test_front_end_copies_and_reuses_its_plans(host_front_end, nvrtc_available):
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    tc, kernels = host_front_end
    rng = np.random.default_rng(6)
    for m, n in ((70, 90), (33, 129), (70, 90)):
        x = rng.standard_normal((m, n)).astype(np.float32)
        y = np.full((n, m), np.nan, np.float16)
        assert tc.copy_(y, x.T, kernels=kernels) is y
        assert np.array_equal(y, x.T.astype(np.float16))
    assert len(kernels.launchers) == 2 and kernels.stats.compiles <= 2
    z = np.zeros((4, 70), np.float32)
    tc.copy_(z, np.arange(70, dtype=np.float32), kernels=kernels)       # broadcast
    assert np.array_equal(z, np.broadcast_to(np.arange(70, dtype=np.float32), (4, 70)))
    out = tc.permute(x, (1, 0), kernels=kernels)
    assert np.array_equal(out, x.T) and out.flags.c_contiguous
    assert np.array_equal(tc.permute(x, (-1, -2), kernels=kernels), x.T)  # negative dims count from the end
    assert np.array_equal(tc.contiguous(x[::2, 3:], kernels=kernels), x[::2, 3:])


def test_front_end_overlap_and_refusals(host_front_end, nvrtc_available):
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    tc, kernels = host_front_end
    x = np.arange(80 * 80, dtype=np.int32).reshape(80, 80)
    want = x.T.copy()
    tc.copy_(x, x.T, kernels=kernels)                                    # through a temporary
    assert np.array_equal(x, want)
    assert tc.copy_(x, x, kernels=kernels) is x                          # the same view: nothing
    before = x.copy()
    with pytest.raises(TilecError, match="does not broadcast"):
        tc.copy_(x, np.zeros((80, 3), np.int32), kernels=kernels)
    with pytest.raises(TilecError, match="overlapping elements"):
        tc.copy_(np.lib.stride_tricks.as_strided(x, (80, 80), (0, 4)), x.T.copy(), kernels=kernels)
    with pytest.raises(TilecError, match="unsupported dtype complex64"):
        tc.copy_(np.zeros(3, np.complex64), np.zeros(3, np.complex64), kernels=kernels)
    assert np.array_equal(x, before)


def test_benchmark_generator_patterns_match_numpy(nvrtc_available):
    """The strided-copy benchmark's generator, at a few KiB per tensor: every kind of
    case (permutes of rank 2-6, slices, broadcasts, strided destinations, conversions)
    through the compiled kernels on the reference executor, against NumPy, elements
    outside dst untouched."""
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    from strided_copy_bench import generate_cases

    cases = generate_cases(seed=7, count=24, lo_mib=0.002, hi_mib=0.02)
    assert len({c.kind for c in cases}) == 6
    rng = np.random.default_rng(7)
    kernels = CopyKernels(arch="sm_90")
    for c in cases:
        base = _random_values(rng, c.src_dtype, c.base)
        if c.src_dtype in ("float16", "float32", "float64"):
            base = np.clip(base, -120, 120).astype(base.dtype)
        src = base[tuple(slice(*ix) for ix in c.src_index)].transpose(c.src_perm)
        hold = np.dtype(_HOLD.get(c.dst_dtype, c.dst_dtype))
        out = np.full(c.dst_base, 77, hold)
        want = out.copy()
        window = tuple(slice(*ix) for ix in c.dst_index)
        want[window] = _expected(c.dst_shape, src, c.src_dtype, c.dst_dtype).view(hold)
        copy_numpy(out[window], src, src_dtype=c.src_dtype, dst_dtype=c.dst_dtype,
                   compiled=True, kernels=kernels)
        assert np.array_equal(out.view(np.uint8), want.view(np.uint8)), c.name


def test_index_bits_32_where_every_covered_offset_fits(routes):
    """`CopyKey.index_bits`: 32 where every offset the tiles compute fits in 32 bits,
    masked elements of edge tiles included; the program
    then carries the promise (the tiled kernel's: not the realign kernel's). (Case 30's
    pattern takes the box strategy, passes/_box_tile.py: turned off here to test the tiled
    kernel's offsets on it.)"""
    from tilec.copy_plan import index_bits
    from tilec.copy_program import pass_tile

    routes(realign="never", box="never")

    def plan(m, n, dtype="uint8"):
        return plan_copy(op((m, n), dtype=dtype), op((m, n), (1, m), dtype=dtype))

    # strided set case 30 made larger: the 19 rows are taken whole, in a tile of their
    # class, 32, so the masked rows reach offset 31 n of the dst
    small = plan(19, 60_000_000)  # 31 n + n - 1 < 2^31
    assert pass_tile(small.key)[0] == 32 and small.key.index_bits == 32
    assert "attributes {tilec.index_bits = 32 : i64}" in copy_program(small.key)
    assert plan(19, 70_000_000).key.index_bits == 64  # 32 n > 2^31 > 19 n
    big = plan(19, 115_000_000)  # 19 n > 2^31
    assert big.key.index_bits == 64
    assert "tilec.index_bits" not in copy_program(big.key)
    # the last element fits (3 n - 1 < 2^31) but the edge tile's masked fourth row
    # does not (the tile along the 3 rows is their class, 4): 64; 500M rows fit
    n = 600_000_000
    edge = plan_copy(op((3, n), dtype="int8"), op((3, n), (1, 3), dtype="int8"))
    assert 3 * n - 1 < 2**31 and pass_tile(edge.key)[0] == 4 and edge.key.index_bits == 64
    assert index_bits(edge.key, [3, 500_000_000], [1, 3], [500_000_000, 1]) == 32
    # every element size takes 32 where it fits, as the Program of the same views does
    # (the 8192^2 f16 transpose ran at 0.41 of cudaMemcpy with 64-bit offsets, 0.96 with 32)
    assert plan(100, 500, "float16").key.index_bits == 32
    assert plan(100, 500, "float64").key.index_bits == 32
    # a broadcast into a padded dst (the tiled kernel; into a flat one, the gather's)
    padded = op((4456, 37, 1120), (37 * 1124, 1124, 1), dtype="int16")
    row = plan_copy(padded, op((4456, 37, 1120), (0, 1120, 1), dtype="int16"))
    assert not row.key.dst_flat and row.key.index_bits == 32
    # a copy the gather strategy takes (copy_plan.may_gather) gets 32-bit offsets where
    # its flat indices fit, whatever its element size
    gathered = plan_copy(op((100000, 5)), op((100000, 5), (1, 100000)))
    assert gathered.key.dst_flat and gathered.key.index_bits == 32
