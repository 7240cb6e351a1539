"""`tilec.copy_` on NumPy arrays, run by the CPU reference executor: the very program
(and, with `compiled=True`, the very GPU-level code) that the GPU runs, so the front end
is tested without a GPU.

    copy_numpy(dst, src)                       # dst[...] = src, as tilec.copy_ would
    copy_numpy(dst, bits, src_dtype="bfloat16")  # NumPy has no bfloat16: uint16 bits

`dst` must be a writable view (any strides, into any base array); `src` may have any
non-negative strides (the executor cannot read before a buffer's start, which a
negative src stride left after mode merging would need; the GPU path takes them).
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from tilec.dialects.dtypes import DTYPES
from tilec.support.diagnostics import TilecError

from .copy_kernels import CopyKernels
from .copy_period import period_parts
from .copy_plan import ITEMSIZE, CopyPlan, Operand, overlap, plan_copy
from .copy_program import copy_program, index_arg_names

_STORAGE = {d.name: d.element.storage for d in DTYPES.values()}
"""How the reference executor holds each dtype."""


def _operand(a: np.ndarray, dtype: str | None) -> Operand:
    if not isinstance(a, np.ndarray):
        raise TilecError(f"copy_numpy takes NumPy arrays, got {type(a).__name__}")
    name = dtype or a.dtype.name
    if name in ITEMSIZE and ITEMSIZE[name] != a.dtype.itemsize:
        raise TilecError(f"a {a.dtype} array cannot hold {name} elements")
    strides = tuple(s // a.dtype.itemsize for s in a.strides)
    return Operand(a.__array_interface__["data"][0], name, a.shape, strides)


def _memory(
    ptr: int, dtype: str, extents, strides, what: str, align: int = 1, skip: int = 0, view: str | None = None
) -> np.ndarray:
    """The flat buffer from `ptr` to the last element the view reaches, its bytes
    rounded up to `align`, the view's first element `skip` elements after `ptr`, seen
    as `view` elements (default: the dtype's storage). (The box and realign
    strategies read the whole 16-byte chunks their src runs lie in: in an allocation
    aligned as NumPy's, never past its end's chunk.)"""
    if any(s < 0 for n, s in zip(extents, strides) if n > 1):
        raise TilecError(
            f"copy_numpy: {what} has a negative stride after mode merging; the CPU "
            "reference executor reads no element before a buffer's start"
        )
    count = 1 + skip + sum((n - 1) * s for n, s in zip(extents, strides))
    size = ITEMSIZE[dtype]
    count = -(-count * size // align) * align // size
    raw = (ctypes.c_char * (count * size)).from_address(ptr)
    return np.frombuffer(raw, dtype=view or _STORAGE[dtype])


def run_plan(plan: CopyPlan, *, kernel: Any = None) -> None:
    """Run a planned copy in place on host memory with the reference executor: the
    whole-tensor program, or `kernel` (a compiled `Kernel` of the same key)."""
    import tilec

    key = plan.key
    # a realign or box program's pointers are aligned down (the
    # remainders are arguments); both read whole 16-byte chunks of the src and write
    # no dst byte outside the view
    so, do, align = (plan.extra[0], plan.extra[1], 16) if key.aligned_pointers else (0, 0, 1)
    src = _memory(plan.src_ptr, key.src_dtype, plan.extents, plan.src_strides, "src", align, so)
    dst = _memory(plan.dst_ptr, key.dst_dtype, plan.extents, plan.dst_strides, "dst", align, do)
    inputs: dict[str, Any] = {"src": src, "dst": dst}
    inputs.update(zip(index_arg_names(key), plan.args))
    program = kernel if kernel is not None else copy_program(key)
    out = tilec.run_reference(program, inputs)["dst"]
    # only the view's span goes back: the rounded-up chunk may reach past the
    # allocation's end (allocator bookkeeping that may have changed meanwhile)
    hi = 1 + do + sum((n - 1) * s for n, s in zip(plan.extents, plan.dst_strides))
    dst[do:hi] = out[do:hi]


def copy_numpy(
    dst: np.ndarray,
    src: np.ndarray,
    *,
    dst_dtype: str | None = None,
    src_dtype: str | None = None,
    compiled: bool = False,
    kernels: CopyKernels | None = None,
) -> np.ndarray:
    """`dst[...] = src` as `tilec.copy_` does it (the same checks, plan and program),
    on the CPU reference executor; returns dst. `compiled` runs the GPU-level code
    of the kernel compiled for sm_90 (through `kernels`, default a fresh
    `CopyKernels(arch="sm_90")`)."""
    d, s = _operand(dst, dst_dtype), _operand(src, src_dtype)
    plan = plan_copy(d, s)
    if not dst.flags.writeable:
        raise TilecError("dst is read-only")
    kind = overlap(d, s)
    if kind == "same":
        return dst
    if kind == "partial":
        tmp = np.array(src, copy=True)  # alive until the copy has run
        plan = plan_copy(d, _operand(tmp, src_dtype))
    if plan.num_elements == 0:
        return dst
    if compiled:
        kernels = CopyKernels(arch="sm_90") if kernels is None else kernels
    parts = period_parts(plan)
    for part in [plan] if parts is None else [plan_copy(p.dst, p.src) for p in parts]:
        run_plan(part, kernel=kernels.get(part.key).kernel if compiled else None)
    return dst


def run_launcher(launcher: Any, dst_ptr: int, src_ptr: int) -> None:
    """What `launcher(dst_ptr, src_ptr, ...)` does on the GPU, on host memory with the
    reference executor running the launcher's compiled kernel (tests of the front end
    without a GPU put this in place of `Launcher.__call__`)."""
    from dataclasses import replace

    plan = replace(launcher.plan, src_ptr=src_ptr + launcher.src_shift, dst_ptr=dst_ptr + launcher.dst_shift)
    if plan.num_elements:
        run_plan(plan, kernel=launcher.entry.kernel)
