"""The speed parts of tilec.copy_, without a GPU: the `tile` pass's choice for the
facts a copy program states, checked on the CPU reference executor, host functions as recipes
(`runtime/host_ops`), the disk cache of copy kernels (runtime/cache.py's launch entries) and the packed
driver launch (`runtime/raw_launch`) against a fake driver."""

from __future__ import annotations

import ctypes
import math

import numpy as np
import pytest

from tilec.copy_cpu import _operand, copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.copy_plan import Operand, plan_copy
from tilec.copy_program import copy_program, pass_tile
from tilec.runtime import raw_launch
from tilec.runtime.host_ops import RecipeProgram


@pytest.fixture(autouse=True)
def tiled_kernel_only(routes):
    """These tests are about the tiled kernel: the gather strategy (passes/_gather_tile.py,
    tests/unit/test_copy_gather.py) would take some of their small odd shapes."""

    routes(gather="never")


@pytest.fixture(scope="module")
def kernels() -> CopyKernels:
    return CopyKernels(arch="sm_90")


def c_strides(shape):
    out, step = [], 1
    for n in reversed(shape):
        out.insert(0, step)
        step *= n
    return tuple(out)


def plan_of(shape, perm=None, dtype="int8", src_strides=None):
    """dst C-contiguous of `shape`; src `x.transpose(perm)` of a C-contiguous x (or
    the given strides)."""
    shape = tuple(shape)
    if src_strides is None:
        perm = perm or tuple(range(len(shape)))
        inv = [perm.index(k) for k in range(len(shape))]
        base = tuple(shape[inv[j]] for j in range(len(shape)))
        st = c_strides(base)
        src_strides = tuple(st[perm[k]] for k in range(len(shape)))
    return plan_copy(Operand(1 << 20, dtype, shape, c_strides(shape)), Operand(1 << 24, dtype, shape, src_strides))


# ----------------------------------------------------------------------------- tile choice


def test_short_permutes_fold_further_modes_into_the_tile():
    """A rank-6 permute of short extents: both contiguous modes tiled, and what they
    leave of the 16 KiB budget goes to further modes in the dst's memory order (the
    `tile` pass's rule, for a Program as for `copy_`)."""
    plan = plan_of((3, 2, 5, 4, 5, 7), (4, 1, 3, 5, 0, 2), "float32")
    tile = pass_tile(plan.key)
    assert sum(t > 1 for t in tile) >= 3
    assert math.prod(tile) * 4 <= 128 * 1024  # a misaligned transpose's budget


def _chosen_tile(key) -> tuple[int, ...]:
    from tilec.compiler.pipeline import parse_module, run_pipeline
    from tilec.dialects.layout import TileOp

    module = parse_module(copy_program(key))
    run_pipeline(module, "expand-iterators,tile")
    return next(tuple(int(x) for x in op.tile.get_values()) for op in module.walk() if isinstance(op, TileOp))


@pytest.mark.parametrize("shape,src_strides,dtype", [
    ((19, 100000), (300000, 2), "float16"),       # a short outer mode, a stepped src
    ((17, 7775), (7775 * 3, 1), "int8"),          # rows read contiguously
    ((346, 37, 1691, 17), (629, 1, 217634, 37), "int8"),  # short modes both sides
    ((42, 299, 12489), (1, 42, 12558), "float16"),
    ((19, 38647519), (1, 19), "int8"),
    ((2532, 6882), (1, 0), "int32"),              # a column broadcast along rows
])
def test_the_program_states_facts_and_the_pass_chooses_the_tile(routes, shape, src_strides, dtype):
    """The copy program pins no tile: its small extents are promised at most their
    class (`at_most`), and the tile the `tile` pass chooses from them is `pass_tile`
    (which the front end's rules read); a small mode is taken whole."""
    routes(realign="never", box="never")
    plan = plan_of(shape, dtype=dtype, src_strides=src_strides)
    text = copy_program(plan.key)
    assert "tile = array" not in text
    small = [c for c in plan.key.small_extents if c]
    if small:
        assert "at_most = array<i64: " in text
    tile = _chosen_tile(plan.key)
    assert tile == pass_tile(plan.key)
    for t, c in zip(tile, plan.key.small_extents):  # at most the power of two covering the promise
        assert c is None or t <= 1 << (c - 1).bit_length()  # (an exact extent where `_source_run_facts` states it)


@pytest.mark.parametrize("src_strides,dst_strides", [((None, 1), (None, 1)), ((1, None), (None, 1)), ((None,), (1,))])
def test_a_key_that_knows_no_extent_gets_the_tile_the_pass_chooses(src_strides, dst_strides):
    """A `CopyKey` stating only dtypes, stride classes and alignments (no extent
    class: every extent a run-time value) is a whole key: `pass_tile`, which the front
    end's rules read, is the tile the `tile` pass chooses for its program, as for the
    key that states every extent unknown."""
    from dataclasses import replace

    from tilec.copy_key import CopyKey

    key = CopyKey("float32", "float32", src_strides, dst_strides, 16, 16)
    tile = pass_tile(key)
    assert len(tile) == key.rank and tile == _chosen_tile(key)
    assert tile == pass_tile(replace(key, small_extents=(None,) * key.rank, exact_extents=(False,) * key.rank))


def test_the_key_carries_the_src_order():
    plan = plan_of((7, 9, 11, 13), src_strides=(13, 7 * 11 * 13, 1, 11))
    order = plan.key.src_order
    assert sorted(order) == list(range(plan.key.rank))
    ss = plan.src_strides
    assert [ss[k] for k in order] == sorted(ss)


@pytest.mark.parametrize(
    "shape,perm,dtype",
    [
        ((5, 3, 7, 4, 6), (4, 2, 1, 3, 0), "int8"),
        ((33, 17, 19), (0, 2, 1), "int32"),
        ((3, 2, 5, 4, 5, 7), (4, 1, 3, 5, 0, 2), "float32"),
        ((9, 4, 3, 17), (1, 3, 0, 2), "float64"),
        ((19, 1001), (1, 0), "int8"),
        ((37, 45, 17), (0, 2, 1), "uint8"),
    ],
)
def test_folded_tiles_copy_exactly(shape, perm, dtype, kernels, nvrtc_available, routes):
    """The compiled kernels of folded tiles, run by the reference executor (the box
    kernel, which takes the int8 transpose, turned off)."""

    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    routes(box="never")
    rng = np.random.default_rng(sum(shape))
    src = rng.integers(-100, 100, size=shape).astype(dtype).transpose(perm)
    dst = np.full(src.shape, 77, dtype=dtype)
    plan = plan_copy(_operand(dst, None), _operand(src, None))
    assert sum(t > 1 for t in pass_tile(plan.key)) >= 2
    copy_numpy(dst, src, compiled=True, kernels=kernels)
    assert np.array_equal(dst, src)


@pytest.mark.parametrize(
    "shape,dst_rows,dtype",
    [((3, 40, 17, 56), 59, "int32"), ((5, 3, 11, 254), 256, "int16"), ((2, 3, 9, 1123), 1125, "uint8")],
)
def test_row_tiles_and_folds_copy_exactly(shape, dst_rows, dtype, kernels, nvrtc_available, routes):
    """The compiled kernels of row tiles (cases 16 and 38 in small; 34's short rows
    for contrast), into padded dst rows, run by the reference executor: every byte of the
    dst buffer, padding included (the tiled kernel's; misaligned rows take the realign
    strategy, passes/_realign_tile.py)."""

    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    routes(realign="never")
    rng = np.random.default_rng(shape[-1])
    src = rng.integers(-100, 100, size=shape).astype(dtype)
    big = np.full((*shape[:-1], dst_rows), 77, dtype=dtype)
    dst = big[..., 1 : 1 + shape[-1]]
    want = big.copy()
    want[..., 1 : 1 + shape[-1]] = src
    plan = plan_copy(_operand(dst, None), _operand(src, None))
    copy_numpy(dst, src, compiled=True, kernels=kernels)
    assert np.array_equal(big, want)


def test_sliced_copies_with_short_rows_copy_exactly(kernels, nvrtc_available):
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    rng = np.random.default_rng(9)
    base = rng.integers(-1000, 1000, size=(9, 7, 19, 40)).astype(np.int16)
    src = base[1:6, ::2, 2:, 3:37:2]  # no stride-1 mode
    dst = np.full(src.shape, 5, np.int16)
    copy_numpy(dst, src, compiled=True, kernels=kernels)
    assert np.array_equal(dst, src)


# ----------------------------------------------------------------------------- recipes


def test_host_recipes_give_the_host_function_launches(kernels, nvrtc_available):
    """RecipeProgram (no xDSL) computes what HostProgram computes, for copy kernels
    of several ranks and random sizes."""
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    rng = np.random.default_rng(1)
    for shape, perm in (((70, 90), (1, 0)), ((5, 3, 7, 4, 6), (4, 2, 1, 3, 0)), ((100000,), (0,))):
        plan = plan_of(shape, perm, "float32")
        entry = kernels.get(plan.key)
        host = entry.kernel.host_program
        recipe = host.recipe
        assert recipe is not None
        program = RecipeProgram(recipe)
        for _ in range(5):
            args = ["s", "d", *(int(v) for v in rng.integers(1, 5000, size=len(plan.args)))]
            assert program.run(args) == host.run(args)


# ----------------------------------------------------------------------------- disk cache


def test_disk_entries_round_trip(tmp_path, monkeypatch, kernels, nvrtc_available):
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    from tilec.copy_kernels import DISK_KIND, CopyKernel, entry_key
    from tilec.runtime import cache

    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    plan = plan_of((5, 3, 7, 4, 6), (4, 2, 1, 3, 0), "int16")
    entry = kernels.get(plan.key)
    key = entry_key(plan.key, "default", "sm_90")
    assert cache.load_launch(DISK_KIND, key) is None
    assert cache.store_launch(DISK_KIND, key, entry.kernel, b"\x00cubin\xff")
    back = cache.load_launch(DISK_KIND, key)
    assert back is not None and back.cubin == b"\x00cubin\xff"
    copy = CopyKernel(plan.key, back)
    assert copy.param_types == entry.param_types and copy._params == entry._params
    args = [0, 0, *plan.args]
    assert copy._host.run(args) == entry._host.run(args)
    # another architecture, pipeline or key misses; a damaged entry is ignored
    assert cache.load_launch(DISK_KIND, entry_key(plan.key, "default", "sm_80")) is None
    assert cache.load_launch(DISK_KIND, entry_key(plan.key, "other", "sm_90")) is None
    cache.entry_path(DISK_KIND, key).write_text("{not json")
    assert cache.load_launch(DISK_KIND, key) is None


# ----------------------------------------------------------------------------- raw launch


def test_raw_launch_packs_fixed_and_per_call_arguments(monkeypatch):
    calls = []

    def fake_launch(fn, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        types = [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int64, ctypes.c_int32]
        ptrs = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
        values = [ctypes.cast(ptrs[i], ctypes.POINTER(t)).contents.value for i, t in enumerate(types)]
        calls.append((fn, (gx, gy, gz), (bx, by, bz), smem, stream, values))
        return 0

    monkeypatch.setattr(raw_launch, "_kernel_launch", lambda: fake_launch)
    launch = raw_launch.RawLaunch((7, 2), (256,), 1024, ["u64", "u64", "i64", "i32"], [None, None, -5, 9])
    launch(11, 22, 1 << 40, 123)
    launch(11, 0, 8, 16)
    assert calls[0] == (11, (7, 2, 1), (256, 1, 1), 1024, 22, [1 << 40, 123, -5, 9])
    assert calls[1][-1] == [8, 16, -5, 9]


def test_pair_launcher_packs_like_the_general_call(monkeypatch):
    calls = []

    def fake_launch(fn, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        types = [ctypes.c_int32, ctypes.c_uint64, ctypes.c_uint64]
        ptrs = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
        values = [ctypes.cast(ptrs[i], ctypes.POINTER(t)).contents.value for i, t in enumerate(types)]
        calls.append((fn, (gx, gy, gz), (bx, by, bz), smem, stream, values))
        return 0

    monkeypatch.setattr(raw_launch, "_kernel_launch", lambda: fake_launch)
    launch = raw_launch.RawLaunch((3, 4, 5), (128, 2), 256, ["i32", "u64", "u64"], [-7, None, None])
    pair = launch.pair_launcher()
    pair(9, 33, 1 << 45, 64)
    launch(9, 33, 1 << 45, 64)
    pair(9, 0, 16, 32)
    assert calls[0] == calls[1] == (9, (3, 4, 5), (128, 2, 1), 256, 33, [-7, 1 << 45, 64])
    assert calls[2][-1] == [-7, 16, 32]


def test_pair_launcher_reports_errors_and_needs_two_slots(monkeypatch):
    from tilec.support.diagnostics import TilecError

    class Failed(Exception):
        status = 702

    def raising(*args):
        raise Failed()

    monkeypatch.setattr(raw_launch, "_kernel_launch", lambda: lambda *a: 700)
    with pytest.raises(TilecError, match="CUresult 700"):
        raw_launch.RawLaunch((1,), (32,), 0, ["u64", "u64"], [None, None]).pair_launcher()(1, 0, 5, 6)
    monkeypatch.setattr(raw_launch, "_kernel_launch", lambda: raising)
    monkeypatch.setattr(raw_launch, "DriverError", Failed)
    with pytest.raises(TilecError, match="CUresult 702"):
        raw_launch.RawLaunch((1,), (32,), 0, ["u64", "u64"], [None, None]).pair_launcher()(1, 0, 5, 6)
    with pytest.raises(ValueError, match="2 free slots"):
        raw_launch.RawLaunch((1,), (32,), 0, ["u64", "u64"], [None, 3]).pair_launcher()


def test_raw_launch_reports_driver_errors(monkeypatch):
    from tilec.support.diagnostics import TilecError

    monkeypatch.setattr(raw_launch, "_kernel_launch", lambda: lambda *a: 700)
    launch = raw_launch.RawLaunch((1,), (32,), 0, ["u64"], [None])
    with pytest.raises(TilecError, match="CUresult 700"):
        launch(1, 0, 5)


def test_raw_launch_reports_errors_raised_by_cupys_binding(monkeypatch):
    from tilec.support.diagnostics import TilecError

    class Failed(Exception):
        status = 701

    def raising(*args):
        raise Failed()

    monkeypatch.setattr(raw_launch, "_kernel_launch", lambda: raising)
    monkeypatch.setattr(raw_launch, "DriverError", Failed)
    launch = raw_launch.RawLaunch((1,), (32,), 0, ["u64"], [None])
    with pytest.raises(TilecError, match="CUresult 701"):
        launch(1, 0, 5)


def test_raw_launch_goes_through_cupys_driver_binding():
    from cupy_backends.cuda.api import driver

    assert raw_launch._kernel_launch() is driver.launchKernel
    assert raw_launch.DriverError is driver.CUDADriverError


def test_fast_path_tests_overlap_and_device_then_launches(monkeypatch, kernels, nvrtc_available):
    """`Launcher.fast_path` (the cached call of two torch tensors) against a fake
    driver: it launches with the plan's shifted pointers on the stream of the
    launcher's device, the first call and the later ones (the pair closure) alike; it
    launches nothing and says False where the general path must run (bytes shared
    with src, another device current), and True without a launch for the very same
    view and for an empty copy."""
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    from tilec.copy_launch import Launcher, PartsLauncher

    launched = _record_launches(monkeypatch)
    dst = Operand(1 << 20, "float32", (70, 90), (90, 1), device=0)
    src = Operand(1 << 24, "float32", (70, 90), (1, 70), device=0)  # a transpose
    plan = plan_copy(dst, src)
    entry = kernels.get(plan.key)
    monkeypatch.setattr(type(entry), "function_handle", lambda self, name: 77)
    launcher = Launcher(entry, plan, dst, src)
    current = [0]
    fast = launcher.fast_path(lambda: current[0], lambda device: 500 + device)
    expected = (77, 500, plan.src_ptr, plan.dst_ptr)
    assert fast(dst.ptr, src.ptr) and fast(dst.ptr, src.ptr)
    assert launched == [expected, expected]
    moved = 1 << 30  # another pair of pointers with the same alignment
    assert fast(dst.ptr + moved, src.ptr)
    assert launched[-1] == (77, 500, plan.src_ptr, plan.dst_ptr + moved)
    del launched[:]
    assert not fast(src.ptr + 64, src.ptr)  # dst inside src's bytes
    current[0] = 1
    assert not fast(dst.ptr, src.ptr)  # another device current
    assert launched == []
    same_plan = plan_copy(dst, dst)  # the very same view: a no-op
    same = Launcher(kernels.get(same_plan.key), same_plan, dst, dst)
    current[0] = 0
    assert same.fast_path(lambda: 0, lambda device: 0)(dst.ptr, dst.ptr) and launched == []
    parts = PartsLauncher([(launcher, 0, 0, False), (launcher, 8, 4, True)], dst, src)
    fast_parts = parts.fast_path(lambda: 0, lambda device: 9)
    assert fast_parts(dst.ptr, src.ptr) and fast_parts(dst.ptr, src.ptr)  # each call launches every part
    second = (77, 9, plan.src_ptr - src.ptr + dst.ptr + 4, plan.dst_ptr + 8)
    assert launched == [(77, 9, plan.src_ptr, plan.dst_ptr), second] * 2
    del launched[:]
    empty_dst = Operand(1 << 20, "float32", (0, 90), (90, 1), device=0)
    empty = Launcher(None, plan_copy(empty_dst, empty_dst), empty_dst, empty_dst)
    assert empty.fast_path(lambda: 1, lambda device: 0)(5, 5) and launched == []


def test_fast_path_at_one_address_with_other_strides_is_not_the_same_view(monkeypatch, kernels, nvrtc_available):
    """dst and src at one address, of one dtype and shape but other strides (a
    transpose in place): their bytes overlap and they are not the very same view, so
    the fast path launches nothing and says False (the general path must run); the
    very same view at one address is a no-op (True)."""
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    from tilec.copy_launch import Launcher

    launched = []
    monkeypatch.setattr(raw_launch, "_kernel_launch", lambda: lambda *a: launched.append(a) or 0)
    base = 1 << 20
    dst = Operand(base, "float32", (64, 64), (1, 64), device=0)  # (1, 64) < (64, 1) as tuples
    src = Operand(base, "float32", (64, 64), (64, 1), device=0)
    plan = plan_copy(dst, Operand(1 << 24, "float32", (64, 64), (64, 1), device=0))
    entry = kernels.get(plan.key)
    monkeypatch.setattr(type(entry), "function_handle", lambda self, name: 77)
    launcher = Launcher(entry, plan, dst, src)
    assert launcher.overlap(base, base) == "partial"
    assert launcher.fast_path(lambda: 0, lambda device: 0)(base, base) is False
    same = Launcher(entry, plan, src, src)
    assert same.overlap(base, base) == "same"
    assert same.fast_path(lambda: 0, lambda device: 0)(base, base) is True
    assert launched == []


def test_fast_path_of_one_launch_calls_the_pair_closure_after_the_first_call(monkeypatch, kernels, nvrtc_available):
    """A copy of one launch taking (src, dst): the first call goes through
    `launch_raw` (which loads the kernel), every later call through the cached pair
    launch alone, with nothing looked up per call (`launch_raw` is not called again)."""
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    from tilec.copy_launch import Launcher

    launched = _record_launches(monkeypatch)
    dst = Operand(1 << 20, "float32", (70, 90), (90, 1), device=0)
    src = Operand(1 << 24, "float32", (70, 90), (1, 70), device=0)
    plan = plan_copy(dst, src)
    entry = kernels.get(plan.key)
    monkeypatch.setattr(type(entry), "function_handle", lambda self, name: 77)
    launcher = Launcher(entry, plan, dst, src)
    assert len(launcher.launches) == 1
    raw_calls = []
    launch_raw = launcher.launch_raw
    monkeypatch.setattr(launcher, "launch_raw", lambda *args: raw_calls.append(args) or launch_raw(*args))
    fast = launcher.fast_path(lambda: 0, lambda device: 3)
    assert fast(dst.ptr, src.ptr) and fast(dst.ptr, src.ptr) and fast(dst.ptr + 64, src.ptr)
    assert raw_calls == [(dst.ptr, src.ptr, 0, 3)]
    assert launched == [(77, 3, plan.src_ptr, plan.dst_ptr)] * 2 + [(77, 3, plan.src_ptr, plan.dst_ptr + 64)]


def _record_launches(monkeypatch) -> list:
    """Replace the driver's kernel launch by a recorder: each launch appends (function,
    stream, its first two pointer arguments, src and dst)."""
    launched: list = []

    def fake_launch(fn, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        ptrs = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
        src, dst = (ctypes.cast(ptrs[i], ctypes.POINTER(ctypes.c_uint64)).contents.value for i in (0, 1))
        launched.append((fn, stream, src, dst))
        return 0

    monkeypatch.setattr(raw_launch, "_kernel_launch", lambda: fake_launch)
    return launched
