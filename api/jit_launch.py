"""`@tilec.jit`: launch, specialise and cache kernels traced from Python
(compiler/jit.py traces them).

    @tilec.jit
    def add_one(x, y, n, BLOCK: tilec.constexpr): ...

    add_one[(tilec.cdiv(n, 1024),)](x, y, n, BLOCK=1024)           # Triton's launch
    add_one[lambda meta: (tilec.cdiv(n, meta["BLOCK"]),)](x, y, n, BLOCK=1024, num_warps=4)

Arrays are PyTorch tensors, CuPy arrays or DLPack arrays on the GPU (launched on the
current stream: PyTorch's where an argument is a torch tensor, else CuPy's; or `stream=`); NumPy arrays run on the CPU reference executor instead
(the very GPU-level code the GPU would run, runtime/reference) and are updated in place,
so a kernel is tested without a GPU. Each call computes its specialisation key (per
argument a `compiler.jit.Spec`, the number of warps, the target, never the shapes) and
runs the kernel compiled for it: from memory, else from disk, else traced and compiled
(one `tilec.compiling` Kernel; its CUDA compiled through the kernel cache,
runtime/cache.py). The run-time extents and strides of each array, its data pointer
and the grid are the kernel's arguments, so a call with other shapes of the same key
compiles nothing.

The disk cache keeps each key's kernel in `$TILEC_CACHE_DIR/jit/` (the kernel cache's
root; `TILEC_CACHE=0` leaves the disk alone), keyed by the function's source, the key,
tilec's version, the target, the pipeline and a fingerprint of tilec's own sources. An
entry holds what a launch needs without parsing the kernels' IR (the host function,
the CUDA source, each kernel's parameters, the arguments' specs) and the GPU-level
module's text, parsed only when the CPU reference executor runs it; the NVRTC output
is the kernel cache's entry. `fn.stats` counts
compiles and hits, and each function in `fn.on_compile` is called with the key of each
compile (the hook tests count compiles with).
"""

from __future__ import annotations

import hashlib
import io
import json
import numbers
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from xdsl.ir import Attribute

from tilec.compiler.builder_locations import located, user_location
from tilec.compiler.jit import ConstSpec, FloatSpec, Spec, TensorSpec, Tracer, constexpr, int_spec, tensor_spec
from tilec.compiler.signature import ArgSpec
from tilec.compiler.specialize import DIVISOR as _DIVISOR
from tilec.runtime.cache import default_cache_dir, disk_cache_enabled
from tilec.runtime.launch import DeviceArray, Kernel, as_device_array, framework_of, parse_gpu_module
from tilec.support.diagnostics import TilecError
from tilec.support.target import DEFAULT_ARCH, set_target, target

DISK_FORMAT = 2
"""Bumped when a disk entry's layout changes."""


_DEVICE_ARCH: dict[int, str] = {}
"""The architecture of each device an array argument was on (the key's target)."""


@dataclass
class JitStats:
    """What a jit kernel did since it was made."""

    compiles: int = 0
    """Specialisations traced and compiled in this process."""
    memory_hits: int = 0
    disk_hits: int = 0


@dataclass
class _Array:
    """An array argument, read once per call."""

    dtype: str
    address: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    host: np.ndarray | None
    """The NumPy array (the CPU reference executor's path), else None."""
    device: DeviceArray | None


def _read_array(name: str, value: Any) -> _Array | None:
    """The array behind `value`, or None where it is not one."""
    kind = type(value)
    if kind is np.ndarray or kind not in _DEVICE_TYPES and isinstance(value, np.ndarray):
        itemsize = value.dtype.itemsize
        return _Array(value.dtype.name, int(value.__array_interface__["data"][0]), tuple(value.shape),
                      tuple(s // itemsize for s in value.strides), value, None)
    if kind in _DEVICE_TYPES or isinstance(value, DeviceArray) or framework_of(kind) is not None:
        _DEVICE_TYPES.add(kind)
    elif not (hasattr(value, "__cuda_array_interface__") or hasattr(value, "__dlpack__")):
        return None
    a = as_device_array(name, value)
    return _Array(a.dtype, a.ptr, a.shape, a.strides, None, a)


_DEVICE_TYPES: set[type] = set()
"""Types seen to be device arrays (DeviceArray, PyTorch's, CuPy's): read without asking again."""


def _span(name: str, a: _Array) -> int:
    """Elements from the array's first element to its last (its storage's extent)."""
    if any(n == 0 for n in a.shape):
        return 0
    return 1 + sum((n - 1) * s for n, s in zip(a.shape, a.strides))


@located
class JITFunction:
    """A `@tilec.jit` kernel: `fn[grid](*args, num_warps=4, stream=None, **kwargs)`
    launches it (the module docstring); `fn.trace(*args, **kwargs)` is the `Program`
    a call with those arguments would compile (to print or inspect)."""

    def __init__(self, fn: Callable, *, pipeline: str = "default"):
        self.tracer = Tracer(fn)
        self.fn = fn
        self.pipeline = pipeline
        self.stats = JitStats()
        self.on_compile: list[Callable[[tuple], None]] = []
        self._kernels: dict[tuple, Kernel] = {}
        self._calls: dict[tuple, tuple[Kernel, tuple[tuple[str, str], ...]]] = {}
        """The launch cache: per `_call_facts` key, the kernel and each argument's kind."""
        self._lock = threading.Lock()
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__

    def __repr__(self) -> str:
        return f"<tilec.jit kernel {self.tracer.name}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Inside a kernel being traced, a jit function called as a function is inlined
        (Triton's `@triton.jit` helpers); outside, a kernel is launched with a grid."""
        from tilec.compiler.jit import tracing

        if tracing():
            return self.fn(*args, **kwargs)
        raise TilecError(f"launch the kernel '{self.tracer.name}' with a grid: {self.tracer.name}[grid](...)",
                         loc=user_location())

    def __getitem__(self, grid: Any) -> Callable[..., None]:
        def launch(*args: Any, num_warps: int = 4, stream: Any = None, **kwargs: Any) -> None:
            self.run(grid, args, kwargs, num_warps=num_warps, stream=stream)

        return launch

    # ------------------------------------------------------------ keys
    def _bind(self, args: Sequence[Any], kwargs: dict[str, Any], num_warps: int) -> dict[str, Any]:
        if "num_warps" in self.tracer.signature.parameters:
            kwargs = {**kwargs, "num_warps": num_warps}  # a kernel that names it sees the launch's (Triton's meta)
        return self.tracer.bind(args, kwargs)

    def _specs(self, bound: dict[str, Any], read: dict[str, _Array] | None = None,
               ) -> tuple[dict[str, Spec], dict[str, _Array]]:
        """Each argument's Spec, and its arrays (those in `read` already read)."""
        specs: dict[str, Spec] = {}
        arrays: dict[str, _Array] = {}
        for name, value in bound.items():
            if isinstance(value, constexpr):
                value = value.value
                specs[name] = ConstSpec(value)
            elif name in self.tracer.constexprs:
                specs[name] = ConstSpec(value)
            elif isinstance(value, bool):
                raise TilecError(f"argument '{name}' is a bool: annotate the parameter with tilec.constexpr")
            elif isinstance(value, numbers.Integral):
                specs[name] = int_spec(int(value))
            elif isinstance(value, numbers.Real):
                specs[name] = FloatSpec()
            else:
                a = read[name] if read is not None and name in read else _read_array(name, value)
                if a is None:
                    raise TilecError(f"argument '{name}': expected an array (PyTorch, CuPy, DLPack, NumPy), an int, "
                                     f"a float or a constexpr, got {type(value).__name__}")
                if any(st < 0 for st in a.strides):
                    raise TilecError(f"argument '{name}' has a negative stride {a.strides}: pass a copy")
                arrays[name] = a
                specs[name] = tensor_spec(a.dtype, a.address, a.shape, a.strides)
            try:
                hash(specs[name])
            except TypeError:
                raise TilecError(f"constexpr argument '{name}' = {value!r} is not hashable: each value is a "
                                 "specialisation, so it must be") from None
        return specs, arrays

    def key(self, *args: Any, num_warps: int = 4, **kwargs: Any) -> tuple:
        """The specialisation key of a call with these arguments (for the CPU reference
        executor's target where all arrays are NumPy's, else the current device's)."""
        bound = self._bind(args, kwargs, num_warps)
        specs, arrays = self._specs(bound)
        return self._key(specs, num_warps, self._arch(arrays))

    @staticmethod
    def _key(specs: dict[str, Spec], num_warps: int, arch: str) -> tuple:
        return (tuple(specs.items()), num_warps, target(arch))

    @staticmethod
    def _arch(arrays: dict[str, _Array]) -> str:
        if arrays and all(a.host is not None for a in arrays.values()):
            return DEFAULT_ARCH
        if any(a.host is not None for a in arrays.values()):
            raise TilecError("a launch takes device arrays (PyTorch, CuPy, DLPack) or NumPy arrays (the CPU "
                             "reference executor), not both")
        devices = {a.device.device for a in arrays.values() if a.device is not None}
        device = devices.pop() if len(devices) == 1 else None
        arch = _DEVICE_ARCH.get(device) if device is not None else None
        if arch is None:
            from tilec.runtime.nvrtc import device_arch

            arch = device_arch()  # asks NVRTC what it supports: once per device
            # a Hopper runs sm_90a code: its Target has wgmma and setmaxnreg, so a
            # `tilec.dot` lowers to wgmma there (accelerate-matmul), as Triton's does
            arch = "sm_90a" if arch == "sm_90" else arch
            if device is not None:
                _DEVICE_ARCH[device] = arch
        return arch

    def trace(self, *args: Any, num_warps: int = 4, **kwargs: Any) -> Any:
        """The `Program` a call with these arguments compiles (arrays may be NumPy's).

            print(tilec.emit(add_one.trace(x, y, 1000, BLOCK=1024)))
        """
        specs, _ = self._specs(self._bind(args, kwargs, num_warps))
        return self.tracer.trace(specs, num_warps)

    # ------------------------------------------------------------ compiling
    def kernel(self, specs: dict[str, Spec], num_warps: int, arch: str) -> Kernel:
        """The compiled Kernel of a specialisation: from memory, disk, or compiled now."""
        key = self._key(specs, num_warps, arch)
        kernel = self._kernels.get(key)
        if kernel is not None:
            self.stats.memory_hits += 1
            return kernel
        path = self._disk_path(key, arch)
        kernel = _load(path) if path is not None else None
        if kernel is not None:
            self.stats.disk_hits += 1
        else:
            kernel = self._compile(specs, num_warps, arch, key)
            if path is not None:
                _store(path, kernel)
        with self._lock:
            return self._kernels.setdefault(key, kernel)

    def _compile(self, specs: dict[str, Spec], num_warps: int, arch: str, key: tuple) -> Kernel:
        from tilec.compiling import _build

        module = self.tracer.trace(specs, num_warps).module.clone()
        set_target(module, arch)
        kernel = _build(module, self.pipeline, None, self.tracer.name)
        self.stats.compiles += 1
        for hook in self.on_compile:
            hook(key)
        return kernel

    def _disk_path(self, key: tuple, arch: str) -> str | None:
        if not disk_cache_enabled():
            return None
        import inspect

        from tilec.runtime.cache import source_fingerprint

        version = sys.modules["tilec"].__version__  # the package is imported (importlib.metadata costs 90 ms)

        try:
            source = inspect.getsource(self.fn)
        except (OSError, TypeError):
            return None  # no source to key on (an interactive definition): memory only
        try:
            specs, num_warps, tgt = key
            stable_target = {f.name: sorted(v) if isinstance(v, frozenset) else v
                             for f in fields(tgt) for v in [getattr(tgt, f.name)]}  # a set's order varies per process
            text = json.dumps([DISK_FORMAT, version, arch, self.pipeline, source, repr((specs, num_warps)),
                               stable_target,
                               self.fn.__module__, self.fn.__qualname__, source_fingerprint()])
        except TypeError:
            return None
        digest = hashlib.sha256(text.encode()).hexdigest()
        return str(default_cache_dir() / "jit" / f"{digest}.json")

    # ------------------------------------------------------------ launching
    def run(self, grid: Any, args: Sequence[Any], kwargs: dict[str, Any], *, num_warps: int = 4,
            stream: Any = None) -> None:
        """Launch on `grid` (a tuple of up to 3 ints, or a function of the arguments by
        name, constexprs included, returning one) on `stream` (None: the current one)."""
        kernel, flat, arrays = self._prepare(grid, args, kwargs, num_warps, None)
        if arrays and all(a.host is not None for a in arrays.values()):
            _run_on_host(kernel, flat, arrays)
        else:
            kernel(*flat, stream=stream if stream is not None else _torch_stream(arrays))

    def launches(self, grid: Any, *args: Any, num_warps: int = 4, arch: str | None = None, **kwargs: Any) -> list:
        """The launches (grid, block, kernel arguments) a call `fn[grid](*args, **kwargs)`
        makes, nothing run; `arch` names the target where no GPU is at hand.

            [launch] = add_one.launches((4,), x, y, 1000, BLOCK=256, arch="sm_90")
        """
        kernel, flat, _ = self._prepare(grid, args, kwargs, num_warps, arch)
        return kernel.launches(*flat)

    def _prepare(self, grid: Any, args: Sequence[Any], kwargs: dict[str, Any], num_warps: int,
                 arch: str | None) -> tuple[Kernel, list[Any], dict[str, _Array]]:
        """The Kernel of a call and its flat arguments: per array its storage, extents
        and strides, per scalar its value (constexprs none), then the grid.

        A call whose arguments have the facts of an earlier call (`_call_facts`: the
        same kinds, dtypes, alignments, extents, strides, devices, integer facts and
        constexpr values) takes that call's kernel from the launch cache without
        computing its specs or key again (Triton's launcher does the same)."""
        if type(num_warps) is not int or num_warps < 1 or num_warps & (num_warps - 1):
            raise TilecError(f"num_warps={num_warps!r}: a power of two")
        bound = self._bind(args, kwargs, num_warps)
        facts, arrays = _call_facts(bound, self.tracer.constexprs)
        hit = None
        if facts is not None:
            if arch is None and any(a.host is None and a.device.device is None for a in arrays.values()):
                arch = self._arch(arrays)  # arrays of no known device: the current device's, asked each call
            try:
                facts = (facts, num_warps, arch)
                hit = self._calls.get(facts)
            except TypeError:  # an unhashable constexpr: _specs says so
                facts = None
        if hit is not None:
            kernel, kinds = hit
            self.stats.memory_hits += 1
        else:
            specs, arrays = self._specs(bound, arrays)
            kernel = self.kernel(specs, num_warps, arch or self._arch(arrays))
            kinds = tuple((name, "c" if isinstance(spec, ConstSpec) else "a" if isinstance(spec, TensorSpec) else "s")
                          for name, spec in specs.items())
            if facts is not None:
                if len(self._calls) >= _CALLS:
                    self._calls.clear()
                self._calls[facts] = (kernel, kinds)
        flat: list[Any] = []
        for name, kind in kinds:
            if kind == "a":
                a = arrays[name]
                flat.append(_buffer(name, a))
                flat.extend(a.shape)
                flat.extend(a.strides)
            elif kind == "s":
                flat.append(bound[name])
        flat.extend(_grid(grid, _meta(bound) if callable(grid) else bound))
        return kernel, flat, arrays


_CALLS = 1024
"""How many argument facts a JITFunction's launch cache keeps (all dropped past it)."""


def _meta(bound: dict[str, Any]) -> dict[str, Any]:
    """The arguments by name as a grid function sees them (constexprs unwrapped)."""
    return {n: (v.value if isinstance(v, constexpr) else v) for n, v in bound.items()}


def _call_facts(bound: dict[str, Any], constexprs: Any) -> tuple[tuple | None, dict[str, _Array]]:
    """What a call's specialisation depends on, as plain values that hash fast (C-level
    tuples of ints, strings and bools), and the arrays read on the way; None where the
    launch cache does not apply (an argument of another type, a bool), and the call
    takes the general path, which also reports errors. Each array contributes its
    dtype, 16-byte alignment, extents, strides and device (more than its
    `TensorSpec`: one cache entry per shape, each the spec's kernel); an array of no
    known device (`__cuda_array_interface__`, DLPack) makes the caller add the current
    device's architecture to the key."""
    facts: list[Any] = []
    arrays: dict[str, _Array] = {}
    for name, value in bound.items():
        if isinstance(value, constexpr):
            facts.append(("c", value.value))
        elif name in constexprs:
            facts.append(("c", value))
        elif type(value) is int:
            facts.append((value == 1, value % _DIVISOR == 0))
        elif type(value) is float:
            facts.append("f")
        elif type(value) is bool:
            return None, arrays
        else:
            a = _read_array(name, value)
            if a is None:
                return None, arrays
            arrays[name] = a
            facts.append((a.dtype, a.address % _DIVISOR == 0, a.shape, a.strides,
                          -1 if a.device is None else a.device.device))
    return tuple(facts), arrays


def _torch_stream(arrays: dict[str, _Array]) -> Any:
    """PyTorch's current stream where an argument is a torch tensor (a launch with
    torch tensors goes where PyTorch's own kernels go, as Triton's does), else None
    (the launcher takes CuPy's current stream)."""
    for a in arrays.values():
        d = a.device
        if d is not None and framework_of(type(d.obj)) == "torch":
            import torch

            from tilec.runtime import raw_launch

            raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # Triton's: no Stream object per call
            handle = raw(d.device) if raw is not None and d.device is not None \
                else torch.cuda.current_stream(d.obj.device).cuda_stream
            if raw_launch.available():
                return handle
            import cupy

            return cupy.cuda.ExternalStream(handle)
    return None


def _grid(grid: Any, meta: dict[str, Any]) -> tuple[int, int, int]:
    if callable(grid):
        grid = grid(meta)
    if isinstance(grid, numbers.Integral):
        grid = (grid,)
    try:
        dims = [int(g) for g in grid]
    except (TypeError, ValueError):
        raise TilecError(f"the grid is a tuple of up to 3 ints (or a function returning one), not {grid!r}") from None
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise TilecError(f"the grid is 1 to 3 positive ints, got {tuple(dims)}")
    return tuple((*dims, 1, 1)[:3])  # type: ignore[return-value]


def _buffer(name: str, a: _Array) -> Any:
    """The pointer argument of an array: its storage from the first element to the last
    (a flat buffer the launcher checks for dtype and alignment; the view in the kernel
    gives the shape and strides)."""
    n = _span(name, a)
    if a.host is not None:
        return np.lib.stride_tricks.as_strided(a.host, shape=(n,), strides=(a.host.dtype.itemsize,))
    d = a.device
    assert d is not None
    return DeviceArray(d.ptr, d.dtype, (n,), (1,), d.device, d.obj)


def _run_on_host(kernel: Kernel, flat: list[Any], arrays: dict[str, _Array]) -> None:
    """Run the kernel's GPU-level module on the CPU reference executor and write each
    array's storage back in place."""
    from tilec.runtime.reference import run

    outs = run(_full_module(kernel), flat, entry=kernel.name)
    for name, a in arrays.items():
        storage = np.lib.stride_tricks.as_strided(a.host, shape=(_span(name, a),), strides=(a.host.dtype.itemsize,))
        if storage.size:
            storage[...] = outs[name]


def _load(path: str) -> Kernel | None:
    """The Kernel of a disk entry, built from what a launch needs without parsing the
    kernels' IR (the slow part): the host function's text, the CUDA source (its cubin is
    the kernel cache's entry), each kernel's parameters, the arguments' specs. The whole
    GPU-level module is parsed only when asked for (`_full_module`)."""
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.parser import Parser

    from tilec.compiler.artifact import Artifact
    from tilec.compiler.cuda import KernelInfo
    from tilec.compiler.cuda.kernel_info import KernelParam
    from tilec.runtime.launch import gpu_level_context

    try:
        with open(path, encoding="utf-8") as f:
            entry = json.load(f)
        if entry.get("format") != DISK_FORMAT:
            return None
        ctx = gpu_level_context()
        host = Parser(ctx, entry["host"]).parse_op()
        infos = {}
        for name, k in entry["kernels"].items():
            params = tuple(KernelParam(**{**p, "type": Parser(ctx, p["type"]).parse_attribute()}) for p in k["params"])
            block = tuple(k["block_size"]) if k["block_size"] is not None else None
            infos[name] = KernelInfo(**{**k, "params": params, "block_size": block})
        specs = tuple(ArgSpec(**s) if s is not None else None for s in entry["specs"])
        artifact = Artifact(ModuleOp([host]), host, entry["source"], infos, specs, target(entry["arch"]))
    except (OSError, ValueError, KeyError, TypeError, TilecError, Exception):  # noqa: BLE001 - a bad entry is a miss
        return None
    kernel = Kernel(artifact)
    kernel._jit_module_text = entry["module"]  # type: ignore[attr-defined]
    return kernel


def _full_module(kernel: Kernel) -> Any:
    """The whole GPU-level module of a kernel (parsed now for one read from disk)."""
    text = getattr(kernel, "_jit_module_text", None)
    if text is not None:
        kernel.module = parse_gpu_module(text)
        kernel._jit_module_text = None  # type: ignore[attr-defined]
    return kernel.module


def _store(path: str, kernel: Kernel) -> None:
    from xdsl.printer import Printer

    from tilec.compiler.pipeline import emit

    def text(x: Any) -> str:
        out = io.StringIO()
        printer = Printer(stream=out)
        if isinstance(x, Attribute):
            printer.print_attribute(x)
        else:
            printer.print_op(x)
        return out.getvalue()

    kernels = {name: {f.name: getattr(info, f.name) for f in fields(info)} for name, info in kernel.infos.items()}
    for k in kernels.values():
        k["params"] = [{**{f.name: getattr(p, f.name) for f in fields(p)}, "type": text(p.type)} for p in k["params"]]
    specs = [None if s is None else {f.name: getattr(s, f.name) for f in fields(s)} for s in kernel.arg_specs]
    entry = {"format": DISK_FORMAT, "module": emit(kernel.module), "host": text(kernel.host),
             "source": kernel.source, "arch": kernel.artifact.target.arch, "kernels": kernels, "specs": specs}
    directory = os.path.dirname(path)
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(entry, f)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only or full disk costs a compile next time, nothing more


def jit(fn: Callable | None = None, *, pipeline: str = "default") -> Any:
    """`@tilec.jit` (or `@tilec.jit(pipeline="...")`): the function as a `JITFunction`
    kernel, traced per specialisation (compiler/jit.py) and launched with
    `fn[grid](...)` (this module's docstring)."""
    if fn is None:
        return lambda f: JITFunction(f, pipeline=pipeline)
    return JITFunction(fn, pipeline=pipeline)

