"""TMA tensor maps at launch: the host encodes a `CUtensorMap` for each
`cuda.tensor_map` of the host function (`cuTensorMapEncodeTiled` of the CUDA driver,
`libcuda.so.1` through ctypes) and the kernel receives its 128 bytes by value.

    request = TensorMapRequest(array, dims, strides, box, swizzle, element_bytes)
    blob = encode(request)          # 128 bytes, cached per (pointer, dims, strides, box, swizzle)
    replace_address(map_address, ptr)   # a map in memory, its global address only rewritten

A launch prepared once (runtime/raw_launch.py's tensor-map cells) keeps its maps and
on a call with other pointers rewrites only their global addresses
(`cuTensorMapReplaceAddress`), never encoding them again.

Elements are moved as unsigned integers of their size (the TMA copies bits; no
conversion), the interleave is none, box elements outside the tensor are zeros
(`CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE`) and the L2 promotion is the request's (128 bytes
unless `cuda.tensor_map` says otherwise).
"""

from __future__ import annotations

import ctypes
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from tilec.runtime import driver
from tilec.support.diagnostics import TilecError

TENSOR_MAP_BYTES = 128
TENSOR_MAP_ALIGN = 64
CACHE_SIZE = 4096
"""Encoded maps kept (least recently used first out)."""

_DATA_TYPE = {1: 0, 2: 1, 4: 2, 8: 4}
"""Element bytes -> CUtensorMapDataType: UINT8, UINT16, UINT32, UINT64."""
_SWIZZLE = {0: 0, 32: 1, 64: 2, 128: 3}
"""Bytes -> CUtensorMapSwizzle."""
_L2_PROMOTION = {0: 0, 64: 1, 128: 2, 256: 3}
"""Bytes -> CUtensorMapL2promotion."""


@dataclass(frozen=True)
class TensorMapRequest:
    """What the host function asks of one tensor map: the buffer (a DeviceArray, or
    any object with `ptr`), dims (dimension 0 first), element strides of dims 1..,
    box extents, swizzle bytes, element size, L2 promotion bytes."""

    buffer: Any
    dims: tuple[int, ...]
    strides: tuple[int, ...]
    box: tuple[int, ...]
    swizzle: int
    element_bytes: int
    l2_promotion: int = 128

    @property
    def ptr(self) -> int:
        return int(self.buffer.ptr)

    def key(self) -> tuple:
        return (self.ptr, self.element_bytes, self.dims, self.strides, self.box, self.swizzle, self.l2_promotion)


_lib: Any = None
_cache: OrderedDict[tuple, bytes] = OrderedDict()
_lock = threading.Lock()
stats = {"encoded": 0, "hits": 0}
"""How many maps were encoded and how many calls the cache served (for tests)."""


def _driver() -> Any:
    global _lib
    if _lib is None:
        lib = driver.libcuda()
        if lib is None:
            raise TilecError("TMA tensor maps need the CUDA driver (libcuda.so.1), which could not be loaded")
        i32, u32, u64 = ctypes.c_int, ctypes.c_uint32, ctypes.c_uint64
        P = ctypes.POINTER
        driver.declare(lib, "cuTensorMapEncodeTiled",
                       [ctypes.c_void_p, i32, u32, ctypes.c_void_p, P(u64), P(u64), P(u32), P(u32), i32, i32, i32, i32])
        driver.declare(lib, "cuGetErrorString", [i32, P(ctypes.c_char_p)])
        driver.declare(lib, "cuTensorMapReplaceAddress", [ctypes.c_void_p, ctypes.c_void_p])
        _lib = lib
    return _lib


def _error_text(lib: Any, code: int) -> str:
    text = ctypes.c_char_p()
    if lib.cuGetErrorString(code, ctypes.byref(text)) == 0 and text.value:
        return text.value.decode()
    return f"CUresult {code}"


def check_request(r: TensorMapRequest) -> None:
    """What cuTensorMapEncodeTiled requires, as TilecErrors that say which."""
    eb = r.element_bytes
    if r.ptr % 16:
        raise TilecError(f"TMA needs the tensor's address aligned to 16 bytes, got 0x{r.ptr:x}")
    for d, s in enumerate(r.strides, start=1):
        if (s * eb) % 16 or not 0 < s * eb < (1 << 40):
            raise TilecError(
                f"TMA needs strides that are multiples of 16 bytes below 2^40: dimension {d} has {s * eb} bytes"
            )
    for d, n in enumerate(r.dims):
        if not 0 < n <= (1 << 32):
            raise TilecError(f"TMA dimension {d} has extent {n}, outside [1, 2^32]")


def encode(r: TensorMapRequest) -> bytes:
    """The 128 bytes of the CUtensorMap for `r` (cached)."""
    key = r.key()
    with _lock:
        blob = _cache.get(key)
        if blob is not None:
            _cache.move_to_end(key)
            stats["hits"] += 1
            return blob
    check_request(r)
    lib = _driver()
    rank = len(r.dims)
    storage = ctypes.create_string_buffer(TENSOR_MAP_BYTES + TENSOR_MAP_ALIGN)
    base = ctypes.addressof(storage)
    aligned = base + (-base % TENSOR_MAP_ALIGN)
    dims = (ctypes.c_uint64 * rank)(*r.dims)
    strides = (ctypes.c_uint64 * max(1, rank - 1))(*[s * r.element_bytes for s in r.strides])
    box = (ctypes.c_uint32 * rank)(*r.box)
    ones = (ctypes.c_uint32 * rank)(*([1] * rank))
    code = lib.cuTensorMapEncodeTiled(
        ctypes.c_void_p(aligned),
        _DATA_TYPE[r.element_bytes],
        rank,
        ctypes.c_void_p(r.ptr),
        dims,
        strides,
        box,
        ones,
        0,
        _SWIZZLE[r.swizzle],
        _L2_PROMOTION[r.l2_promotion],
        0,
    )
    if code != 0:
        raise TilecError(
            f"cuTensorMapEncodeTiled failed ({_error_text(lib, code)}) for dims {list(r.dims)}, element "
            f"strides {list(r.strides)}, box {list(r.box)}, swizzle {r.swizzle}, L2 promotion {r.l2_promotion}, "
            f"{r.element_bytes}-byte "
            f"elements at 0x{r.ptr:x}"
        )
    blob = ctypes.string_at(aligned, TENSOR_MAP_BYTES)
    with _lock:
        _cache[key] = blob
        stats["encoded"] += 1
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return blob


def replace_address(map_address: int, ptr: int) -> None:
    """Rewrite the global address of the encoded CUtensorMap at `map_address` (host
    memory, 64-byte aligned) to `ptr`, its other fields unchanged
    (`cuTensorMapReplaceAddress`). `ptr` must meet the map's alignment (16 bytes:
    `check_request`); the caller's key guarantees it."""
    lib = _driver()
    code = lib.cuTensorMapReplaceAddress(ctypes.c_void_p(map_address), ctypes.c_void_p(ptr))
    if code != 0:
        raise TilecError(f"cuTensorMapReplaceAddress failed ({_error_text(lib, code)}) at 0x{ptr:x}")
