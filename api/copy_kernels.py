"""Compiled copy kernels, one per `CopyKey`, each with a ready launch closure.

    kernels = CopyKernels()
    entry = kernels.get(key)          # compiles (pipeline + NVRTC) on the first use
    entry.launch(plan, stream)        # a few dict look-ups and one cuLaunchKernel

`CopyKernels.stats` counts the compilations: a loop over many shapes of one pattern
compiles once per key. The kernel itself is compiled through `tilec.compile`, so its
CUDA also lands in the disk cache (runtime/cache.py) and a new process finds it there.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .copy_params import param_conversions, param_types
from .copy_plan import CopyKey, CopyPlan
from .copy_program import FUNCTION, copy_program
from .copy_routes import ROUTE_NAMES, current_routes


@dataclass
class CopyKernelStats:
    """Counters of a `CopyKernels`: `compiles` (keys compiled), `hits` and
    `disk_hits`."""

    compiles: int = 0
    hits: int = 0
    disk_hits: int = 0
    """Keys read back from the disk cache (runtime/cache.py's launch entries)."""


class CopyKernel:
    """One compiled copy pattern. `kernel` is the `tilec.runtime.launch.Kernel`, or the
    `runtime.cache.LaunchEntry` read back from the disk cache (a new process launches
    it without compiling: through the driver only); `launch(plan, stream)` runs its
    host function for the plan's sizes and launches every kernel it names, on `stream`
    (a CuPy stream object or None: the current one). Nothing is checked here:
    `plan_copy` did it."""

    def __init__(self, key: CopyKey, kernel: Any):
        from tilec.runtime.cache import LaunchEntry

        self.key = key
        self.kernel = kernel
        self._entry = isinstance(kernel, LaunchEntry)
        if self._entry:
            self._host = kernel.host
            params = {n: (ps, kernel.smem[n]) for n, ps in kernel.params.items()}
        else:
            self._host = kernel.host_program
            params = {n: (info.params, info.dynamic_smem_bytes) for n, info in kernel.infos.items()}
        # per kernel: ([convert per parameter], dynamic smem bytes)
        self._params: dict[str, tuple[list[Callable[[Any], Any] | None], int]] = {}
        self.param_types: dict[str, list[str]] = {}
        """Per kernel, each parameter's C type for `runtime.raw_launch` (`u64` for
        pointers)."""
        for name, (ps, smem) in params.items():
            self._params[name] = (param_conversions(ps), smem)
            self.param_types[name] = param_types(ps)

    @property
    def program(self) -> str:
        """The IR text of the key's program (copy_program.py)."""
        return copy_program(self.key)

    def function_handle(self, name: str) -> int:
        """The CUfunction of kernel `name` on the current device."""
        if self._entry:
            return self.kernel.function_handle(name)
        return self.kernel._function(name).ptr

    def launches(self, plan: CopyPlan) -> list[Any]:
        """The launches (grid, block, arguments) for `plan`, nothing run."""
        return self._host.run([plan.src_ptr, plan.dst_ptr, *plan.args])

    def launch(self, plan: CopyPlan, stream: Any = None) -> None:
        for launch in self._host.run([plan.src_ptr, plan.dst_ptr, *plan.args]):
            convs, smem = self._params[launch.kernel]
            args = tuple(
                np.uint64(v) if c is None else c(v) for c, v in zip(convs, launch.args)
            )
            function = self.kernel._function(launch.kernel)
            function(
                launch.grid,
                launch.block,
                args,
                shared_mem=launch.dynamic_shared_bytes + smem,
                stream=stream,
            )


@dataclass
class CopyKernels:
    """The kernels of `tilec.copy_`, by `CopyKey` (thread-safe)."""

    pipeline: str = "default"
    arch: str | None = None
    disk: bool = True
    """Whether kernels are read from and written to the disk cache (runtime/cache.py's
    launch entries, `DISK_KIND`; only where launches go through the driver and no
    `arch` is forced)."""
    stats: CopyKernelStats = field(default_factory=CopyKernelStats)
    _entries: dict[CopyKey, CopyKernel] = field(default_factory=dict)
    launchers: dict[tuple, Any] = field(default_factory=dict)
    """`copy_launch.Launcher`s by copy structure (`copy_launch.structure`)."""
    torch_launchers: dict[tuple, Any] = field(default_factory=dict)
    """The same launchers' `fast_path` closures, by the fast path's key of two torch
    tensors (`tensor_copy._torch_key`)."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, key: CopyKey) -> CopyKernel:
        """The kernel for `key`: from memory, else from the disk cache, else compiled
        (and written to the disk cache)."""
        entry = self._entries.get(key)
        if entry is not None:
            self.stats.hits += 1
            return entry
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                entry = self._compile(key)
                self._entries[key] = entry
        return entry

    def _disk_arch(self) -> str | None:
        if not self.disk or self.arch is not None:
            return None
        from tilec.runtime import raw_launch

        return raw_launch.current_arch() if raw_launch.available() else None

    def _compile(self, key: CopyKey) -> Any:
        from tilec.runtime import cache

        arch = self._disk_arch()
        pipeline = kernel_pipeline(key, self.pipeline)
        disk_key = entry_key(key, pipeline, arch)
        if arch is not None:
            hit = cache.load_launch(DISK_KIND, disk_key)
            if hit is not None:
                self.stats.disk_hits += 1
                return CopyKernel(key, hit)
        entry = self._compile_now(key)
        self.stats.compiles += 1
        if arch is not None:
            cache.store_launch(DISK_KIND, disk_key, entry.kernel, entry.kernel.compile(arch).cubin)
        return entry

    def _compile_now(self, key: CopyKey) -> CopyKernel:
        from tilec.compiling import compile_program

        pipeline = kernel_pipeline(key, self.pipeline)
        kernel = compile_program(copy_program(key), pipeline, arch=self.arch, function=FUNCTION)
        return CopyKernel(key, kernel)

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.launchers.clear()
            self.torch_launchers.clear()


DISK_KIND = "copy"
"""The folder of copy kernels' launch entries in the cache directory (runtime/cache.py)."""


def entry_key(key: CopyKey, pipeline: str, arch: str | None) -> list:
    """What a copy kernel's launch entry is keyed by (runtime/cache.py adds the
    fingerprint of tilec's sources): the key, the pipeline and the architecture, and
    the api/ kernels' tuning values in force where any is set (`copy_routes`)."""
    from dataclasses import asdict

    tuning = current_routes().tuning()
    return [asdict(key), pipeline, arch, tuning] if tuning else [asdict(key), pipeline, arch]


def kernel_pipeline(key: CopyKey, pipeline: str) -> str:
    """The pass pipeline the kernel of `key` is compiled with: `pipeline` (the passes
    choose strategy, tile, threads and vectors from the program's facts, as for any
    program), its `copy-strategy` pass given the routes forced (`copy_routes`:
    `copy-strategy{gather=always}`, `box=never`), its `tile` pass the realign
    strategy's threads where `realign_threads` is set (keys with aligned pointers), and
    each other tuning value set (`copy_routes.TUNING_NAMES`: the box's staging, lanes,
    grain, chunks, interleaving) as the option of that name; both the box's shared
    memory where `box_smem` is, `tiles_merge`, `tiles_short` and `tiles_short_d`, and `gather_fill` where the key
    asks the fill form (`CopyKey.gather_fill`); `tiles_bytes` the `copy-strategy`
    pass's only. `pipeline` unchanged where nothing is forced or set."""
    routes = current_routes()
    forced = [f"{n}={getattr(routes, n)}" for n in ROUTE_NAMES if getattr(routes, n) != "auto"]
    tuning = routes.tuning()
    threads = tuning.pop("realign_threads", None)  # the realign strategy's: keys that realign only
    tuning.pop("realign_rows", None)  # the plan's (the key states it), no pass's
    tuning.pop("rows_residues", None)  # the plan's (the key states it), no pass's
    strategy_only = {n: tuning.pop(n) for n in ("tiles_bytes",) if n in tuning}  # the `copy-strategy` pass's
    tuning.pop("gather_fill", None)  # the plan's: the key states it (`CopyKey.gather_fill`)
    tile = ([f"threads={threads}"] if threads is not None and key.aligned_pointers else []) + \
        [f"{n}={v}" for n, v in tuning.items()]
    forced += [f"{n}={v}" for n, v in strategy_only.items()]
    if key.gather_fill:
        tile.append(f"gather_fill={key.gather_fill}")
        forced.append(f"gather_fill={key.gather_fill}")
    for both in ("box_smem", "tiles_merge", "tiles_short", "tiles_short_d"):  # options of both passes
        if both in tuning:
            forced.append(f"{both}={tuning[both]}")
    if not forced and not tile:
        return pipeline
    from tilec.compiler.pipeline import expand_pipeline

    def option(p: str) -> str:
        if p == "copy-strategy" and forced:
            return f"copy-strategy{{{' '.join(forced)}}}"
        if p == "tile" and tile:
            return f"tile{{{' '.join(tile)}}}"
        return p

    return ",".join(option(p) for p in expand_pipeline(pipeline).split(","))


_default: CopyKernels | None = None


def default_kernels() -> CopyKernels:
    """The process-wide kernels of `tilec.copy_`."""
    global _default
    if _default is None:
        _default = CopyKernels()
    return _default
