"""The CUDA driver library (`libcuda.so.1`) through ctypes, loaded once for the
whole runtime (raw_launch.py's launches, tensor_map.py's tensor maps).

    lib = libcuda()                  # the CDLL, or None where the library is absent
    fn = declare(lib, "cuCtxGetDevice", [ctypes.POINTER(ctypes.c_int)])

Every driver entry point returns a `CUresult` (an int); `declare` sets that return
type and the argument types once.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any

_lib: Any = None
_loaded = False


def libcuda() -> Any:
    """The driver library, or None where it cannot be loaded (no GPU driver)."""
    global _lib, _loaded
    if not _loaded:
        _loaded = True
        try:
            _lib = ctypes.CDLL("libcuda.so.1")
        except OSError:
            _lib = None
    return _lib


def declare(lib: Any, name: str, argtypes: Sequence[Any]) -> Any:
    """`lib.name` with a `CUresult` return and `argtypes` set."""
    fn = getattr(lib, name)
    fn.restype = ctypes.c_int
    fn.argtypes = list(argtypes)
    return fn
