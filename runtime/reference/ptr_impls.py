"""Pointer tensors (`dialects/layout_ptr.py`) on the reference executor.

Inside a launch a pointer argument is the global `Storage` of its array. A pointer
moved by `layout.addptr` and a pointer tensor are the element offsets into the
argument they point into (`layout_ptr.pointer_root`, known from the IR): an int or a
per-thread array [T] for a scalar pointer, a distributed value of int64 ([blocks,
*shape] or uniform [*shape]) for a pointer tensor, so that the shape ops, `select`,
`convert_layout` and loops move them as any integer tensor.

`layout.ptr_load` / `layout.ptr_store` access each element as each thread that owns it
under the layout (as `layout.load` / `layout.store` do), so out-of-bounds accesses,
races and masks are checked per thread; a `vector` is checked to be contiguous and
aligned, and a `uniform_mask` to be the same over each vector, so that the claims of
`vectorize-pointers` are tested by `--check-equivalence`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.interpreter import InterpreterFunctions, impl, register_impls

from tilec.dialects import layout_ptr as lp

from .errors import ExecutionError
from .executor import HostArray, ReferenceInterpreter
from .layout_impls import (
    check_uniform_mask,
    Access,
    _check_threads,
    _dist_rank,
    _mask_bits,
    _role_span,
    _whole_blocks_active,
    check_vectors,
    element_keys,
    ownership,
)
from .memory import Storage, load, store
from .values import dtype_of


@dataclass(frozen=True)
class _ElementsOf:
    """What `element_keys` / `check_vectors` read of a view, for a pointer tensor."""

    storage: Storage
    align: int
    type: Any
    base: int = 0

    @property
    def name(self) -> str:
        return self.storage.name


class _Pointee:
    def __init__(self, t: TensorType):
        self.element_type = lp.pointee(t)
        self._t = t

    def __str__(self) -> str:
        return str(self._t)


def offset_of(x: Any) -> Any:
    """The element offset a pointer value carries: 0 for the argument itself (its
    Storage inside a launch, its array outside one), else the offsets addptr computed."""
    return 0 if isinstance(x, Storage | HostArray) else x


def _per_register(grid, acc: Access, c: np.ndarray, value: Any, t: TensorType) -> np.ndarray:
    """Element of a distributed int value at each (acting thread, register)."""
    v = np.asarray(value)
    idx = tuple(c[..., d] for d in range(c.shape[-1]))
    if not _dist_rank(v, t):
        return v[idx]
    blocks = np.broadcast_to(grid.block_of[acc.actors][:, None], c.shape[:2])
    return v[(blocks, *idx)]


def _vector_width(op) -> int:
    """Elements a thread accesses at once (`vector`; 1 where unset, and for
    `layout.ptr_prefetch`, which has none)."""
    vector = getattr(op, "vector", None)
    return vector.value.data if vector is not None else 1


@register_impls
class PointerFunctions(InterpreterFunctions):
    @impl(lp.AddPtrOp)
    def run_addptr(self, interp: ReferenceInterpreter, op: lp.AddPtrOp, args):
        p, off = args
        return (np.asarray(offset_of(p), dtype=np.int64) + np.asarray(off).astype(np.int64),)

    @staticmethod
    def _root(interp: ReferenceInterpreter, op) -> tuple[Storage, int]:
        """The storage the pointers point into and the alignment of its start."""
        root = lp.pointer_root(op.ptrs)
        st = interp.get_values((root,))[0]
        if not isinstance(st, Storage):
            raise ExecutionError(op, f"'{op.name}' outside a layout.launch")
        return st, root.type.alignment

    def _elements(self, interp: ReferenceInterpreter, op, offsets, mask, verb: str):
        grid = interp.grid
        if grid is None:
            raise ExecutionError(op, f"'{op.name}' outside a layout.launch")
        t: TensorType = op.ptrs.type
        _check_threads(op, grid, t.encoding)
        _whole_blocks_active(op, grid)
        coords, held = ownership(t.encoding, tuple(t.get_shape()))
        tids = grid.active_tids()
        local = grid.local[tids] - _role_span(grid)[0]
        c, valid = coords[local], held[local]
        acc = Access(tids, tids)
        if mask is not None:
            bits = _mask_bits(grid, acc, c, mask, t)
            n = _vector_width(op)
            if getattr(op, "uniform_mask", None) is not None and n > 1:
                check_uniform_mask(op, grid, acc, bits, n)
            valid = valid & bits
        storage, align = self._root(interp, op)
        offs = _per_register(grid, acc, c, offsets, t)
        shim = _ElementsOf(storage, align, _Pointee(t))
        keys = element_keys(op, grid, shim, acc, offs, valid, verb)
        n = _vector_width(op)
        if n > 1:
            check_vectors(
                op, grid, shim, acc, keys - np.asarray(storage.base(grid, acc.actors)).reshape(-1, 1), n, verb, valid
            )
        return grid, acc, c, keys, valid, storage

    @impl(lp.PtrLoadOp)
    def run_ptr_load(self, interp: ReferenceInterpreter, op: lp.PtrLoadOp, args):
        p = args[0]
        other = args[1] if op.other is not None else None
        mask = args[-1] if op.mask is not None else None
        grid, acc, c, keys, valid, storage = self._elements(interp, op, p, mask, "reads")
        t: TensorType = op.result.type
        rows = np.broadcast_to(acc.actors[:, None], keys.shape)
        vals = load(op, grid, storage, rows[valid], keys[valid])
        dt = dtype_of(t.element_type)
        out = np.empty((grid.num_blocks, *t.get_shape()), dtype=dt)
        out[...] = np.zeros((), dt) if other is None else np.asarray(other, dt)
        blocks = np.broadcast_to(grid.block_of[acc.actors][:, None], keys.shape)[valid]
        out[(blocks, *c[valid].T)] = vals
        return (out,)

    @impl(lp.PtrStoreOp)
    def run_ptr_store(self, interp: ReferenceInterpreter, op: lp.PtrStoreOp, args):
        value, p = args[:2]
        mask = args[2] if op.mask is not None else None
        grid, acc, c, keys, valid, storage = self._elements(interp, op, p, mask, "writes")
        t: TensorType = op.value.type
        val = np.asarray(value)
        if not _dist_rank(val, t):
            val = np.broadcast_to(val, (grid.num_blocks, *val.shape))
        blocks = np.broadcast_to(grid.block_of[acc.actors][:, None], keys.shape)[valid]
        rows = np.broadcast_to(acc.actors[:, None], keys.shape)[valid]
        store(op, grid, storage, rows, keys[valid], val[(blocks, *c[valid].T)])
        return ()

    @impl(lp.PtrPrefetchOp)
    def run_ptr_prefetch(self, interp: ReferenceInterpreter, op: lp.PtrPrefetchOp, args):
        """A hint to L2: no value is read or changed. The elements asked for (those the mask
        keeps) must lie inside their buffer, as a load's: an address past it is an error
        here, not a prefetch of another allocation's sector. With `row`, each row's last
        element too."""
        rest = list(args[1:])
        row = rest.pop(0) if op.row is not None else None
        mask = rest.pop(0) if op.mask is not None else None
        self._elements(interp, op, args[0], mask, "prefetches")
        if row is not None:
            last = np.asarray(offset_of(args[0]), dtype=np.int64) + (np.asarray(row).astype(np.int64) - 1)
            self._elements(interp, op, last, mask, "prefetches")
        return ()

    @impl(lp.MultipleOfOp)
    def run_multiple_of(self, interp: ReferenceInterpreter, op: lp.MultipleOfOp, args):
        (x,) = args
        d = op.divisor.value.data
        bad = np.asarray(x) % d != 0
        if bad.any():
            v = int(np.asarray(x).reshape(-1)[int(np.argmax(bad.reshape(-1)))])
            raise ExecutionError(op, f"layout.multiple_of: the value is {v}, not a multiple of {d} as promised")
        return (x,)
