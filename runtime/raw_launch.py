"""Kernel launches with their arguments packed once: the hot path of cached calls.

    launch = RawLaunch(grid, block, shared_mem, ["u64", "u64", "i64"], [None, None, 7])
    launch(function_ptr, stream_handle, src_ptr, dst_ptr)   # fills the None slots, launches
    launch = RawLaunch(grid, block, 0, ["map", "u64", "bytes"], [MapSlot(blob, a_ptr), None, fixed])
    launch(function_ptr, stream_handle, new_a_ptr, c_ptr)   # the map's global address rewritten

A `RawLaunch` keeps a ctypes buffer per argument and the `void*[]` array that
`cuLaunchKernel` reads; a call writes only the slots left free (the pointers, which
change from call to call: `None` values, and the global addresses of `MapSlot` tensor
maps, rewritten in place only where a call's pointer differs from the last one's,
runtime/tensor_map.py's `replace_address`) and calls the driver directly, skipping CuPy's argument
parsing (a CuPy kernel call costs 5-10 us of host time). The driver call itself goes
through CuPy's Cython binding of `cuLaunchKernel` where it imports (4.6 us a call on
the H100 against 6.0 us through ctypes without argument conversion and 10 us with it,
benchmarks/host_probe.py), else through ctypes. The driver copies the arguments when the launch is queued, so the buffers may be reused at
once; a lock makes concurrent calls of one launch from several threads safe.

`available()` says whether the driver library could be loaded (never on a machine
without a GPU driver; callers then launch through CuPy). `load_functions` loads a
cubin into the current context and `current_arch` reads the current device's
architecture, both through the driver, so that a kernel read back from a disk cache
launches without importing CuPy.
"""

from __future__ import annotations

import ctypes
import functools
import threading
from collections.abc import Sequence
from typing import Any

from tilec.runtime import driver, tensor_map
from tilec.support.diagnostics import TilecError

_CTYPES = {
    "u64": ctypes.c_uint64,
    "i64": ctypes.c_int64,
    "i32": ctypes.c_int32,
    "u32": ctypes.c_uint32,
}

_driver: Any = None
_loaded = False
_U, _P = ctypes.c_uint, ctypes.c_void_p


def _library() -> Any:
    """`cuLaunchKernel`, with the other entry points of this module in `_calls`; None
    without a driver library."""
    global _driver, _loaded
    if not _loaded:
        _loaded = True
        lib = driver.libcuda()
        if lib is None:
            return None
        for name, args in (
            ("cuLaunchKernel", [_P, _U, _U, _U, _U, _U, _U, _U, _P, _P, _P]),
            ("cuModuleLoadData", [ctypes.POINTER(_P), ctypes.c_char_p]),
            ("cuModuleGetFunction", [ctypes.POINTER(_P), _P, ctypes.c_char_p]),
            ("cuFuncSetAttribute", [_P, ctypes.c_int, ctypes.c_int]),
            ("cuCtxGetDevice", [ctypes.POINTER(ctypes.c_int)]),
            ("cuDeviceGetAttribute", [ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_int]),
        ):
            _calls[name] = driver.declare(lib, name, args)
        _driver = _calls["cuLaunchKernel"]
    return _driver


_calls: dict[str, Any] = {}
_MAX_DYNAMIC_SHARED = 8  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
_CC_MAJOR, _CC_MINOR = 75, 76  # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR


def _check(err: int, what: str) -> None:
    if err:
        raise TilecError(f"{what} failed with CUresult {err}")


def current_device() -> int | None:
    """The device of the current context, or None where there is none (or no
    driver library)."""
    if _library() is None:
        return None
    dev = ctypes.c_int(-1)
    if _calls["cuCtxGetDevice"](ctypes.byref(dev)):
        return None
    return dev.value


def current_arch() -> str | None:
    """`sm_XY` of the current context's device, or None (as `current_device`)."""
    dev = current_device()
    if dev is None:
        return None
    major, minor = ctypes.c_int(), ctypes.c_int()
    _check(_calls["cuDeviceGetAttribute"](ctypes.byref(major), _CC_MAJOR, dev), "cuDeviceGetAttribute")
    _check(_calls["cuDeviceGetAttribute"](ctypes.byref(minor), _CC_MINOR, dev), "cuDeviceGetAttribute")
    return f"sm_{major.value}{minor.value}"


def load_functions(cubin: bytes, kernels: dict[str, tuple[str, int]]) -> dict[str, int]:
    """Load `cubin` into the current context; for each kernel name, its CUfunction
    handle (`kernels`: name -> (symbol, dynamic shared bytes to allow))."""
    if _library() is None:
        raise TilecError("no CUDA driver library (libcuda.so.1) to load a kernel with")
    module = ctypes.c_void_p()
    _check(_calls["cuModuleLoadData"](ctypes.byref(module), cubin), "cuModuleLoadData")
    out: dict[str, int] = {}
    for name, (symbol, smem) in kernels.items():
        fn = ctypes.c_void_p()
        _check(_calls["cuModuleGetFunction"](ctypes.byref(fn), module, symbol.encode()), "cuModuleGetFunction")
        if smem:
            _check(_calls["cuFuncSetAttribute"](fn, _MAX_DYNAMIC_SHARED, smem), "cuFuncSetAttribute")
        out[name] = fn.value
    return out


class _LaunchConfig(ctypes.Structure):
    """CUDA's `CUlaunchConfig` (a kernel's cluster dims are compiled in; `attrs`: the
    programmatic launch's `_LaunchAttribute`)."""

    _fields_ = [("grid", _U * 3), ("block", _U * 3), ("shared", _U), ("stream", _P), ("attrs", _P),
                ("nattrs", _U)]


class _LaunchAttribute(ctypes.Structure):
    """CUDA's `CUlaunchAttribute`: an id, padding to 8 bytes, a 64-byte value union."""

    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", ctypes.c_int * 16)]


_PROGRAMMATIC_STREAM_SERIALIZATION = 6  # CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION


def _launch_ex() -> Any:
    """`cuLaunchKernelEx` (config, function, params, extra) through ctypes."""
    if "cuLaunchKernelEx" not in _calls:
        if _library() is None:
            raise TilecError("no CUDA driver library (libcuda.so.1) to launch a programmatic dependent with")
        _calls["cuLaunchKernelEx"] = driver.declare(driver.libcuda(), "cuLaunchKernelEx",
                                                    [ctypes.POINTER(_LaunchConfig), _P, _P, _P])
    return _calls["cuLaunchKernelEx"]


_CLUSTER_PROBE = "tilec_cluster_probe"


@functools.lru_cache(maxsize=None)
def resident_clusters(device: int, blocks: int, threads: int, smem: int) -> int:
    """How many thread-block clusters of `blocks` blocks (of `threads` threads and `smem`
    bytes of dynamic shared memory each) `device`, the current context's, runs at once
    (`cuOccupancyMaxActiveClusters`, asked of an empty kernel of that shape: the
    multiprocessors a cluster may take are those of one GPC, whose counts differ from
    part to part). Needs the driver library and NVRTC (once a cluster and block shape:
    `_cluster_probe`)."""
    if _library() is None:
        raise TilecError("no CUDA driver library (libcuda.so.1) to ask the resident clusters of")
    if "cuOccupancyMaxActiveClusters" not in _calls:
        _calls["cuOccupancyMaxActiveClusters"] = driver.declare(
            driver.libcuda(), "cuOccupancyMaxActiveClusters",
            [ctypes.POINTER(ctypes.c_int), _P, ctypes.POINTER(_LaunchConfig)])
    (fn,) = load_functions(_cluster_probe(device, blocks, threads), {"probe": (_CLUSTER_PROBE, smem)}).values()
    config = _LaunchConfig((_U * 3)(blocks, 1, 1), (_U * 3)(threads, 1, 1), smem, None, None, 0)
    count = ctypes.c_int(0)
    _check(_calls["cuOccupancyMaxActiveClusters"](ctypes.byref(count), fn, ctypes.byref(config)),
           "cuOccupancyMaxActiveClusters")
    return count.value


@functools.lru_cache(maxsize=None)
def _cluster_probe(device: int, blocks: int, threads: int) -> bytes:
    """The cubin of `resident_clusters`' empty kernel for `device` (the current one):
    compiled once for every shared-memory size asked of it (`tilec.matmul`'s rule asks
    the clusters of each tile's shared memory: one NVRTC program, not one a tile)."""
    from .nvrtc import compile_cuda

    source = (f'extern "C" __global__ void __cluster_dims__({blocks}, 1, 1) __launch_bounds__({threads}, 1) '
              f"{_CLUSTER_PROBE}() {{}}\n")
    return compile_cuda(source).cubin


class _NoDriverError(Exception):
    """Stands for CuPy's CUDADriverError where CuPy does not import."""


_launch_kernel: Any = None
DriverError: type[Exception] = _NoDriverError
"""What the launch callable raises on a failed launch (its `status` is the CUresult)."""


def _kernel_launch() -> Any:
    """`cuLaunchKernel` as a Python callable taking integers (the params array as an
    address), returning a CUresult or raising `DriverError` (module doc)."""
    global _launch_kernel, DriverError
    if _launch_kernel is None:
        try:
            from cupy_backends.cuda.api import driver
        except ImportError:  # pragma: no cover - CuPy is a dependency
            _launch_kernel = _library()
        else:
            _launch_kernel, DriverError = driver.launchKernel, driver.CUDADriverError
    return _launch_kernel


def available() -> bool:
    """Whether launches can go straight to the driver (`libcuda.so.1` loads)."""
    return _library() is not None


def _dims3(dims: Sequence[int]) -> tuple[int, ...]:
    """A grid or block as the driver takes it: ints, the missing ones of three 1."""
    return tuple(int(d) for d in dims) + (1,) * (3 - len(dims))


def _launch_failed(err: int, grid: tuple[int, ...], block: tuple[int, ...]) -> TilecError:
    return TilecError(f"cuLaunchKernel failed with CUresult {err} (grid {grid}, block {block})")


class MapSlot:
    """The value of a free `map` parameter of a `RawLaunch`: a CUtensorMap (`blob`, its
    128 encoded bytes) whose global address is `ptr`; a call passes the pointer."""

    __slots__ = ("blob", "ptr")

    def __init__(self, blob: bytes, ptr: int):
        self.blob, self.ptr = blob, int(ptr)


class _Bytes:
    """A parameter passed by value from a buffer aligned to 64 bytes (a `CUtensorMap`
    needs that): its bytes fixed, or (`_MapCell`) a tensor map whose address a call sets."""

    __slots__ = ("_buffer", "address")

    def __init__(self, data: bytes):
        self._buffer = ctypes.create_string_buffer(len(data) + 64)
        address = ctypes.addressof(self._buffer)
        self.address = address + (-address % 64)
        ctypes.memmove(self.address, data, len(data))


class _MapCell(_Bytes):
    """A tensor map whose global address is the free slot: setting `value` to another
    pointer rewrites the address field in place (`tensor_map.replace_address`)."""

    __slots__ = ("ptr",)

    def __init__(self, slot: MapSlot):
        super().__init__(slot.blob)
        self.ptr = slot.ptr

    @property
    def value(self) -> int:
        return self.ptr

    @value.setter
    def value(self, ptr: int) -> None:
        if ptr != self.ptr:
            tensor_map.replace_address(self.address, ptr)
            self.ptr = ptr


class RawLaunch:
    """One launch configuration with packed arguments (module doc). `types` names each
    parameter's C type (`u64` for pointers, `i64`, `i32`, `u32`; `bytes` for a value
    given as its bytes, any type; `map` for a tensor map whose address a call sets);
    `values` holds the fixed ones, `None` for the integer slots a call fills and a
    `MapSlot` for each `map`, in order. A call passes the free slots' values (pointers
    both) in order. `programmatic`: launched through `cuLaunchKernelEx` with the
    attribute "programmatic stream serialization" (programmatic dependent launch: the
    kernel's blocks may start before the stream's previous kernel has finished, its
    `griddepcontrol.wait` waiting for it; `KernelInfo.programmatic`)."""

    def __init__(
        self,
        grid: Sequence[int],
        block: Sequence[int],
        shared_mem: int,
        types: Sequence[str],
        values: Sequence[int | None],
        programmatic: bool = False,
    ):
        self.grid, self.block = _dims3(grid), _dims3(block)
        self.shared_mem = int(shared_mem)
        self.programmatic = programmatic
        if programmatic:
            self._attr = _LaunchAttribute(_PROGRAMMATIC_STREAM_SERIALIZATION)
            self._attr.value[0] = 1
            self._config = _LaunchConfig((_U * 3)(*self.grid), (_U * 3)(*self.block), self.shared_mem, None,
                                         ctypes.addressof(self._attr), 1)
        self._cells: list[Any] = []
        self._free = []
        addresses = []
        for t, v in zip(types, values):
            if t == "map":
                cell: Any = _MapCell(v)  # type: ignore[arg-type]
                self._free.append(cell)
            elif t == "bytes":
                cell = _Bytes(v)  # type: ignore[arg-type]
            else:
                cell = _CTYPES[t](0 if v is None else int(v))  # type: ignore[arg-type]
                if v is None:
                    self._free.append(cell)
            self._cells.append(cell)
            addresses.append(cell.address if isinstance(cell, _Bytes) else ctypes.addressof(cell))
        self._params = (ctypes.c_void_p * max(1, len(self._cells)))(*addresses)
        self._params_ptr = ctypes.addressof(self._params)
        self._lock = threading.Lock()

    def __call__(self, function: int, stream: int, *slots: int) -> None:
        """Launch `function` (a CUfunction handle) on `stream` (a CUstream handle, 0
        for the legacy default stream) with `slots` in the `None` places."""
        g, b = self.grid, self.block
        launch = _launch_ex() if self.programmatic else _kernel_launch()
        with self._lock:
            for cell, v in zip(self._free, slots):
                cell.value = v
            if self.programmatic:
                self._config.stream = stream
                err = launch(ctypes.byref(self._config), function, self._params_ptr, None)
                if err:
                    raise _launch_failed(err, g, b)
                return
            try:
                err = launch(function, g[0], g[1], g[2], b[0], b[1], b[2], self.shared_mem, stream, self._params_ptr, 0)
            except DriverError as e:
                err = e.status
        if err:
            raise _launch_failed(err, g, b)

    def pair_launcher(self) -> Any:
        """`self(function, stream, first, second)` for a launch with exactly two free
        slots (a copy's two pointers), as a closure over its cells: about 0.3 us less
        host time a call than `__call__`, which the cached `tilec.copy_` path spends
        on every launch."""
        if len(self._free) != 2 or self.programmatic:
            raise ValueError(f"pair_launcher needs 2 free slots and no programmatic launch, this launch has "
                             f"{len(self._free)}")
        launch = _kernel_launch()
        first_cell, second_cell = self._free
        g0, g1, g2 = self.grid
        b0, b1, b2 = self.block
        shared, params, lock, failed = self.shared_mem, self._params_ptr, self._lock, DriverError

        def launch_pair(function: int, stream: int, first: int, second: int) -> None:
            with lock:
                first_cell.value = first
                second_cell.value = second
                try:
                    err = launch(function, g0, g1, g2, b0, b1, b2, shared, stream, params, 0)
                except failed as e:
                    err = e.status
            if err:
                raise _launch_failed(err, self.grid, self.block)

        return launch_pair
