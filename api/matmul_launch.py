"""The hot path of `tilec.matmul` on PyTorch tensors: a call seen before (the same
dtypes, shapes, strides, 16-byte alignments and devices of every operand, the same
activation, output dtype and kinds of scales) launches without choosing a
configuration, checking an operand or running the host function again.

    key = structure(a, b, bias, activation, residual, out_dtype, out, scale_a, scale_b)
    fast = MatmulLauncher(prepared, ...).fast_path(torch)    # once per structure (api/gemm.py)
    out = fast(a, b, bias, residual, out, scale_a, scale_b)   # per call; None: take the general path

The key holds everything the general path's choice and checks depend on (M too: the
grid and the tensor maps' extents are M's), so a hit would pass them all again; M is a
run-time value of the kernel, so a new M misses here, compiles nothing and prepares a
new launcher. A launcher is a `runtime.launch.PreparedCall` of the kernel (the
launches packed once for the driver, `runtime.raw_launch.RawLaunch`, as `tilec.copy_`'s
cached calls launch, api/copy_launch.py): per call it allocates the output (unless
`out` is given) and split-K's workspace, reads each operand's pointer and launches on
PyTorch's current stream; a tensor map whose operand moved has its global address
rewritten, nothing else (runtime/tensor_map.py's `replace_address`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tilec.runtime.launch import PreparedCall

CALLS_KEPT = 1024
"""How many call structures `tilec.matmul` keeps launchers for (all dropped past it)."""

OPERANDS = ("a", "b", "out", "bias", "residual", "scale_a", "scale_b")
"""The order of a fast call's tensors (`MatmulLauncher.fast_path`)."""


def _facts(t: Any) -> Any:
    """What the checks read of an optional operand: None, a number's type and value,
    or a tensor's dtype, shape, strides, 16-byte alignment and device."""
    if t is None:
        return None
    if isinstance(t, int | float):
        return (type(t), t)
    return (t.dtype, t.shape, t.stride(), t.data_ptr() & 15, t.get_device())


def structure(a: Any, b: Any, bias: Any, activation: Any, residual: Any, out_dtype: Any, out: Any,
              scale_a: Any, scale_b: Any) -> tuple:
    """The key of a call of torch tensors `a` and `b` (the module docstring); hashing
    it raises TypeError where something in it is not (the general path reports it)."""
    key = (a.dtype, a.shape, a.stride(), a.data_ptr() & 15, a.get_device(),
           b.dtype, b.shape, b.stride(), b.data_ptr() & 15, b.get_device(), activation, out_dtype,
           None if bias is None else _facts(bias), None if residual is None else _facts(residual),
           None if out is None else _facts(out),
           None if scale_a is None else _facts(scale_a), None if scale_b is None else _facts(scale_b))
    return key


class MatmulLauncher:
    """One call structure of `tilec.matmul`, prepared (module doc).

    `prepared`: the kernel's `PreparedCall` whose free arguments are, in order, the
    call's tensors at `sources` (indices in `OPERANDS`), then the workspace where
    `workspace` (its f32 elements) is nonzero; `out_shape` and `out_dtype` (a torch
    dtype) the output a call without `out` allocates; `device` the CUDA device's index,
    `where` its torch.device; `keep` the tensors whose pointers the prepared call holds
    fixed (a number's scale as a tensor)."""

    def __init__(self, prepared: PreparedCall, sources: tuple[int, ...], workspace: int,
                 out_shape: tuple[int, ...], out_dtype: Any, device: int, where: Any, keep: tuple = ()):
        self.prepared, self.sources, self.workspace = prepared, sources, workspace
        self.out_shape, self.out_dtype, self.device, self.where = out_shape, out_dtype, device, where
        self.keep = keep

    def fast_path(self, torch: Any) -> Callable[..., Any]:
        """This structure's cached call as one closure `fast(a, b, bias, residual, out,
        scale_a, scale_b) -> out`, with nothing looked up per call that the first call
        fixed: None (nothing launched) where another device is current, so the general
        path runs. `torch`: the module (its `empty`, current device and raw current
        stream)."""
        prepared, sources, workspace = self.prepared, self.sources, self.workspace
        shape, dtype, device, where = self.out_shape, self.out_dtype, self.device, self.where
        f32 = torch.float32
        empty = torch.empty
        current_device = torch._C._cuda_getDevice
        raw_stream = torch._C._cuda_getCurrentRawStream

        def fast(a: Any, b: Any, bias: Any, residual: Any, out: Any, scale_a: Any, scale_b: Any) -> Any:
            if current_device() != device:
                return None
            if out is None:
                out = empty(shape, dtype=dtype, device=where)
            given = (a, b, out, bias, residual, scale_a, scale_b)
            pointers = [given[i].data_ptr() for i in sources]
            if workspace:
                partials = empty(workspace, dtype=f32, device=where)  # alive until launched
                pointers.append(partials.data_ptr())
            prepared(raw_stream(device), pointers)
            return out

        # the tensors the prepared launches point at (a number's scale, made by the first
        # call) live as long as the cached call does, not as long as this launcher
        fast.keep = self.keep  # type: ignore[attr-defined]
        return fast
