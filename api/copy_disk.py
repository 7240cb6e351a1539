"""Copy kernels on disk, ready to launch in a new process without compiling anything.

    store(key, entry, pipeline, arch, cubin)      # after compiling a CopyKey
    kernel = load(key, pipeline, arch)            # a DiskCopyKernel, or None

`runtime/cache.py` already keeps NVRTC's output across processes, but reaching it
runs the whole pipeline (xDSL, every pass) to get the CUDA source it is keyed by. A
copy kernel is a function of its `CopyKey`, so this cache is keyed by the key itself
(with the pipeline, the architecture and a fingerprint of tilec's own sources, so that
any change of the compiler misses), and an entry holds all a launch needs: the cubin,
each kernel's symbol, parameter types and dynamic shared memory, and the host function
as a recipe (`runtime/host_ops.RecipeProgram`). Loading one imports neither xDSL nor
CuPy; its functions are loaded through the driver (`runtime/raw_launch`).

Entries are runtime/cache.py's launch entries (`store_entry`, `load_entry`: its
directory, `$TILEC_CACHE_DIR/copy/`, its source fingerprint and atomic writes); this
module says what a copy entry holds and reads one back. An entry that does not parse,
or whose fields are missing, is ignored and written again.
"""

from __future__ import annotations

import base64
from dataclasses import asdict
from pathlib import Path
from typing import Any

from tilec.runtime import cache

from .copy_plan import CopyKey

KIND = "copy"
"""The entries' folder in the cache directory."""


def cache_dir() -> Path:
    return cache.default_cache_dir() / KIND


def _key(key: CopyKey, pipeline: str, arch: str) -> list:
    return [asdict(key), pipeline, arch]


def entry_path(key: CopyKey, pipeline: str, arch: str) -> Path:
    return cache.entry_path(KIND, _key(key, pipeline, arch))


def store(key: CopyKey, entry: Any, pipeline: str, arch: str, cubin: bytes) -> bool:
    """Write `entry` (a compiled `CopyKernel`) for `key`; False when its host function
    has no recipe (nothing written) or the directory is not writable."""
    recipe = entry.kernel.host_program.recipe
    if recipe is None:
        return False
    kernels = {
        name: {
            "symbol": info.name,
            "params": [[p.is_buffer, p.dtype] for p in info.params],
            "smem": info.dynamic_smem_bytes,
        }
        for name, info in entry.kernel.infos.items()
    }
    data = {"recipe": recipe, "kernels": kernels, "cubin": base64.b64encode(cubin).decode()}
    return cache.store_entry(KIND, _key(key, pipeline, arch), data)


class _Param:
    __slots__ = ("dtype", "is_buffer")

    def __init__(self, is_buffer: bool, dtype: str):
        self.is_buffer = is_buffer
        self.dtype = dtype


class DiskCopyKernel:
    """A copy kernel read back from disk: what `copy_launch.Launcher` uses of a
    `CopyKernel` (`key`, `_host`, `_params`, `param_types`, `function_handle`)."""

    def __init__(self, key: CopyKey, data: dict):
        from tilec.runtime.host_ops import RecipeProgram

        from .copy_params import param_conversions, param_types

        self.key = key
        self._host = RecipeProgram(data["recipe"])
        self._cubin = base64.b64decode(data["cubin"])
        self._symbols = {n: (k["symbol"], int(k["smem"])) for n, k in data["kernels"].items()}
        params = {n: [_Param(b, t) for b, t in k["params"]] for n, k in data["kernels"].items()}
        self._params = {n: (param_conversions(ps), self._symbols[n][1]) for n, ps in params.items()}
        self.param_types = {n: param_types(ps) for n, ps in params.items()}
        self._handles: dict[int, dict[str, int]] = {}
        self.kernel = self
        """Stands for the `Kernel` (its `_function`, for launches through CuPy)."""

    @property
    def program(self) -> str:
        from .copy_program import copy_program

        return copy_program(self.key)

    def function_handle(self, name: str) -> int:
        """The CUfunction of kernel `name` in the current context (loaded once per
        device, through the driver)."""
        from tilec.runtime import raw_launch

        device = raw_launch.current_device()
        handles = self._handles.get(device)
        if handles is None:
            handles = raw_launch.load_functions(self._cubin, self._symbols)
            self._handles[device] = handles
        return handles[name]

    def _function(self, name: str) -> Any:
        """A CuPy function for kernel `name` (the launch path without the driver
        library never reaches here: `load` needs it)."""
        raise NotImplementedError("disk copy kernels launch through the driver")


def load(key: CopyKey, pipeline: str, arch: str) -> DiskCopyKernel | None:
    """The entry for `key`, or None (none, unreadable, or `TILEC_CACHE=0`: then nothing
    is looked at)."""
    if not cache.disk_cache_enabled():
        return None
    data = cache.load_entry(KIND, _key(key, pipeline, arch))
    if data is None:
        return None
    try:
        return DiskCopyKernel(key, data)
    except (ValueError, KeyError, TypeError):
        return None
