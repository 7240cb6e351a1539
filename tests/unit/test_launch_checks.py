"""The launcher without a GPU: the host-function evaluator, argument checks (on objects
that offer `__cuda_array_interface__`), and the errors that name the argument."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import StringAttr
from xdsl.dialects import test as xdsl_test

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gpu_level_samples as S  # noqa: E402
from tilec.compiler.builder_gpu_level import GpuProgram  # noqa: E402
from tilec.support.diagnostics import LOC_ATTR, TilecError  # noqa: E402
from tilec.runtime.cache import KernelCache  # noqa: E402
from tilec.compiler.artifact import host_function  # noqa: E402
from tilec.runtime.host import run_host  # noqa: E402
from tilec.runtime.launch import (  # noqa: E402
    ArgSpec,
    DeviceArray,
    Kernel,
    as_device_array,
    check_arg,
    parse_gpu_module,
)


class FakeDeviceArray:
    """Just `__cuda_array_interface__` (never dereferenced: nothing is launched)."""

    def __init__(self, ptr=0x10000, shape=(4096,), typestr="<f4", strides=None):
        self.__cuda_array_interface__ = {
            "data": (ptr, False),
            "shape": shape,
            "typestr": typestr,
            "strides": strides,
            "version": 3,
        }


@pytest.fixture(scope="module")
def copy_kernel(tmp_path_factory):
    cache = KernelCache(tmp_path_factory.mktemp("cache"))
    return Kernel(S.copy_1d("f32"), cache=cache)


# ---------------------------------------------------------------- host function


def test_host_grid_from_index_arguments():
    host = host_function(S.copy_1d("f32"))
    for n, grid in [(1, 1), (1024, 1), (1025, 2), (5000, 5)]:
        (launch,) = run_host(host, ["src", "dst", n])
        assert launch.grid == (grid, 1, 1) and launch.block == (256, 1, 1)
        assert launch.args == ("src", "dst", n)
        assert (launch.kernel, launch.module) == ("copy_kernel", "copy_kernels")


def host_program(expr, as_argument: bool = False, extra=None):
    """A host function @h(%a, %b: index) whose value `expr(g, a, b)` is the grid's x
    extent of its one launch, or (`as_argument`) the launch's one argument with a grid
    of one block; `extra(g)` builds after the launch."""
    g = GpuProgram("h")
    a, b = g.index("a"), g.index("b")
    r = expr(g, a, b).named("r")
    with g.kernel(grid=1 if as_argument else r, block=1, name="k", module="m", args=[r] if as_argument else []):
        pass
    if extra is not None:
        extra(g)
    return g.module


def arith_op(name):
    """`arith.<name> %a, %b : index` as an `expr` of `host_program`."""
    ops = {op.name: op for op in arith.Arith.operations}
    return lambda g, a, b: g.insert(ops[f"arith.{name}"](a.ssa, b.ssa)).results[0]


@pytest.mark.parametrize(
    "op, a, b, expected",
    [
        ("divsi", -7, 2, -3),
        ("remsi", -7, 2, -1),
        ("floordivsi", -7, 2, -4),
        ("ceildivsi", -7, 2, -3),
        ("ceildivsi", 7, 2, 4),
        ("ceildivui", 7, 2, 4),
        ("divui", -2, 2**62, 3),
        ("remui", 10, 4, 2),
        ("minsi", -1, 3, -1),
        ("minui", -1, 3, 3),
        ("maxui", -1, 3, -1),
        ("maxsi", -1, 3, 3),
        ("shli", 3, 4, 48),
        ("shrsi", -16, 2, -4),
        ("shrui", -16, 60, 15),
        ("muli", 2**40, 2**30, 0),  # wraps to 0
        ("addi", 2**63 - 1, 1, -(2**63)),
        ("andi", 12, 10, 8),
        ("ori", 12, 10, 14),
        ("xori", 12, 10, 6),
    ],
)
def test_host_arith(op, a, b, expected):
    # The exact value, whatever its sign: passed to the kernel as an argument.
    (launch,) = run_host(host_function(host_program(arith_op(op), as_argument=True)), [a, b])
    assert launch.args == (expected,)
    # The same value as a grid size: used when positive, refused (located) otherwise.
    host = host_function(host_program(arith_op(op)))
    if expected < 1:
        with pytest.raises(TilecError, match=f"launch size must be a positive integer, got {expected}$"):
            run_host(host, [a, b])
        return
    (launch,) = run_host(host, [a, b])
    assert launch.grid == (expected, 1, 1)


def test_host_cmpi_select_and_casts():
    def smaller_as_i32(g, a, b):
        r = g.insert(arith.CmpiOp(a.ssa, b.ssa, "ult")).results[0]
        s = g.insert(arith.SelectOp(r.ssa, a.ssa, b.ssa)).results[0].named("s")
        return s.cast("i32").named("t").cast("index").named("u")

    host = host_function(host_program(smaller_as_i32))
    assert run_host(host, [5, 9])[0].grid[0] == 5
    assert run_host(host, [2**32 + 7, 2**40])[0].grid[0] == 7  # wraps to i32


def test_host_division_by_zero():
    host = host_function(host_program(arith_op("divsi")))
    with pytest.raises(TilecError, match="division by zero"):
        run_host(host, [1, 0])


def test_host_unsupported_op():
    def located_sum(g, a, b):
        r = g.insert(arith.AddiOp(a.ssa, b.ssa))
        r.op.attributes[LOC_ATTR] = StringAttr("p.py:2:1")
        return r.results[0]

    module = host_program(located_sum, extra=lambda g: g.insert(xdsl_test.TestOp()))  # "test.op"
    with pytest.raises(TilecError, match="'test.op' is not supported in a host function"):
        run_host(host_function(module), [1, 2])


# ---------------------------------------------------------------- arguments


def test_derived_specs(copy_kernel):
    src, dst, n = copy_kernel.arg_specs
    assert src == ArgSpec("src", dtype="float32", min_elements=0, alignment=16)
    assert dst.alignment == 16 and n is None
    transpose = Kernel(S.transpose(4, 8), cache=copy_kernel.cache)
    assert transpose.arg_specs[0] == ArgSpec("src", "float32", min_elements=32, alignment=4)


def test_good_arguments(copy_kernel):
    launches = copy_kernel.launches(FakeDeviceArray(), FakeDeviceArray(0x20000), 4096)
    (launch,) = launches
    assert launch.grid == (4, 1, 1)
    src = launch.args[0]
    assert isinstance(src, DeviceArray) and src.ptr == 0x10000 and src.dtype == "float32"
    copy_kernel.launches(FakeDeviceArray(), FakeDeviceArray(), np.int64(7))


@pytest.mark.parametrize(
    "args, message",
    [
        (
            (np.zeros(8, np.float32), FakeDeviceArray(), 8),
            "argument 'src' is a host (NumPy) array; pass a device array (CuPy/PyTorch)",
        ),
        (
            (FakeDeviceArray(), FakeDeviceArray(typestr="<f2"), 8),
            "argument 'dst': expected float32, got float16",
        ),
        (
            (FakeDeviceArray(ptr=0x10004), FakeDeviceArray(), 8),
            "argument 'src': the kernel needs its address aligned to 16 bytes",
        ),
        (
            (FakeDeviceArray(), FakeDeviceArray(), 8.0),
            "argument 'n': expected an integer (index), got float",
        ),
        (
            (FakeDeviceArray(), FakeDeviceArray(), True),
            "argument 'n': expected an integer (index), got bool",
        ),
        (
            (FakeDeviceArray(), [1.0, 2.0], 8),
            "argument 'dst': expected a device array",
        ),
        (
            (FakeDeviceArray(shape=(64, 64), strides=(4, 256)), FakeDeviceArray(), 8),
            "argument 'src' is not contiguous (strides (1, 64) in elements)",
        ),
        ((FakeDeviceArray(),), "'copy' takes 3 arguments (src, dst, n), got 1"),
    ],
)
def test_bad_arguments(copy_kernel, args, message):
    with pytest.raises(TilecError) as e:
        copy_kernel.launches(*args)
    assert message in str(e.value)


def test_dlpack_cpu_array_is_a_host_array():
    class CpuDLPack:
        def __dlpack__(self, stream=None):
            raise AssertionError("not consumed")

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(TilecError, match="argument 'x' is a host"):
        as_device_array("x", CpuDLPack())


def test_user_specs(tmp_path):
    cache = KernelCache(tmp_path)
    kernel = Kernel(
        S.copy_1d("f32"),
        cache=cache,
        arg_specs=[ArgSpec("src", min_elements=100, shape=(None, 10)), ArgSpec("dst", alignment=64)],
    )
    src, dst, _ = kernel.arg_specs
    assert (src.min_elements, src.alignment, src.shape, src.dtype) == (100, 16, (None, 10), "float32")
    assert dst.alignment == 64
    with pytest.raises(TilecError, match=r"argument 'src': expected shape \('\?', 10\), got \(100,\)"):
        kernel.launches(FakeDeviceArray(shape=(100,)), FakeDeviceArray(), 100)
    with pytest.raises(TilecError, match="the kernel accesses 100 elements, the array has 90"):
        kernel.launches(FakeDeviceArray(shape=(9, 10)), FakeDeviceArray(), 90)
    with pytest.raises(TilecError, match="aligned to 64 bytes"):
        kernel.launches(FakeDeviceArray(shape=(10, 10)), FakeDeviceArray(ptr=0x10010), 100)
    kernel.launches(FakeDeviceArray(shape=(10, 10)), FakeDeviceArray(ptr=0x10040), 100)
    with pytest.raises(TilecError, match="no such argument"):
        Kernel(S.copy_1d("f32"), cache=cache, arg_specs=[ArgSpec("nope")])
    with pytest.raises(TilecError, match="'n' is not a buffer"):
        Kernel(S.copy_1d("f32"), cache=cache, arg_specs=[ArgSpec("n")])


def test_strided_spec():
    spec = ArgSpec("a", dtype="float32", strides=(1, 64))
    array = as_device_array("a", FakeDeviceArray(shape=(64, 64), strides=(4, 256)))
    check_arg(spec, array)
    with pytest.raises(TilecError, match=r"expected strides \(64, 1\)"):
        check_arg(ArgSpec("a", strides=(64, 1)), array)


def test_block_size_mismatch_is_reported(tmp_path):
    kernel = Kernel(S.copy_1d("f32", launch_block=128), cache=KernelCache(tmp_path))
    with pytest.raises(TilecError, match=r"compiled for blocks of \(256, 1, 1\)"):
        kernel(FakeDeviceArray(), FakeDeviceArray(), 8)


def test_invalid_ir_is_a_tilec_error():
    with pytest.raises(TilecError, match="invalid GPU-level IR"):
        parse_gpu_module("builtin.module { %x = arith.constant : }")


def test_bf16_buffers_take_uint16_bits_and_nothing_else():
    """NumPy and CuPy have no bfloat16: a bf16 buffer takes a uint16 array of the bits
    (what the reference executor uses), still not another 2-byte type."""
    spec = ArgSpec("x", dtype="bfloat16")
    check_arg(spec, as_device_array("x", FakeDeviceArray(typestr="<u2")))
    with pytest.raises(TilecError, match="argument 'x': expected bfloat16, got float16"):
        check_arg(spec, as_device_array("x", FakeDeviceArray(typestr="<f2")))


@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2"])
def test_fp8_buffers_take_uint8_bits_and_nothing_else(dtype):
    """NumPy and CuPy have no 8-bit floats: an fp8 buffer takes a uint8 array of the
    bits (what the reference executor and `tilec --run gpu` use; the H200 run of the
    fuzzed fp8 mbarrier programs was refused before), still not int8 or a 2-byte type."""
    spec = ArgSpec("x", dtype=dtype)
    check_arg(spec, as_device_array("x", FakeDeviceArray(typestr="|u1")))
    for other in ("|i1", "<u2"):
        with pytest.raises(TilecError, match=f"argument 'x': expected {dtype}, got"):
            check_arg(spec, as_device_array("x", FakeDeviceArray(typestr=other)))


# ---------------------------------------------------------------- replayed calls


class _FakeFunction:
    ptr = 0xF00


def _fake_driver(monkeypatch, kernel):
    """Route `kernel`'s launches to a recorder: (function, grid, block, shared, stream,
    the three parameters (u64, u64, i64) read back from the params array)."""
    import ctypes

    from tilec.runtime import raw_launch

    calls = []

    def fake_launch(fn, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        ptrs = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
        types = [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int64]
        values = [ctypes.cast(ptrs[i], ctypes.POINTER(t)).contents.value for i, t in enumerate(types)]
        assert all(ptrs[i] % 64 == 0 for i in range(3))
        calls.append((fn, (gx, gy, gz), (bx, by, bz), smem, stream, values))
        return 0

    monkeypatch.setattr(raw_launch, "available", lambda: True)
    monkeypatch.setattr(raw_launch, "current_device", lambda: 0)
    monkeypatch.setattr(raw_launch, "_kernel_launch", lambda: fake_launch)
    monkeypatch.setattr(kernel, "_function", lambda name: _FakeFunction())
    return calls


def test_a_repeated_call_replays_its_packed_launches(monkeypatch, tmp_path):
    kernel = Kernel(S.copy_1d("f32"), cache=KernelCache(tmp_path))
    calls = _fake_driver(monkeypatch, kernel)
    src, dst = FakeDeviceArray(0x10000), FakeDeviceArray(0x20000)
    kernel(src, dst, 4096, stream=7)
    assert calls == [(0xF00, (4, 1, 1), (256, 1, 1), 0, 7, [0x10000, 0x20000, 4096])]

    def no_host_run(*args):
        raise AssertionError("the host function ran again")

    monkeypatch.setattr(kernel.host_program, "run", no_host_run)
    kernel(src, dst, 4096, stream=9)
    kernel(FakeDeviceArray(0x10000), FakeDeviceArray(0x20000), 4096, stream=9)  # equal, not the same objects
    assert calls[1:] == [(0xF00, (4, 1, 1), (256, 1, 1), 0, 9, [0x10000, 0x20000, 4096])] * 2


@pytest.mark.parametrize(
    "change",
    [
        lambda src, dst, n: (FakeDeviceArray(0x30000), dst, n),  # another pointer
        lambda src, dst, n: (src, dst, 5000),  # another extent: another grid
        lambda src, dst, n: (src, FakeDeviceArray(0x20000, shape=(8192,)), n),  # another shape
        lambda src, dst, n: (src, dst, True),  # a bool is not the int 1
    ],
)
def test_a_call_that_differs_in_anything_runs_the_general_path(monkeypatch, tmp_path, change):
    kernel = Kernel(S.copy_1d("f32"), cache=KernelCache(tmp_path))
    calls = _fake_driver(monkeypatch, kernel)
    src, dst = FakeDeviceArray(0x10000), FakeDeviceArray(0x20000)
    kernel(src, dst, 4096, stream=0)
    args = change(src, dst, 4096)
    if args[2] is True:
        with pytest.raises(TilecError, match="expected an integer"):
            kernel(*args, stream=0)
        return
    general = []
    real = kernel.host_program.run
    monkeypatch.setattr(kernel.host_program, "run", lambda *a: general.append(a) or real(*a))
    kernel(*args, stream=0)
    assert len(general) == 1 and len(calls) == 2
    assert calls[1][-1][0] == args[0].__cuda_array_interface__["data"][0]
    assert calls[1][1] == ((5000 + 1023) // 1024 if args[2] == 5000 else 4, 1, 1)


def test_replayed_calls_are_bounded_and_need_a_device(monkeypatch, tmp_path):
    from tilec.runtime import launch as launch_module
    from tilec.runtime import raw_launch

    kernel = Kernel(S.copy_1d("f32"), cache=KernelCache(tmp_path))
    calls = _fake_driver(monkeypatch, kernel)
    monkeypatch.setattr(launch_module, "_PACKED_CALLS", 2)
    for ptr in (0x10000, 0x11000, 0x12000):
        kernel(FakeDeviceArray(ptr), FakeDeviceArray(0x20000), 4096, stream=0)
    assert len(kernel._packed) == 1 and len(calls) == 3
    monkeypatch.setattr(raw_launch, "current_device", lambda: None)
    kernel._packed.clear()
    kernel(FakeDeviceArray(0x10000), FakeDeviceArray(0x20000), 4096, stream=0)
    assert kernel._packed == {} and len(calls) == 4
