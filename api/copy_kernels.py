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

from tilec.support.diagnostics import TilecError

from .copy_plan import CopyKey, CopyPlan
from .copy_program import FUNCTION, copy_program, tile_choice


@dataclass
class CopyKernelStats:
    """Counters of a `CopyKernels`: `compiles` (keys compiled) and `hits`."""

    compiles: int = 0
    hits: int = 0


def _converter(dtype: str) -> Callable[[int], Any]:
    if dtype == "int32":
        return np.int32
    if dtype == "int64":
        return np.int64
    raise TilecError(f"copy kernel: unexpected parameter type {dtype}")


class CopyKernel:
    """One compiled copy pattern. `kernel` is the `tilec.runtime.launch.Kernel`;
    `launch(plan, stream)` runs its host function for the plan's sizes and launches
    every kernel it names, on `stream` (a CuPy stream object or None: the current
    one). Nothing is checked here: `plan_copy` did it."""

    def __init__(self, key: CopyKey, kernel: Any):
        self.key = key
        self.kernel = kernel
        self.program = copy_program(key)
        self._host = kernel.host_program
        # per kernel: (name, [convert per parameter], dynamic smem bytes)
        self._params: dict[str, tuple[list[Callable[[Any], Any] | None], int]] = {}
        for name, info in kernel.infos.items():
            convs = [None if p.is_buffer else _converter(p.dtype) for p in info.params]
            self._params[name] = (convs, info.dynamic_smem_bytes)

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
    stats: CopyKernelStats = field(default_factory=CopyKernelStats)
    _entries: dict[CopyKey, CopyKernel] = field(default_factory=dict)
    launchers: dict[tuple, Any] = field(default_factory=dict)
    """`copy_launch.Launcher`s by copy structure (`copy_launch.structure`)."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, key: CopyKey) -> CopyKernel:
        """The kernel for `key`, compiled on first use."""
        entry = self._entries.get(key)
        if entry is not None:
            self.stats.hits += 1
            return entry
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                entry = self._compile(key)
                self._entries[key] = entry
                self.stats.compiles += 1
        return entry

    def _compile(self, key: CopyKey) -> CopyKernel:
        from tilec.compiling import compile_program

        pipeline = self.pipeline
        _, threads = tile_choice(key)
        if threads and threads != 256:
            from tilec.compiler.pipeline import expand_pipeline

            pipeline = expand_pipeline(pipeline).replace("tile,", f"tile{{threads={threads}}},", 1)
        kernel = compile_program(copy_program(key), pipeline, arch=self.arch, function=FUNCTION)
        return CopyKernel(key, kernel)

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.launchers.clear()


_default: CopyKernels | None = None


def default_kernels() -> CopyKernels:
    """The process-wide kernels of `tilec.copy_`."""
    global _default
    if _default is None:
        _default = CopyKernels()
    return _default
