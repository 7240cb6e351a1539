"""`tilec.autotune`: Triton's autotuner over a `@tilec.jit` kernel.

    @tilec.autotune(configs=[tilec.Config({"BLOCK": 512}), tilec.Config({"BLOCK": 1024}, num_warps=8)],
                    key=["n"])
    @tilec.jit
    def add_one(x, y, n, BLOCK: tilec.constexpr): ...

    add_one[lambda meta: (tilec.cdiv(n, meta["BLOCK"]),)](x, y, n)

The first call for a value of the key (the named arguments' values; an array's shape,
and every array's dtype) launches each configuration on the caller's arrays, times it
and keeps the fastest, in memory and on disk (`$TILEC_CACHE_DIR/autotune/`, keyed by the
kernel's source, the configurations, the key's value, the device's architecture and
tilec's version; `TILEC_CACHE=0` leaves the disk alone), so a new process does not time
again. Later calls with that value launch the winner directly. Each configuration runs
on the caller's arrays: a kernel that reads what it writes sees the earlier runs'
results while it is timed (Triton's `restore_value` is not there yet).

Timing (`timer`, a function of a no-argument launch returning seconds): by default CUDA
events around `rep` launches after `warmup`, on CuPy's current stream. Without a GPU
(NumPy arrays on the CPU reference executor) nothing is timed unless a `timer` is given:
the first configuration runs, and nothing is kept on disk.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tilec.compiler.builder_locations import located, user_location
from tilec.runtime.cache import default_cache_dir, disk_cache_enabled
from tilec.support.diagnostics import TilecError

from .jit_launch import JITFunction, _read_array


@dataclass(frozen=True)
class Config:
    """One configuration: constexpr values by name, and the number of warps.

        tilec.Config({"BLOCK": 1024}, num_warps=8)
    """

    kwargs: dict[str, Any] = field(default_factory=dict)
    num_warps: int = 4

    def __repr__(self) -> str:
        return f"Config({self.kwargs!r}, num_warps={self.num_warps})"


def _gpu_timer(warmup: int, rep: int) -> Callable[[Callable[[], None]], float]:
    def time_it(launch: Callable[[], None]) -> float:
        import cupy

        for _ in range(warmup):
            launch()
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        for _ in range(rep):
            launch()
        end.record()
        end.synchronize()
        return cupy.cuda.get_elapsed_time(start, end) / 1e3 / rep

    return time_it


@located
class Autotuner:
    """A `@tilec.jit` kernel launched with the fastest of `configs` per value of `key`
    (the module docstring): `fn[grid](*args, **kwargs)` as the kernel's own."""

    def __init__(self, fn: JITFunction, configs: Sequence[Config], key: Sequence[str],
                 timer: Callable[[Callable[[], None]], float] | None = None, warmup: int = 3, rep: int = 10):
        if not isinstance(fn, JITFunction):
            raise TilecError("@tilec.autotune goes above @tilec.jit (it tunes a jit kernel)", loc=user_location())
        if not configs:
            raise TilecError("autotune needs at least one Config", loc=user_location())
        params = fn.tracer.signature.parameters
        for name in key:
            if name not in params:
                raise TilecError(f"autotune key {name!r} is not a parameter of '{fn.tracer.name}' "
                                 f"({', '.join(params)})", loc=user_location())
        self.fn = fn
        self.configs = list(configs)
        self.key = list(key)
        self.timer = timer
        self.warmup, self.rep = warmup, rep
        self.best: dict[tuple, Config] = {}
        """The winner of each key value tuned or read in this process."""
        self.timings: dict[tuple, list[float]] = {}
        """The time of each configuration, per key value tuned in this process."""

    def __getitem__(self, grid: Any) -> Callable[..., None]:
        def launch(*args: Any, stream: Any = None, **kwargs: Any) -> None:
            self.run(grid, args, kwargs, stream=stream)

        return launch

    def run(self, grid: Any, args: Sequence[Any], kwargs: dict[str, Any], *, stream: Any = None) -> None:
        """Launch with the key's best configuration (tuned now on the first call)."""
        bound = self.fn.tracer.signature.bind_partial(*args, **kwargs).arguments
        arrays = {n: a for n, v in bound.items() if (a := _read_array(n, v)) is not None}
        on_host = bool(arrays) and all(a.host is not None for a in arrays.values())
        value = self._key_value(bound, arrays, on_host)
        config = self.best.get(value) or self._load(value)
        if config is None:
            config = self._tune(grid, args, kwargs, stream, value, on_host)
        self.best[value] = config
        self.fn.run(grid, args, {**kwargs, **config.kwargs}, num_warps=config.num_warps, stream=stream)

    def _key_value(self, bound: dict[str, Any], arrays: dict, on_host: bool) -> tuple:
        parts: list[Any] = []
        for name in self.key:
            a = arrays.get(name)
            parts.append(a.shape if a is not None else bound.get(name))
        parts.append(tuple(a.dtype for a in arrays.values()))
        if not on_host:
            from tilec.runtime.nvrtc import device_arch

            parts.append(device_arch())
        return tuple(parts)

    def _tune(self, grid: Any, args: Sequence[Any], kwargs: dict[str, Any], stream: Any, value: tuple,
              on_host: bool) -> Config:
        timer = self.timer
        if timer is None:
            if on_host:
                return self.configs[0]  # the CPU reference executor times nothing of the GPU
            timer = _gpu_timer(self.warmup, self.rep)
            if stream is None:
                import cupy

                stream = cupy.cuda.get_current_stream()  # where the events are recorded
        times = []
        for config in self.configs:
            def launch(config: Config = config) -> None:
                self.fn.run(grid, args, {**kwargs, **config.kwargs}, num_warps=config.num_warps, stream=stream)

            times.append(float(timer(launch)))
        self.timings[value] = times
        best = self.configs[times.index(min(times))]
        if not on_host or self.timer is not None:
            self._store(value, best)
        return best

    # ------------------------------------------------------------ disk
    def _path(self, value: tuple) -> str | None:
        if not disk_cache_enabled():
            return None
        try:
            source = inspect.getsource(self.fn.fn)
        except (OSError, TypeError):
            return None
        text = json.dumps([sys.modules["tilec"].__version__, source, self.fn.fn.__qualname__,
                           [repr(c) for c in self.configs], self.key, repr(value)])
        return str(default_cache_dir() / "autotune" / (hashlib.sha256(text.encode()).hexdigest() + ".json"))

    def _load(self, value: tuple) -> Config | None:
        path = self._path(value)
        if path is None:
            return None
        try:
            with open(path, encoding="utf-8") as f:
                index = int(json.load(f)["config"])
            return self.configs[index]
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return None

    def _store(self, value: tuple, best: Config) -> None:
        path = self._path(value)
        if path is None:
            return
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"config": self.configs.index(best), "repr": repr(best)}, f)
            os.replace(tmp, path)
        except OSError:
            pass  # tuned again next time, nothing more


def autotune(configs: Sequence[Config], key: Sequence[str], *,
             timer: Callable[[Callable[[], None]], float] | None = None, warmup: int = 3,
             rep: int = 10) -> Callable[[JITFunction], Autotuner]:
    """Triton's `@triton.autotune(configs=..., key=[...])` over a `@tilec.jit` kernel
    (the module docstring).

        @tilec.autotune(configs=[tilec.Config({"BLOCK": 512}), tilec.Config({"BLOCK": 1024})], key=["n"])
    """
    return lambda fn: Autotuner(fn, configs, key, timer, warmup, rep)
