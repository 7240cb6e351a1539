"""The kernel cache: compile each CUDA source once, in memory and on disk.

Entries are keyed by a hash of (source, options, architecture, CuPy version, NVRTC
version), so a change in any of them compiles again; the source's whole-line `//`
comments count as empty (`code_of`): the `// file:line:col` of the user's code before
each op (compiler/cuda) names where a kernel was built from, not what it computes, so the
same kernel built from another line or another script hits the entry. The disk cache lives in
`$TILEC_CACHE_DIR` (default `~/.cache/tilec`); `TILEC_CACHE=0` (or `off`) leaves the
disk alone: nothing is read from it or written to it (the in-memory cache of the process
stays), which the launch entries (below) obey too. Each entry is one file written to a
temporary name and moved into place with `os.replace`, so concurrent processes never see
half an entry; a header holds the payload's length and SHA-256, so a truncated or
corrupted entry is detected, counted, and compiled again.

    cache = default_cache()
    result = cache.compile(source, arch="sm_90")    # a CompileResult
    cache.stats.compiles, cache.stats.hits

Launch entries (`store_entry`, `load_entry`; `store_launch`, `load_launch` for a
compiled program: a `LaunchEntry`, launched through the driver without xDSL or CuPy)
keep, beside the compiled sources, what a launch needs without running the pipeline at
all, keyed by what the front end knows (`tilec.copy_`'s `CopyKey`, the pipeline and
the architecture: api/copy_kernels.py) and a fingerprint of tilec's sources: JSON
files in `$TILEC_CACHE_DIR/<kind>/`, written the same way.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from tilec.runtime import nvrtc
from tilec.runtime.nvrtc import CompileResult

FORMAT = b"TILEC-KERNEL-CACHE 1\n"
"""First line of every entry file; a new layout gets a new number."""


@dataclass
class CacheStats:
    """Counters since the cache was made (or `reset()`)."""

    memory_hits: int = 0
    disk_hits: int = 0
    misses: int = 0
    compiles: int = 0
    corrupt: int = 0
    """Disk entries that failed their check (and were compiled again)."""

    @property
    def hits(self) -> int:
        return self.memory_hits + self.disk_hits

    def reset(self) -> None:
        self.memory_hits = self.disk_hits = self.misses = 0
        self.compiles = self.corrupt = 0


def disk_cache_enabled() -> bool:
    """False where the environment says `TILEC_CACHE=0` (or `off`, `false`, `no`):
    compile everything afresh, read and write nothing on disk."""
    return os.environ.get("TILEC_CACHE", "1").strip().lower() not in ("0", "off", "false", "no")


def default_cache_dir() -> Path:
    """`$TILEC_CACHE_DIR`, else `~/.cache/tilec`: the one root of tilec's disk caches."""
    env = os.environ.get("TILEC_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    return Path("~/.cache/tilec").expanduser()


def _versions() -> tuple[str, str]:
    try:
        import cupy

        cupy_version = cupy.__version__
    except Exception:  # pragma: no cover - cupy is a dependency
        cupy_version = "none"
    return cupy_version, ".".join(map(str, nvrtc.nvrtc_version()))


_COMMENT_LINE = re.compile(r"^[ \t]*//.*$", re.M)


def code_of(source: str) -> str:
    """`source` with every whole-line `//` comment (indented or not) made `//` (the line
    kept, so line numbers, and the `-lineinfo` tables NVRTC writes from them, are the
    same): what the compiled code depends on."""
    return _COMMENT_LINE.sub("//", source)


def cache_key(source: str, options: tuple[str, ...], arch: str) -> str:
    """The hex SHA-256 that names an entry: of `code_of(source)`, the options and the
    versions."""
    cupy_version, nvrtc_version = _versions()
    material = json.dumps(
        {
            "source": code_of(source),
            "options": list(options),
            "arch": arch,
            "cupy": cupy_version,
            "nvrtc": nvrtc_version,
            "format": FORMAT.decode().strip(),
        },
        sort_keys=True,
    )
    return hashlib.sha256(material.encode()).hexdigest()


def _encode(key: str, result: CompileResult) -> bytes:
    ptx = result.ptx.encode()
    log = result.log.encode()
    payload = result.cubin + ptx + log
    header = {
        "key": key,
        "arch": result.arch,
        "options": list(result.options),
        "cubin": len(result.cubin),
        "ptx": len(ptx),
        "log": len(log),
        "sha256": hashlib.sha256(payload).hexdigest(),
    }
    return FORMAT + json.dumps(header).encode() + b"\n" + payload


def _decode(key: str, data: bytes) -> CompileResult | None:
    """The entry in `data`, or None if it is not a whole, intact entry for `key`."""
    if not data.startswith(FORMAT):
        return None
    rest = data[len(FORMAT) :]
    newline = rest.find(b"\n")
    if newline < 0:
        return None
    try:
        header = json.loads(rest[:newline])
        sizes = (int(header["cubin"]), int(header["ptx"]), int(header["log"]))
        payload = rest[newline + 1 :]
        if header["key"] != key or len(payload) != sum(sizes):
            return None
        if hashlib.sha256(payload).hexdigest() != header["sha256"]:
            return None
        cubin = payload[: sizes[0]]
        ptx = payload[sizes[0] : sizes[0] + sizes[1]].decode()
        log = payload[sizes[0] + sizes[1] :].decode()
        return CompileResult(
            cubin=cubin,
            ptx=ptx,
            log=log,
            arch=header["arch"],
            options=tuple(header["options"]),
        )
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None


class KernelCache:
    """Compiled kernels by source, options and architecture; see the module doc."""

    def __init__(self, directory: str | Path | None = None, *, disk: bool | None = None):
        self.directory = Path(directory) if directory is not None else default_cache_dir()
        self.disk = disk_cache_enabled() if disk is None else disk
        self.stats = CacheStats()
        self._memory: dict[str, CompileResult] = {}
        self._lock = threading.Lock()

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.tilec"

    def compile(
        self, source: str, *, arch: str | None = None, options: tuple[str, ...] = ()
    ) -> CompileResult:
        """The compiled `source`: from memory, else from disk, else NVRTC."""
        arch = nvrtc.normalize_arch(arch) if arch is not None else nvrtc.device_arch()
        options = tuple(options)
        key = cache_key(source, nvrtc.compile_options(arch, options), arch)
        with self._lock:
            if key in self._memory:
                self.stats.memory_hits += 1
                return self._memory[key]
        result = self._load(key) if self.disk else None
        if result is not None:
            with self._lock:
                self.stats.disk_hits += 1
                self._memory[key] = result
            return result
        with self._lock:
            self.stats.misses += 1
        result = nvrtc.compile_cuda(source, arch=arch, options=options)
        with self._lock:
            self.stats.compiles += 1
            self._memory[key] = result
        if self.disk:
            self._store(key, result)
        return result

    def _load(self, key: str) -> CompileResult | None:
        path = self.path(key)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        result = _decode(key, data)
        if result is None:
            with self._lock:
                self.stats.corrupt += 1
        return result

    def _store(self, key: str, result: CompileResult) -> None:
        # A read-only or full disk costs a recompilation next time, nothing more.
        write_atomically(self.path(key), _encode(key, result), prefix=f".{key[:16]}.")


def write_atomically(path: Path, data: bytes, prefix: str = ".tmp-") -> bool:
    """Write `data` to `path` through a temporary file moved into place (`os.replace`):
    a concurrent reader sees the old file or the whole new one. False where the
    directory cannot be written (nothing is left behind)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError:
        return False
    return True


# ----------------------------------------------------------------------------- launch entries

ENTRY_FORMAT = 1
"""Bumped when a launch entry's layout changes."""
_PACKAGE = Path(__file__).resolve().parent.parent
_SOURCE_DIRS = ("api", "compiler", "dialects", "passes", "runtime", "support")
_fingerprint: str | None = None


def source_fingerprint() -> str:
    """A hash of every tilec source file's path, size and modification time (a few
    hundred `stat`s, once per process): any change of the compiler misses."""
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


def entry_path(kind: str, key: object) -> Path:
    """Where the launch entry of `key` (anything JSON can write, the pipeline and the
    architecture included) lives: `$TILEC_CACHE_DIR/<kind>/<hash>.json`, the hash
    over the entry format, the key and `source_fingerprint()`."""
    text = json.dumps([ENTRY_FORMAT, key, source_fingerprint()], sort_keys=True)
    return default_cache_dir() / kind / (hashlib.sha256(text.encode()).hexdigest() + ".json")


def store_entry(kind: str, key: object, data: dict) -> bool:
    """Write a launch entry (a JSON object: what a launch needs without compiling,
    e.g. a compiled program's cubin, symbols and host recipe, `store_launch`); False
    where `TILEC_CACHE=0` or the directory is not writable."""
    if not disk_cache_enabled():
        return False
    return write_atomically(entry_path(kind, key), json.dumps({"format": ENTRY_FORMAT, **data}).encode())


def load_entry(kind: str, key: object) -> dict | None:
    """The launch entry of `key`, or None (none, unreadable, of another format, or
    `TILEC_CACHE=0`)."""
    if not disk_cache_enabled():
        return None
    try:
        with open(entry_path(kind, key)) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("format") == ENTRY_FORMAT else None


class _Param:
    __slots__ = ("dtype", "is_buffer")

    def __init__(self, is_buffer: bool, dtype: str):
        self.is_buffer = is_buffer
        self.dtype = dtype


class LaunchEntry:
    """A compiled program read back from its launch entry, ready to launch without
    compiling anything (nor importing xDSL or CuPy): `host` runs its host function
    (`host_ops.RecipeProgram`), and per kernel `params` (each `is_buffer`, `dtype`),
    `smem` (dynamic shared memory) and `function_handle(name)` (the CUfunction in the
    current context, loaded through the driver once per device)."""

    def __init__(self, data: dict):
        import base64

        from .host_ops import RecipeProgram

        self.host = RecipeProgram(data["recipe"])
        self.cubin = base64.b64decode(data["cubin"])
        self.symbols = {n: (k["symbol"], int(k["smem"])) for n, k in data["kernels"].items()}
        self.params = {n: [_Param(b, t) for b, t in k["params"]] for n, k in data["kernels"].items()}
        self.smem = {n: sym[1] for n, sym in self.symbols.items()}
        self._handles: dict[int, dict[str, int]] = {}

    def function_handle(self, name: str) -> int:
        from . import raw_launch

        device = raw_launch.current_device()
        handles = self._handles.get(device)
        if handles is None:
            handles = raw_launch.load_functions(self.cubin, self.symbols)
            self._handles[device] = handles
        return handles[name]

    def _function(self, name: str):
        """A CuPy function for kernel `name`: never (an entry is only loaded where
        launches go through the driver)."""
        raise NotImplementedError("launch entries launch through the driver")


def store_launch(kind: str, key: object, kernel, cubin: bytes) -> bool:
    """Write the launch entry of `kernel` (a `runtime.launch.Kernel`, compiled to
    `cubin`) for `key`: its host function's recipe, each kernel's symbol, parameters
    and dynamic shared memory, the cubin. False where its host function has no recipe
    (nothing written), `TILEC_CACHE=0` or the directory is not writable."""
    import base64

    recipe = kernel.host_program.recipe
    if recipe is None:
        return False
    kernels = {
        name: {"symbol": info.name, "params": [[p.is_buffer, p.dtype] for p in info.params],
               "smem": info.dynamic_smem_bytes}
        for name, info in kernel.infos.items()
    }
    return store_entry(kind, key, {"recipe": recipe, "kernels": kernels, "cubin": base64.b64encode(cubin).decode()})


def load_launch(kind: str, key: object) -> LaunchEntry | None:
    """The `LaunchEntry` of `key`, or None (none, unreadable, damaged, or
    `TILEC_CACHE=0`: then nothing is looked at)."""
    data = load_entry(kind, key)
    if data is None:
        return None
    try:
        return LaunchEntry(data)
    except (ValueError, KeyError, TypeError):
        return None


_default: KernelCache | None = None


def default_cache() -> KernelCache:
    """The process-wide cache, in `$TILEC_CACHE_DIR` (read when first used)."""
    global _default
    if _default is None:
        _default = KernelCache()
    return _default
