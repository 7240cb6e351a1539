"""`@tilec.jit` kernels (compiler/jit.py traces, api/jit_launch.py launches): traced
bodies run on the CPU reference executor on NumPy arrays and match NumPy exactly;
specialisation is per (dtypes, constexprs, divisibility by 16, == 1), never per shape,
counted with the `on_compile` hook; errors are located at the kernel's own lines; the
disk cache serves a new JITFunction of the same source. GPU launches on PyTorch and
CuPy are marked `gpu`."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import tilec
from tilec.support.diagnostics import TilecError

HAS_TORCH = importlib.util.find_spec("torch") is not None
L1 = tilec.BlockedLayout([4], [32], [4], [0])


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))


def _add_one():
    @tilec.jit
    def add_one(x, y, n, BLOCK: tilec.constexpr):
        offs = tilec.program_id(0) * BLOCK + tilec.arange(0, BLOCK, L1)
        mask = offs < n
        tilec.store(y.ptr + offs, tilec.load(x.ptr + offs, mask=mask) + 1.0, mask=mask)

    return add_one


def _counted(kernel):
    keys = []
    kernel.on_compile.append(keys.append)
    return keys


def test_pointer_kernel_matches_numpy_and_compiles_once_per_specialisation():
    add_one = _add_one()
    keys = _counted(add_one)
    for n in (1000, 3000, 520):  # n % 16 == 8 each time: one specialisation, three shapes
        x = np.arange(n, dtype=np.float32)
        y = np.zeros_like(x)
        add_one[(tilec.cdiv(n, 512),)](x, y, n, BLOCK=512)
        assert np.array_equal(y, x + 1)
    assert len(keys) == 1 and add_one.stats.compiles == 1 and add_one.stats.memory_hits == 2


def test_a_new_divisibility_or_constexpr_compiles_again():
    add_one = _add_one()
    keys = _counted(add_one)
    x = np.arange(1024, dtype=np.float32)
    y = np.zeros_like(x)
    add_one[(4,)](x[:1000], y[:1000], 1000, BLOCK=256)
    add_one[(4,)](x, y, 1024, BLOCK=256)           # n % 16 == 0: a new key
    assert np.array_equal(y, x + 1)
    add_one[(2,)](x, y, 1024, BLOCK=512)           # another constexpr: a new key
    add_one[(1,)](x[1:], y[1:], 1, BLOCK=512)      # n == 1, and an address not 16-byte aligned
    assert len(keys) == 4
    assert keys[0] != keys[1]


def test_the_key_holds_facts_not_shapes():
    add_one = _add_one()
    a, b = np.zeros(1000, np.float32), np.zeros(1000, np.float32)
    k1 = add_one.key(a, b, 1000, BLOCK=512)
    k2 = add_one.key(np.zeros(3000, np.float32), np.zeros(3000, np.float32), 3000, BLOCK=512)
    assert k1 == k2
    assert add_one.key(a, b, 1024, BLOCK=512) != k1
    assert add_one.key(a.astype(np.float16), b.astype(np.float16), 1000, BLOCK=512) != k1


def _softmax():
    @tilec.jit
    def softmax(x, y, BLOCK: tilec.constexpr, num_warps: tilec.constexpr):
        L = tilec.BlockedLayout([1, 4], [1, 32], [1, num_warps], [1, 0])
        row = tilec.program_id(0)
        v = tilec.load(tilec.tile(x, (row, 0), (1, BLOCK)), L, other=float("-inf"))
        e = tilec.exp(v - tilec.expand_dims(tilec.max(v, 1), 1))
        tilec.store(tilec.tile(y, (row, 0), (1, BLOCK)), e / tilec.expand_dims(tilec.sum(e, 1), 1))

    return softmax


def test_view_softmax_with_run_time_rows_and_a_masked_row():
    softmax = _softmax()
    keys = _counted(softmax)
    rng = np.random.default_rng(0)
    for m, n in ((5, 1000), (9, 1000), (3, 600)):
        x = rng.standard_normal((m, n), dtype=np.float32)
        y = np.zeros_like(x)
        softmax[(m,)](x, y, BLOCK=1024, num_warps=2)
        e = np.exp(x - x.max(1, keepdims=True))
        np.testing.assert_allclose(y, e / e.sum(1, keepdims=True), rtol=2e-6, atol=1e-9)
    assert len(keys) == 1


def test_extents_and_strides_known_divisible_are_promised_in_the_kernel():
    @tilec.jit
    def rows(x, y):
        tilec.store(tilec.tile(y, (0, 0), (1, 1)), tilec.full([1, 1], 0.0, "f32", tilec.BlockedLayout(
            [1, 1], [1, 32], [1, 4], [1, 0])) + (x.shape[0] * x.strides[0]).cast("f32"))

    text = tilec.emit(rows.trace(np.zeros((32, 16), np.float32), np.zeros((1, 1), np.float32)))
    # x: extents 32 and 16 and row stride 16 are % 16 (the view's divisible, and x.shape / x.strides
    # promised for arithmetic); its column stride is 1, in the layout itself; all of y is 1
    assert text.count("layout.multiple_of") == 3 and "divisible = array<i64: 16, 16, 16>" in text
    assert "#layout.cute<(?,?):(?,1)>" in text and "#layout.cute<(1,1):(1,1)>" in text


def test_strided_arrays_are_views_with_run_time_strides():
    @tilec.jit
    def scale(x, y, BM: tilec.constexpr, BN: tilec.constexpr):
        L = tilec.BlockedLayout([1, 1], [4, 8], [2, 2], [1, 0])
        tx = tilec.tile(x, (tilec.program_id(0), tilec.program_id(1)), (BM, BN))
        ty = tilec.tile(y, (tilec.program_id(0), tilec.program_id(1)), (BM, BN))
        tilec.store(ty, tilec.load(tx, L) * 2.0 - 1.0)

    keys = _counted(scale)
    base = np.arange(40 * 70, dtype=np.float32).reshape(40, 70)
    for x in (base, base.T, base[::2, 1::3]):
        y = np.zeros(x.shape, np.float32)
        scale[(tilec.cdiv(x.shape[0], 16), tilec.cdiv(x.shape[1], 16))](x, y, BM=16, BN=16)
        assert np.array_equal(y, x * 2 - 1)
        yt = np.zeros(x.shape[::-1], np.float32).T           # a column-major destination
        scale[(tilec.cdiv(x.shape[0], 16), tilec.cdiv(x.shape[1], 16))](x, yt, BM=16, BN=16)
        assert np.array_equal(yt, x * 2 - 1)
    assert len(keys) >= 2  # stride 1 in another mode is another specialisation


def test_static_range_unrolls_and_range_carries_a_value():
    @tilec.jit
    def row_sums(x, y, n_chunks, CHUNK: tilec.constexpr):
        L = tilec.BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0])
        row = tilec.program_id(0)
        acc = tilec.zeros([1], "f32", tilec.SliceLayout(1, L))
        for c in tilec.range(0, n_chunks, carry=[acc]):
            acc += tilec.sum(tilec.load(tilec.tile(x, (row, c), (1, CHUNK)), L), 1)
        out = acc
        for _ in tilec.static_range(3):                   # unrolled: out * 2 three times
            out = out * 2.0
        tilec.store(tilec.tile(y, (row, 0), (1, 1)), tilec.expand_dims(out, 1))

    x = np.arange(6 * 512, dtype=np.float32).reshape(6, 512) % 7
    y = np.zeros((6, 1), np.float32)
    row_sums[(6,)](x, y, 4, CHUNK=128)
    assert np.array_equal(y[:, 0], x.sum(1) * 8)
    assert tilec.emit(row_sums.trace(x, y, 4, CHUNK=128)).count("scf.for") == 1


def test_if_is_a_run_time_branch():
    @tilec.jit
    def first_rows(x, y, limit, BLOCK: tilec.constexpr):
        L = tilec.BlockedLayout([1, 4], [1, 32], [1, 1], [1, 0])
        row = tilec.program_id(0)
        with tilec.if_(row < limit):
            tilec.store(tilec.tile(y, (row, 0), (1, BLOCK)), tilec.load(tilec.tile(x, (row, 0), (1, BLOCK)), L))

    x = np.arange(8 * 128, dtype=np.float32).reshape(8, 128)
    y = np.zeros_like(x)
    first_rows[(8,)](x, y, 5, BLOCK=128, num_warps=1)
    assert np.array_equal(y[:5], x[:5]) and not y[5:].any()


def test_where_comparisons_and_scalar_splat():
    @tilec.jit
    def relu_ish(x, y, n, t, BLOCK: tilec.constexpr):
        offs = tilec.program_id(0) * BLOCK + tilec.arange(0, BLOCK, L1)
        v = tilec.load(x.ptr + offs, mask=offs < n)
        tilec.store(y.ptr + offs, tilec.where(v > t, v, 0.0) + tilec.maximum(v, 1.0) * 0.5, mask=offs < n)

    x = (np.arange(700, dtype=np.float32) - 350) / 7
    y = np.zeros_like(x)
    relu_ish[(2,)](x, y, 700, 2.5, BLOCK=512)
    assert np.array_equal(y, np.where(x > np.float32(2.5), x, 0) + np.maximum(x, 1) * np.float32(0.5))


def test_the_cuda_of_a_jit_kernel_compiles_with_nvrtc():
    add_one = _add_one()
    x, y = np.zeros(1000, np.float32), np.zeros(1000, np.float32)
    add_one[(2,)](x, y, 1000, BLOCK=512)
    kernel = next(iter(add_one._kernels.values()))
    assert "add_one_kernel(" in kernel.source
    assert kernel.compile("sm_90").cubin


def test_disk_cache_serves_a_new_process_image():
    x = np.arange(1000, dtype=np.float32)
    first = _add_one()
    first[(2,)](x, np.zeros_like(x), 1000, BLOCK=512)
    again = _add_one()                 # the same source: what a new process would find
    keys = _counted(again)
    y = np.zeros_like(x)
    again[(2,)](x, y, 1000, BLOCK=512)
    assert np.array_equal(y, x + 1)
    assert keys == [] and again.stats.disk_hits == 1 and again.stats.compiles == 0


def _error(fn, *args, **kwargs) -> TilecError:
    with pytest.raises(TilecError) as e:
        fn(*args, **kwargs)
    return e.value


def _line_of(fn, text: str) -> int:
    import inspect

    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_python_if_on_a_traced_value_is_a_located_error():
    def body(x, y, n):
        if tilec.program_id(0) < n:
            pass

    k = tilec.jit(body)
    e = _error(k[(1,)], np.zeros(4, np.float32), np.zeros(4, np.float32), 4)
    assert "tilec.if_" in str(e) and e.loc.startswith(f"{__file__}:{_line_of(body, 'if tilec.program_id')}:")


def test_python_errors_in_the_body_are_located():
    def body(x, y):
        tilec.store(y.ptr, undefined_name)  # noqa: F821

    e = _error(tilec.jit(body)[(1,)], np.zeros(4, np.float32), np.zeros(4, np.float32))
    line = _line_of(body, "undefined_name")
    # the column (1-based) of the failing expression, the name read
    import linecache

    col = linecache.getline(__file__, line).index("undefined_name") + 1
    assert "NameError" in str(e) and e.loc == f"{__file__}:{line}:{col}"


def test_builder_errors_name_the_kernel_line():
    def body(x, y, BLOCK: tilec.constexpr):
        offs = tilec.arange(0, BLOCK, L1)
        tilec.store(y.ptr + offs, tilec.load(x.ptr + offs) + tilec.arange(0, BLOCK, L1))

    e = _error(tilec.jit(body)[(1,)], np.zeros(512, np.float32), np.zeros(512, np.float32), BLOCK=512)
    assert "convert one with .cast()" in str(e)
    assert e.loc.startswith(f"{__file__}:{_line_of(body, 'tilec.store(')}:")


def test_traced_ops_carry_the_users_lines():
    add_one = _add_one()
    p = add_one.trace(np.zeros(8, np.float32), np.zeros(8, np.float32), 8, BLOCK=512)
    from tilec.support.locations import get_loc

    locs = {get_loc(op) for op in p.module.walk() if op.name.startswith("layout.ptr")}
    assert locs and all(loc is not None and loc.startswith(__file__) for loc in locs)


@pytest.mark.parametrize("args,message", [
    ((np.zeros(4, np.float32),), "missing a required argument"),
    ((np.zeros(4, np.float32), np.zeros(4, np.float32), True), "is a bool"),
    ((np.zeros(4, np.float32), np.zeros(4, np.float32), "n"), "expected an array"),
])
def test_wrong_arguments_are_errors(args, message):
    e = _error(_add_one()[(1,)], *args, BLOCK=512)
    assert message in str(e) and e.loc.startswith(f"{__file__}:")   # at the caller's line


def test_a_jit_kernel_is_launched_with_a_grid():
    e = _error(_add_one(), 1, 2)
    assert "with a grid" in str(e) and e.loc.startswith(f"{__file__}:")
    assert "1 to 3 positive ints" in str(_error(_add_one()[(0,)], np.zeros(4, np.float32),
                                                np.zeros(4, np.float32), 4, BLOCK=512))


def test_the_language_is_exported_from_tilec():
    from tilec import _JIT_LANGUAGE
    from tilec.compiler.jit import LANGUAGE

    assert set(LANGUAGE) == _JIT_LANGUAGE
    assert all(callable(getattr(tilec, name)) for name in LANGUAGE)
    assert isinstance(tilec.jit(lambda: None), tilec.JITFunction)


@pytest.mark.gpu
def test_cupy_launch_on_the_current_stream():
    import cupy as cp

    add_one = _add_one()
    keys = _counted(add_one)
    for n in (1000, 5000):
        x = cp.arange(n, dtype=cp.float32)
        y = cp.zeros_like(x)
        side = cp.cuda.Stream()
        cp.cuda.get_current_stream().synchronize()
        with side:                                     # CuPy's current stream is where it runs
            add_one[(tilec.cdiv(n, 512),)](x, y, n, BLOCK=512)
        side.synchronize()
        assert cp.array_equal(y, x + 1)
    assert len(keys) == 1


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
def test_torch_softmax_and_dlpack():
    import torch

    softmax = _softmax()
    x = torch.randn(37, 1000, device="cuda")
    y = torch.empty_like(x)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):                      # PyTorch's current stream is where it runs
        softmax[(37,)](x, y, BLOCK=1024, num_warps=2)
    side.synchronize()
    torch.testing.assert_close(y, torch.softmax(x, 1), rtol=1e-5, atol=1e-7)
    add_one = _add_one()
    a = torch.arange(1000, device="cuda", dtype=torch.float32)
    b = torch.zeros_like(a)

    class DLPackOnly:
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__()

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    add_one[(2,)](DLPackOnly(a), DLPackOnly(b), 1000, BLOCK=512)
    assert torch.equal(b, a + 1)


class FakeDeviceArray:
    """A device array as `__cuda_array_interface__` describes one (nothing is read)."""

    def __init__(self, shape, strides_bytes, address=0x10000, typestr="<f4"):
        self.__cuda_array_interface__ = {"data": (address, False), "shape": shape, "typestr": typestr,
                                         "strides": strides_bytes, "version": 3}


def test_device_launches_pass_storage_extents_strides_and_grid():
    """What a GPU launch would pass, computed without a GPU: the pointer's storage from
    the first element to the last, each array's extents and strides, the grid."""
    softmax = _softmax()
    x = FakeDeviceArray((37, 1000), (4000 * 4, 4))      # rows 4000 elements apart
    y = FakeDeviceArray((37, 1000), (1000 * 4, 4), address=0x20000)
    [launch] = softmax.launches((37,), x, y, BLOCK=1024, num_warps=2, arch="sm_90")
    assert tuple(launch.grid) == (37, 1, 1) and tuple(launch.block) == (64, 1, 1)
    buffers = [a for a in launch.args if hasattr(a, "ptr")]
    assert [(b.ptr, b.shape) for b in buffers] == [(0x10000, (36 * 4000 + 1000,)), (0x20000, (37 * 1000,))]
    assert 4000 in launch.args and 37 in launch.args


def test_the_specialisation_facts_let_the_passes_vectorize():
    """As in Triton: with n % 16 == 0 and 16-byte aligned pointers the mask is the same
    over each vector, so every access is a 16-byte vector; with n % 16 != 0 the kernel
    keeps a per-element path for a vector the mask splits. A row length known % 16 == 0
    vectorizes the view kernel, which stays scalar without that fact."""
    add_one = _add_one()

    def source(kernel, grid, *args, **kwargs):
        keys = _counted(kernel)
        kernel.launches(grid, *args, arch="sm_90", **kwargs)
        return kernel._kernels[keys[-1]].source if keys else None

    x, y = FakeDeviceArray((1024,), None), FakeDeviceArray((1024,), None, address=0x20000)
    divisible = source(add_one, (2,), x, y, 1024, BLOCK=512)
    assert "*reinterpret_cast<f32x4*>(y + " in divisible and "y[" not in divisible
    assert "y[" in source(add_one, (2,), x, y, 1000, BLOCK=512)
    softmax = _softmax()
    rows = FakeDeviceArray((4, 1024), None), FakeDeviceArray((4, 1024), None, address=0x20000)
    assert "f32x4" in source(softmax, (4,), *rows, BLOCK=1024, num_warps=2)
    rows = FakeDeviceArray((4, 1000), None), FakeDeviceArray((4, 1000), None, address=0x20000)
    assert "f32x4" not in source(softmax, (4,), *rows, BLOCK=1024, num_warps=2)


def test_errors_of_later_passes_name_the_kernel_line():
    """The `tma` pass refuses a TMA copy of rows whose stride is not known to be a
    multiple of 16 bytes: its error is at the kernel's line that asked for it."""
    def body(x, y):
        p = tilec.builder()
        s = p.alloc("(32,32):(32,1)", "f32", "smem")
        p.copy(tilec.tile(x, (tilec.program_id(0), 0), (32, 32)), s, strategy="tma")
        p.barrier()
        p.copy(s, tilec.tile(y, (tilec.program_id(0), 0), (32, 32)))

    x = np.zeros((64, 33), np.float32)[:, :32]       # rows 33 elements apart
    e = _error(tilec.jit(body)[(2,)], x, np.zeros((64, 32), np.float32))
    assert "cannot be a TMA copy" in str(e)
    assert e.loc.startswith(f"{__file__}:{_line_of(body, 'strategy=')}:")


def test_a_kernel_from_disk_launches_as_the_compiled_one():
    """A disk entry gives the same CUDA and the same launches without parsing the
    kernels' IR; its whole module is parsed when the reference executor needs it."""
    x, y = FakeDeviceArray((37, 1000), None), FakeDeviceArray((37, 1000), None, address=0x20000)
    first = _softmax()
    [want] = first.launches((37,), x, y, BLOCK=1024, num_warps=2, arch="sm_90")
    again = _softmax()
    [got] = again.launches((37,), x, y, BLOCK=1024, num_warps=2, arch="sm_90")
    assert again.stats.disk_hits == 1 and again.stats.compiles == 0
    assert (got.kernel, tuple(got.grid), tuple(got.block)) == (want.kernel, tuple(want.grid), tuple(want.block))
    assert [getattr(a, "ptr", a) for a in got.args] == [getattr(a, "ptr", a) for a in want.args]
    assert next(iter(again._kernels.values())).source == next(iter(first._kernels.values())).source


def test_a_jit_function_called_in_a_kernel_is_inlined():
    @tilec.jit
    def scaled(v, by):
        return v * by

    @tilec.jit
    def kernel(x, y, n, BLOCK: tilec.constexpr):
        offs = tilec.program_id(0) * BLOCK + tilec.arange(0, BLOCK, L1)
        tilec.store(y.ptr + offs, scaled(tilec.load(x.ptr + offs, mask=offs < n), 3.0), mask=offs < n)

    x = np.arange(600, dtype=np.float32)
    y = np.zeros_like(x)
    kernel[(2,)](x, y, 600, BLOCK=512)
    assert np.array_equal(y, 3 * x)


def test_eq_modulo_and_negation_on_tensors():
    @tilec.jit
    def flip_thirds(x, y, n, BLOCK: tilec.constexpr):
        offs = tilec.program_id(0) * BLOCK + tilec.arange(0, BLOCK, L1)
        v = tilec.load(x.ptr + offs, mask=offs < n)
        tilec.store(offs + y.ptr, tilec.where((offs % 3).eq(0), -v, v), mask=offs < n)   # offsets + pointer too

    x = np.arange(600, dtype=np.float32)
    y = np.zeros_like(x)
    flip_thirds[(2,)](x, y, 600, BLOCK=512)
    assert np.array_equal(y, np.where(np.arange(600) % 3 == 0, -x, x))


def test_an_array_with_a_negative_stride_is_refused_with_its_name():
    e = _error(_add_one()[(1,)], np.arange(8, dtype=np.float32)[::-1], np.zeros(8, np.float32), 8, BLOCK=512)
    assert "argument 'x' has a negative stride" in str(e)


def _device(ptr: int, n: int):
    """A device array of `n` f32 at `ptr` (nothing allocated: `launches` only reads it)."""
    from tilec.runtime.launch import DeviceArray

    return DeviceArray(ptr, "float32", (n,), (1,), None, None)


def test_the_launch_cache_serves_a_repeated_call_and_keeps_every_specialisation():
    """A call with the facts of an earlier one (kinds, dtypes, alignment, extents,
    strides, integer facts, constexprs) takes its kernel from the launch cache and
    launches the same; another shape of one specialisation adds an entry, not a
    compile; a misaligned pointer, `n % 16 == 0` or another constexpr compile their
    own kernels; errors are raised on every call, never cached."""
    add_one = _add_one()
    keys = _counted(add_one)
    x, y = _device(1 << 20, 1000), _device(1 << 21, 1000)
    first = add_one.launches((2,), x, y, 1000, BLOCK=512, arch="sm_90")
    again = add_one.launches((2,), x, y, 1000, BLOCK=512, arch="sm_90")
    assert repr(again) == repr(first)
    assert len(add_one._calls) == 1 and add_one.stats.compiles == 1 and add_one.stats.memory_hits == 1
    other = add_one.launches((4,), _device(1 << 20, 2008), _device(1 << 21, 2008), 2008, BLOCK=512, arch="sm_90")
    assert len(add_one._calls) == 2 and len(keys) == 1 and repr(other) != repr(first)
    add_one.launches((2,), _device((1 << 20) + 4, 1000), y, 1000, BLOCK=512, arch="sm_90")
    add_one.launches((2,), x, y, 1024, BLOCK=512, arch="sm_90")
    add_one.launches((2,), x, y, 1000, BLOCK=256, arch="sm_90")
    assert len(keys) == 4 and len(set(keys)) == 4
    for _ in range(2):
        with pytest.raises(TilecError, match="is a bool"):
            add_one.launches((2,), x, y, True, BLOCK=512, arch="sm_90")
        with pytest.raises(TilecError, match="expected an array"):
            add_one.launches((2,), x, "y", 1000, BLOCK=512, arch="sm_90")


def test_the_launch_cache_matches_the_general_path():
    """The flat arguments of a cached call are those a fresh kernel computes."""
    cached, fresh = _add_one(), _add_one()
    x, y = _device(1 << 20, 3000), _device(1 << 21, 3000)
    cached.launches((6,), x, y, 3000, BLOCK=512, arch="sm_90")
    grid = lambda meta: (tilec.cdiv(meta["n"], meta["BLOCK"]),)  # noqa: E731
    assert repr(cached.launches(grid, x, y, 3000, BLOCK=512, arch="sm_90")) == \
        repr(fresh.launches(grid, x, y, 3000, BLOCK=512, arch="sm_90"))
    assert cached.stats.memory_hits == 1 and fresh.stats.memory_hits == 0
def test_dot_of_blocked_tiles_is_layout_dot_lowered_by_accelerate_matmul():
    """`tilec.dot` on tiles in blocked layouts (Triton's `tl.dot` as written) is
    `layout.dot`, which the default pipeline lowers (accelerate-matmul); on the CPU
    reference executor the result is A @ B (small integers: exact in any summation
    order)."""
    import numpy as np

    @tilec.jit
    def gemm(a, b, c, BM: tilec.constexpr, BN: tilec.constexpr, BK: tilec.constexpr):
        la = tilec.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
        lc = tilec.BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0])
        m, n = tilec.program_id(0), tilec.program_id(1)
        acc = tilec.zeros([BM, BN], "f32", lc)
        for k in tilec.range(0, a.shape[1] // BK, carry=[acc]):
            x = tilec.load(tilec.tile(a, (m, k), (BM, BK)), la)
            y = tilec.load(tilec.tile(b, (k, n), (BK, BN)), la)
            acc.assign(tilec.dot(x, y, acc))
        tilec.store(tilec.tile(c, (m, n), (BM, BN)), acc)

    M, N, K = 64, 64, 32
    A = (np.arange(M * K) % 7 - 3).astype(np.float16).reshape(M, K)
    B = (np.arange(K * N) % 5 - 2).astype(np.float16).reshape(K, N)
    got = np.zeros((M, N), np.float32)
    gemm[(1, 1)](A, B, got, BM=64, BN=64, BK=16)
    assert np.array_equal(got, A.astype(np.float32) @ B.astype(np.float32))
    assert "layout.dot" in tilec.emit(gemm.trace(A, B, got, BM=64, BN=64, BK=16))
