"""The launcher without a GPU: the host-function evaluator, argument checks (on objects
that offer `__cuda_array_interface__`), and the errors that name the argument."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gpu_level_samples as S  # noqa: E402
from tilec.support.diagnostics import TilecError  # noqa: E402
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
    host = host_function(parse_gpu_module(S.copy_1d("f32")))
    for n, grid in [(1, 1), (1024, 1), (1025, 2), (5000, 5)]:
        (launch,) = run_host(host, ["src", "dst", n])
        assert launch.grid == (grid, 1, 1) and launch.block == (256, 1, 1)
        assert launch.args == ("src", "dst", n)
        assert (launch.kernel, launch.module) == ("copy_kernel", "copy_kernels")


HOST = """builtin.module attributes {{gpu.container_module}} {{
  func.func @h(%a: index, %b: index) {{
    %r = {expr}
    %c1 = arith.constant 1 : index
    "gpu.launch_func"(%r, %c1, %c1, %c1, %c1, %c1) <{{kernel = @m::@k, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0>}}> : (index, index, index, index, index, index) -> ()
    func.return
  }}
}}
"""

# As HOST, with the value as the kernel's one argument and a grid of one block.
HOST_VALUE = HOST.replace('"gpu.launch_func"(%r, %c1,', '"gpu.launch_func"(%c1, %c1,').replace(
    "%c1, %c1) <{{kernel", "%c1, %c1, %r) <{{kernel"
).replace("1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0>", "1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>").replace(
    "(index, index, index, index, index, index) -> ()", "(index, index, index, index, index, index, index) -> ()"
)


@pytest.mark.parametrize(
    "expr, a, b, expected",
    [
        ("arith.divsi %a, %b : index", -7, 2, -3),
        ("arith.remsi %a, %b : index", -7, 2, -1),
        ("arith.floordivsi %a, %b : index", -7, 2, -4),
        ("arith.ceildivsi %a, %b : index", -7, 2, -3),
        ("arith.ceildivsi %a, %b : index", 7, 2, 4),
        ("arith.ceildivui %a, %b : index", 7, 2, 4),
        ("arith.divui %a, %b : index", -2, 2**62, 3),
        ("arith.remui %a, %b : index", 10, 4, 2),
        ("arith.minsi %a, %b : index", -1, 3, -1),
        ("arith.minui %a, %b : index", -1, 3, 3),
        ("arith.maxui %a, %b : index", -1, 3, -1),
        ("arith.maxsi %a, %b : index", -1, 3, 3),
        ("arith.shli %a, %b : index", 3, 4, 48),
        ("arith.shrsi %a, %b : index", -16, 2, -4),
        ("arith.shrui %a, %b : index", -16, 60, 15),
        ("arith.muli %a, %b : index", 2**40, 2**30, 0),  # wraps to 0
        ("arith.addi %a, %b : index", 2**63 - 1, 1, -(2**63)),
        ("arith.andi %a, %b : index", 12, 10, 8),
        ("arith.ori %a, %b : index", 12, 10, 14),
        ("arith.xori %a, %b : index", 12, 10, 6),
    ],
)
def test_host_arith(expr, a, b, expected):
    # The exact value, whatever its sign: passed to the kernel as an argument.
    (launch,) = run_host(host_function(parse_gpu_module(HOST_VALUE.format(expr=expr))), [a, b])
    assert launch.args == (expected,)
    # The same value as a grid size: used when positive, refused (located) otherwise.
    host = host_function(parse_gpu_module(HOST.format(expr=expr)))
    if expected < 1:
        with pytest.raises(TilecError, match=f"launch size must be a positive integer, got {expected}$"):
            run_host(host, [a, b])
        return
    (launch,) = run_host(host, [a, b])
    assert launch.grid == (expected, 1, 1)


def test_host_cmpi_select_and_casts():
    text = HOST.format(
        expr="arith.cmpi ult, %a, %b : index\n"
        "    %s = arith.select %r, %a, %b : index\n"
        "    %t = arith.index_cast %s : index to i32\n"
        "    %u = arith.index_cast %t : i32 to index"
    ).replace("(%r, %c1", "(%u, %c1")
    host = host_function(parse_gpu_module(text))
    assert run_host(host, [5, 9])[0].grid[0] == 5
    assert run_host(host, [2**32 + 7, 2**40])[0].grid[0] == 7  # wraps to i32


def test_host_division_by_zero():
    host = host_function(parse_gpu_module(HOST.format(expr="arith.divsi %a, %b : index")))
    with pytest.raises(TilecError, match="division by zero"):
        run_host(host, [1, 0])


def test_host_unsupported_op():
    text = HOST.format(expr='arith.addi %a, %b {tilec.loc = "p.py:2:1"} : index').replace(
        "    func.return", '    "test.op"() : () -> ()\n    func.return'
    )
    from tilec.runtime.launch import gpu_level_context
    from xdsl.parser import Parser

    ctx = gpu_level_context()
    ctx.allow_unregistered = True
    module = Parser(ctx, text).parse_module()
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
    text = S.copy_1d("f32").replace("%cb = arith.constant 256 : index", "%cb = arith.constant 128 : index")
    kernel = Kernel(text, cache=KernelCache(tmp_path))
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

    monkeypatch.setattr(kernel, "launches", no_host_run)
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
    real = kernel.launches
    monkeypatch.setattr(kernel, "launches", lambda *a: general.append(a) or real(*a))
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
