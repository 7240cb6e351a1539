"""`tilec.copy_`, `tilec.contiguous` and `tilec.permute` on PyTorch tensors, CuPy arrays
and anything with `__cuda_array_interface__` or DLPack.

    tilec.copy_(dst, src)             # dst[...] = src, broadcast, converted; returns dst
    y = tilec.contiguous(x)           # a new C-contiguous tensor of x's framework
    y = tilec.permute(x, (0, 3, 1, 2))  # x.permute(dims).contiguous()

The work is split in three layers: `copy_plan` (pure: checks, broadcasting, mode
merging, the specialisation key), `copy_kernels` (one compiled kernel per key) and this
module, the thin layer that reads the framework's arrays and launches on its current
stream (PyTorch's `torch.cuda.current_stream()` for torch tensors, CuPy's
`cupy.cuda.get_current_stream()` otherwise).

Overlap: a dst whose elements overlap is refused (TilecError, nothing written); when dst
and src share bytes (and are not the very same view, which is a no-op), src is first
copied to a temporary, then the temporary to dst, so the result is what a copy from
an untouched src gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tilec.runtime import raw_launch
from tilec.runtime.launch import as_device_array, framework_facts, framework_of
from tilec.support.diagnostics import TilecError

from .copy_kernels import CopyKernels, default_kernels
from .copy_launch import Launcher, PartsLauncher, structure
from .copy_period import Part, period_parts
from .copy_plan import Operand, plan_copy


class _Array:
    """A device array as `tilec.copy_` sees it: its `Operand`, its framework
    (`"torch"` or `"cupy"`) and the object itself."""

    __slots__ = ("framework", "obj", "operand")

    def __init__(self, operand: Operand, framework: str, obj: Any):
        self.operand = operand
        self.framework = framework
        self.obj = obj


_torch_ops: Any = None
"""`tilec.torch_ops` once it registered the PyTorch operators: while `torch.compile`
traces a call of `copy_`, `contiguous` or `permute`, the call goes to its operator."""


_torch_tensor: Any = None
"""`torch.Tensor` once a torch tensor was seen (the fast path of `copy_` takes exactly
this type; torch is never imported for it)."""


def as_array(what: str, obj: Any) -> _Array:
    """Read a device array with the launch path's reader (runtime/launch.py:
    `framework_facts` for CuPy arrays and PyTorch tensors, `as_device_array` for
    `__cuda_array_interface__` and DLPack, taken as CuPy arrays over the same memory:
    their framework's stream and allocator are CuPy's); TilecError (naming `what`) for
    host arrays and anything that is not an array."""
    global _torch_tensor
    framework = framework_of(type(obj))
    if framework == "torch":
        if _torch_tensor is None:
            import torch

            _torch_tensor = torch.Tensor
        if not obj.is_cuda:
            raise TilecError(f"{what} is a PyTorch CPU tensor; tilec.copy_ takes CUDA tensors")
    elif framework is None:
        if isinstance(obj, np.ndarray):
            raise TilecError(f"{what} is a NumPy (host) array; tilec.copy_ takes device arrays")
        obj = as_device_array(what, obj).obj
        if framework_of(type(obj)) is None:
            import cupy

            obj = cupy.asarray(obj)
        framework = "cupy"
    return _Array(Operand(*framework_facts(what, obj, framework)), framework, obj)


# ----------------------------------------------------------------------------- streams

_external_streams: dict[int, Any] = {}


def current_stream(array: _Array) -> Any:
    """The framework's current stream for `array`'s device: a CUstream handle (an
    int) for torch tensors where launches go through the driver, else a CuPy stream."""
    if array.framework == "torch":
        import torch

        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        if raw is not None:
            handle = raw(array.operand.device)
        else:  # pragma: no cover - older PyTorch
            handle = torch.cuda.current_stream(array.obj.device).cuda_stream
        if raw_launch.available():
            return handle
        stream = _external_streams.get(handle)
        if stream is None:
            import cupy

            stream = cupy.cuda.ExternalStream(handle)
            _external_streams[handle] = stream
        return stream
    import cupy

    return cupy.cuda.get_current_stream()


def _empty_like_shape(like: _Array, shape: Sequence[int], dtype: str | None = None) -> Any:
    """A new C-contiguous array of `like`'s framework, device and dtype."""
    if like.framework == "torch":
        import torch

        dt = getattr(torch, dtype) if dtype else like.obj.dtype
        return torch.empty(tuple(shape), dtype=dt, device=like.obj.device)
    import cupy

    with cupy.cuda.Device(like.operand.device):
        return cupy.empty(tuple(shape), dtype=dtype or like.obj.dtype)


# ----------------------------------------------------------------------------- calls


def _launcher(dst: _Array, src: _Array, kernels: CopyKernels) -> Launcher:
    """The launcher of this copy's structure: planned (every check) on first sight."""
    key = structure(dst.operand, src.operand)
    launcher = kernels.launchers.get(key)
    if launcher is None:
        plan = plan_copy(dst.operand, src.operand)
        parts = period_parts(plan)
        if parts:
            launcher = _parts_launcher(parts, dst.operand, src.operand, kernels)
        else:
            entry = kernels.get(plan.key) if plan.num_elements else None
            launcher = Launcher(entry, plan, dst.operand, src.operand)
        kernels.launchers[key] = launcher
    return launcher


def _parts_launcher(parts: list[Part], dst: Operand, src: Operand, kernels: CopyKernels) -> PartsLauncher:
    """The launcher of a copy split in `parts` (copy_period.py)."""
    built = []
    for part in parts:
        plan = plan_copy(part.dst, part.src)
        base = dst.ptr if part.src_in_dst else src.ptr
        launcher = Launcher(kernels.get(plan.key), plan, part.dst, part.src)
        built.append((launcher, part.dst.ptr - dst.ptr, part.src.ptr - base, part.src_in_dst))
    return PartsLauncher(built, dst, src)


def _device_now(array: _Array) -> int:
    """The current device of `array`'s framework."""
    if array.framework == "torch":
        import torch

        return torch.cuda.current_device()
    import cupy

    return cupy.cuda.runtime.getDevice()


def _device_scope(array: _Array, device: int) -> Any:
    if array.framework == "torch":
        import torch

        return torch.cuda.device(device)
    import cupy

    return cupy.cuda.Device(device)


def _launch(dst: _Array, src: _Array, launcher: Launcher) -> None:
    if not launcher.launches:
        return
    stream = current_stream(dst)
    device = dst.operand.device
    if device is not None and device != _device_now(dst):
        with _device_scope(dst, device):
            launcher(dst.operand.ptr, src.operand.ptr, device, stream)
    else:
        launcher(dst.operand.ptr, src.operand.ptr, device, stream)


def _torch_key(dst: Any, src: Any, dp: int, sp: int) -> tuple:
    """The fast path's structure key of two torch tensors (`copy_launch.structure`
    with torch's own dtype and size objects, read without building `Operand`s)."""
    return (dst.dtype, dst.shape, dst.stride(), dp & 15, dst.get_device(),
            src.dtype, src.shape, src.stride(), sp & 15, src.get_device())


def _remember_torch(dst: _Array, src: _Array, launcher: Launcher, kernels: CopyKernels) -> None:
    """Make `launcher` the fast path's for this pair of plain torch tensors."""
    if not (type(dst.obj) is _torch_tensor and type(src.obj) is _torch_tensor):
        return
    if not raw_launch.available():
        return
    import torch

    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    getdev = getattr(torch._C, "_cuda_getDevice", None)
    if raw is None or getdev is None:  # pragma: no cover - older PyTorch
        return
    key = _torch_key(dst.obj, src.obj, dst.operand.ptr, src.operand.ptr)
    kernels.torch_launchers[key] = launcher.fast_path(getdev, raw)


def copy_(dst: Any, src: Any, *, kernels: CopyKernels | None = None) -> Any:
    """`dst[...] = src` like `torch.Tensor.copy_`: src broadcast to dst's shape, its
    elements converted to dst's dtype as PyTorch converts them; returns dst.

    Takes PyTorch CUDA tensors, CuPy arrays and other device arrays (any strides,
    negative ones too, storage offsets, up to 8 dimensions; float16, bfloat16,
    float32, float64, int8, int16, int32, int64, uint8, bool). Runs on the current
    stream of dst's framework. TilecError, with nothing written, for host arrays,
    arrays on different devices, unsupported dtypes, shapes that do not broadcast
    and a dst whose elements overlap; a src that shares memory with dst is copied
    through a temporary. A copy of a structure seen before (dtypes, shapes, strides,
    pointer alignment, devices) reuses its plan and kernel (copy_launch.py). Inside
    `torch.compile`, the operator `tilec::copy_` (tilec.torch_ops)."""
    if _torch_ops is not None and kernels is None and _torch_ops.tracing():
        return _torch_ops.copy_(dst, src)
    kernels = default_kernels() if kernels is None else kernels
    if type(dst) is _torch_tensor and type(src) is _torch_tensor:
        # The cached call of two torch tensors (`Launcher.fast_path`): False where the
        # general path must run (first sight, overlap, another device current).
        dp, sp = dst.data_ptr(), src.data_ptr()
        fast = kernels.torch_launchers.get(_torch_key(dst, src, dp, sp))
        if fast is not None and fast(dp, sp):
            return dst
    d = as_array("dst", dst)
    s = as_array("src", src)
    launcher = _launcher(d, s, kernels)  # every check, before anything is written
    kind = launcher.overlap(d.operand.ptr, s.operand.ptr)
    if kind == "none" and d.framework == s.framework == "torch":
        _remember_torch(d, s, launcher, kernels)
    if kind == "same":
        return dst
    if kind == "partial":
        tmp = as_array("temporary", _empty_like_shape(s, s.operand.shape))
        _launch(tmp, s, _launcher(tmp, s, kernels))
        s = tmp
        launcher = _launcher(d, s, kernels)
    _launch(d, s, launcher)
    return dst


def contiguous(x: Any, *, kernels: CopyKernels | None = None) -> Any:
    """A new C-contiguous copy of `x` in `x`'s framework (always a new array, unlike
    `torch.Tensor.contiguous`, which returns `x` itself when it is contiguous). Inside
    `torch.compile`, the operator `tilec::contiguous`."""
    if _torch_ops is not None and kernels is None and _torch_ops.tracing():
        return _torch_ops.contiguous(x)
    kernels = default_kernels() if kernels is None else kernels
    a = as_array("x", x)
    out = as_array("out", _empty_like_shape(a, a.operand.shape))
    _launch(out, a, _launcher(out, a, kernels))
    return out.obj


def permute(x: Any, dims: Sequence[int], *, kernels: CopyKernels | None = None) -> Any:
    """`x.permute(dims).contiguous()`: a new C-contiguous array whose dimension k is
    `x`'s dimension `dims[k]`. Inside `torch.compile`, the operator `tilec::permute`."""
    if _torch_ops is not None and kernels is None and _torch_ops.tracing():
        return _torch_ops.permute(x, dims)
    a = as_array("x", x)
    op = a.operand
    rank = len(op.shape)
    dims = [int(d) for d in dims]
    norm = [d + rank if d < 0 else d for d in dims]
    if sorted(norm) != list(range(rank)):
        raise TilecError(f"permute: {dims} is not a permutation of the {rank} dimensions of x")
    shape = tuple(op.shape[d] for d in norm)
    view = _Array(Operand(op.ptr, op.dtype, shape, tuple(op.strides[d] for d in norm), op.device),
                  a.framework, a.obj)
    out = as_array("out", _empty_like_shape(a, shape))
    kernels = default_kernels() if kernels is None else kernels
    _launch(out, view, _launcher(out, view, kernels))
    return out.obj
