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

Entries live in `$TILEC_CACHE_DIR/copy/` (runtime/cache.py's directory), one JSON file
each, written to a temporary name and moved into place (`os.replace`); an entry that
does not parse, or whose fields are missing, is ignored and written again.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from tilec.runtime.cache import default_cache_dir, disk_cache_enabled

from .copy_plan import CopyKey

FORMAT = 1
"""Bumped when an entry's layout changes."""
_PACKAGE = Path(__file__).resolve().parent.parent
_SOURCE_DIRS = ("api", "compiler", "dialects", "passes", "runtime", "support")
_fingerprint: str | None = None


def source_fingerprint() -> str:
    """A hash of every tilec source file's path, size and modification time (a few
    hundred `stat`s, once per process)."""
    global _fingerprint
    if _fingerprint is None:
        h = hashlib.sha256()
        for d in _SOURCE_DIRS:
            for root, dirs, files in os.walk(_PACKAGE / d):
                dirs.sort()
                for f in sorted(files):
                    if f.endswith(".py"):
                        st = os.stat(os.path.join(root, f))
                        h.update(f"{root}/{f}:{st.st_size}:{st.st_mtime_ns}\n".encode())
        _fingerprint = h.hexdigest()
    return _fingerprint


def cache_dir() -> Path:
    return default_cache_dir() / "copy"


def entry_path(key: CopyKey, pipeline: str, arch: str) -> Path:
    text = json.dumps([FORMAT, asdict(key), pipeline, arch, source_fingerprint()], sort_keys=True)
    return cache_dir() / (hashlib.sha256(text.encode()).hexdigest() + ".json")


def store(key: CopyKey, entry: Any, pipeline: str, arch: str, cubin: bytes) -> bool:
    """Write `entry` (a compiled `CopyKernel`) for `key`; False when its host function
    has no recipe (nothing written) or the directory is not writable."""
    recipe = entry.kernel.host_program.recipe
    if recipe is None or not disk_cache_enabled():
        return False
    kernels = {
        name: {
            "symbol": info.name,
            "params": [[p.is_buffer, p.dtype] for p in info.params],
            "smem": info.dynamic_smem_bytes,
        }
        for name, info in entry.kernel.infos.items()
    }
    data = {"format": FORMAT, "recipe": recipe, "kernels": kernels, "cubin": base64.b64encode(cubin).decode()}
    path = entry_path(key, pipeline, arch)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "w") as f:
            json.dump(data, f)
        os.replace(tmp, path)
    except OSError:
        return False
    return True


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
    """The entry for `key`, or None (none, unreadable, or `TILEC_CACHE=0`)."""
    if not disk_cache_enabled():
        return None
    path = entry_path(key, pipeline, arch)
    try:
        with open(path) as f:
            data = json.load(f)
        if data.get("format") != FORMAT:
            return None
        return DiskCopyKernel(key, data)
    except (OSError, ValueError, KeyError, TypeError):
        return None
