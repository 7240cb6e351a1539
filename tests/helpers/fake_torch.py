"""CPU stand-ins for what `tilec.matmul`'s launch path touches on a GPU: a `torch`
module of fake CUDA tensors (pointers, shapes and strides only, no data), a fake CUDA
driver (kernel launches recorded with their parameter bytes, tensor maps encoded as
plain records of their fields) and fake loaded kernels. `install(monkeypatch)` puts
them in place and returns the recorder; tests of the launch path and
benchmarks/matmul_host.py's `--cpu-profile` use it.

    fake = install(monkeypatch)                  # sys.modules["torch"] is the stand-in
    a = fake.torch.empty((1, 4096), dtype=fake.torch.bfloat16, device="cuda")
    tilec.matmul(a, w.t())
    fake.launches[-1]                            # (kernel, grid, block, smem, stream, [param bytes])
"""

from __future__ import annotations

import cProfile
import ctypes
import gc
import pstats
import struct
import sys
import types
from typing import Any

MAP_FIELDS = "<QQ5Q5Q5I"
"""A fake CUtensorMap: rank, global address, dims, byte strides, box (zero padded)."""


class Dtype:
    def __init__(self, name: str, itemsize: int):
        self.name, self.itemsize = name, itemsize

    def __str__(self) -> str:
        return f"torch.{self.name}"

    __repr__ = __str__


class Device:
    def __init__(self, index: int = 0):
        self.type, self.index = "cuda", index


class FakeTensor:
    """A CUDA tensor's facts: data pointer, dtype, shape, strides (elements), device."""

    def __init__(self, ptr: int, dtype: Dtype, shape: tuple, strides: tuple, device: int = 0):
        self._ptr, self.dtype, self.shape, self._strides = ptr, dtype, tuple(shape), tuple(strides)
        self.device, self.is_cuda = Device(device), True

    def data_ptr(self) -> int:
        return self._ptr

    def stride(self) -> tuple:
        return self._strides

    def get_device(self) -> int:
        return self.device.index

    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def dim(self) -> int:
        return len(self.shape)

    @property
    def T(self) -> FakeTensor:
        return FakeTensor(self._ptr, self.dtype, self.shape[::-1], self._strides[::-1], self.device.index)

    def t(self) -> FakeTensor:
        return self.T

    def reshape(self, *shape: Any) -> FakeTensor:
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], tuple | list) else shape
        known = 1
        for s in shape:
            known *= 1 if s == -1 else s
        shape = tuple(self.numel() // known if s == -1 else s for s in shape)
        strides, step = [], 1
        for s in reversed(shape):
            strides.insert(0, step)
            step *= s
        view = FakeTensor(self._ptr, self.dtype, shape, tuple(strides), self.device.index)
        view._base = self  # as a torch view holds its storage: the memory lives while a view does
        return view


FakeTensor.__module__ = "torch"  # `framework_of` and tilec.matmul take it for a torch tensor


class Stream:
    def __init__(self, handle: int):
        self.cuda_stream = handle


class FakeTorch:
    """The recorder: the stand-in `torch` module (`torch`), the launches, the maps encoded."""

    STREAM = 0x5700
    SMS = 132

    def __init__(self):
        self.next_ptr = 1 << 32
        self.current_device = 0
        """What `torch._C._cuda_getDevice()` says."""
        self.launches: list[tuple] = []
        self.encoded = 0
        self.replaced = 0
        self.sizes: dict[int, list[int]] = {}
        self.handles: dict[tuple, int] = {}
        self.allocated: list[FakeTensor] = []
        """Every tensor `torch.empty` made, in order."""
        """Per fake CUfunction handle, its parameters' sizes in bytes (to read a launch's)."""
        t = types.ModuleType("torch")
        t.Tensor = FakeTensor
        t.bfloat16, t.float16, t.float32 = Dtype("bfloat16", 2), Dtype("float16", 2), Dtype("float32", 4)
        t.float8_e4m3fn, t.float8_e5m2 = Dtype("float8_e4m3fn", 1), Dtype("float8_e5m2", 1)
        t.int32 = Dtype("int32", 4)
        t.empty = self.empty
        t.zeros = self.empty  # (the values are never read: serial split-K's counters)
        t.tensor = lambda data, *, dtype, device=None: self.empty((len(data),), dtype=dtype)
        t.cuda = types.SimpleNamespace(
            get_device_properties=lambda device: types.SimpleNamespace(multi_processor_count=self.SMS),
            current_stream=lambda device=None: Stream(self.STREAM),
            current_device=lambda: 0,
        )
        t._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: self.STREAM,
                                     _cuda_getDevice=lambda: self.current_device)
        self.torch = t

    def empty(self, shape: Any, *, dtype: Dtype, device: Any = None) -> FakeTensor:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        out = FakeTensor(self.next_ptr, dtype, shape, (1,) * len(shape), 0).reshape(shape)
        n = out.numel() * dtype.itemsize
        self.next_ptr += (n + 255) // 256 * 256 + 256
        self.allocated.append(out)
        return out

    def matrix(self, rows: int, cols: int, dtype: Dtype | None = None) -> FakeTensor:
        return self.empty((rows, cols), dtype=dtype or self.torch.bfloat16)

    # ------------------------------------------------------------ the driver
    def launch(self, fn, gx, gy, gz, bx, by, bz, smem, stream, params, extra) -> int:
        ptrs = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
        blobs = [ctypes.string_at(ptrs[i], size) for i, size in enumerate(self.sizes[fn])]
        self.launches.append((fn, (gx, gy, gz), (bx, by, bz), smem, stream, blobs))
        return 0

    def encode(self, out, dtype, rank, address, dims, strides, box, elem_strides, *rest) -> int:
        self.encoded += 1
        ctypes.memmove(out.value, _map_record(rank, address.value, dims[:rank], strides[:max(0, rank - 1)],
                                              box[:rank]), struct.calcsize(MAP_FIELDS))
        return 0

    def replace_address(self, tensor_map, address) -> int:
        self.replaced += 1
        ctypes.memmove(tensor_map.value + 8, struct.pack("<Q", address.value), 8)
        return 0


def _map_record(rank: int, address: int, dims, strides, box) -> bytes:
    pad = lambda xs: list(xs) + [0] * (5 - len(xs))  # noqa: E731
    return struct.pack(MAP_FIELDS, rank, address, *pad(dims), *pad(strides), *pad(box))


def profile_call(call: Any, *args: Any) -> pstats.Stats:
    """cProfile's record of `call(*args)` with the garbage collector held off (collected
    first, re-enabled after): a collection falling inside the call runs the process's
    `gc.callbacks`, which are not the call's. Hypothesis installs one on its first test
    (its time in the collector: two calls and two `perf_counter` a collection), so the
    cached `tilec.matmul` counted 46 calls, not 42, wherever a hypothesis test ran before
    and a collection fell inside it."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        profile = cProfile.Profile()
        profile.enable()
        try:
            call(*args)
        finally:
            profile.disable()
    finally:
        if enabled:
            gc.enable()
    return pstats.Stats(profile)


def tilec_calls(stats: Any) -> int:
    """The calls a `pstats.Stats` recorded but for those the stand-ins made themselves:
    a stand-in called from tilec counts once (as the PyTorch or driver function it
    stands for would, a builtin to cProfile), what it calls in turn not at all."""
    total = 0
    for func, (_, nc, _, _, callers) in stats.stats.items():
        if not callers:
            total += nc  # the profiled call itself
        for caller, counts in callers.items():
            if not caller[0].endswith("fake_torch.py"):
                total += counts[1] if isinstance(counts, tuple) else counts
    return total


def install(monkeypatch) -> FakeTorch:
    """Put the stand-ins in place (undone with `monkeypatch`): `torch`, the driver's
    kernel launch and its resident clusters, the tensor-map encoder, and every `Kernel`'s loaded functions
    (handle per kernel name, its parameter sizes recorded for reading launches)."""
    from tilec.compiler.cuda.kernel_info import TENSOR_MAP
    from tilec.runtime import launch as launch_module
    from tilec.runtime import raw_launch, tensor_map

    fake = FakeTorch()
    monkeypatch.setitem(sys.modules, "torch", fake.torch)
    from tilec import gemm

    monkeypatch.setattr(gemm, "_COUNTERS", {})  # serial split-K's counters: this fake's tensors
    monkeypatch.setattr(raw_launch, "available", lambda: True)
    monkeypatch.setattr(raw_launch, "current_device", lambda: 0)
    # the clusters an H200 runs at once (`cuOccupancyMaxActiveClusters`, benchmarks/NOTES.md)
    monkeypatch.setattr(raw_launch, "resident_clusters",
                        lambda device, blocks, threads, smem: {2: 66, 3: 39, 4: 30, 8: 15}.get(blocks, 132 // blocks))
    monkeypatch.setattr(raw_launch, "_kernel_launch", lambda: fake.launch)
    lib = types.SimpleNamespace(cuTensorMapEncodeTiled=lambda *a: fake.encode(*a),
                                cuTensorMapReplaceAddress=lambda *a: fake.replace_address(*a))
    monkeypatch.setattr(tensor_map, "_driver", lambda: lib)
    monkeypatch.setattr(tensor_map, "_cache", type(tensor_map._cache)())
    sizes = {"int32": 4, "int64": 8, TENSOR_MAP: 128}

    def function(self, name: str) -> Any:
        info = self.infos[name]
        handle = fake.handles.setdefault((id(self), name), 0xF001 + 16 * len(fake.handles))
        fake.sizes[handle] = [8 if p.is_buffer else sizes[p.dtype] for p in info.params]
        return types.SimpleNamespace(ptr=handle)

    monkeypatch.setattr(launch_module.Kernel, "_function", function)
    monkeypatch.setattr(launch_module, "_current_device", lambda: 0)
    return fake
