"""`memref` and `vector` ops: allocation, views, checked loads and stores, and the
register-level vector ops (broadcast, extract, insert, ...).

Loads and stores are performed by the active threads only; a load's result is zero
for the others (never observed). Vector loads and stores are 1-D, of at most 16 bytes,
at an offset that is a multiple of their length (docs/gpu-level.md); anything else is
reported, so that a pass that breaks the contract is caught here and not on a GPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import memref, vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    MemRefType,
    StridedLayoutAttr,
)
from xdsl.interpreter import InterpreterFunctions, impl, register_impls
from xdsl.ir import Operation

from .errors import ExecutionError
from .executor import ReferenceInterpreter, _grid, _uniform_int, memory_space
from .memory import (
    GLOBAL,
    SHARED,
    MemRef,
    Storage,
    contiguous_strides,
    load,
    resolve,
    store,
)
from .simt import Grid, first_offender
from .values import dtype_of, per_thread, shape_of

_INDEX = IndexType()

MAX_VECTOR_BYTES = 16


def poison(dtype: np.dtype, n: int) -> np.ndarray:
    """Fresh memory: NaN, or bytes 0xDE, so that a value never written stands out."""
    if dtype.kind == "f":
        return np.full(n, np.nan, dtype=dtype)
    if dtype == np.bool_:
        return np.zeros(n, dtype=dtype)
    return np.frombuffer(b"\xde" * (n * dtype.itemsize), dtype=dtype).copy()


def thread_indices(grid: Grid, tids: np.ndarray, values: tuple[Any, ...]) -> list[np.ndarray]:
    """Index operands as arrays [k] over the threads `tids`."""
    out = []
    for v in values:
        if np.ndim(v) == 0:
            out.append(np.full(tids.shape, int(v), dtype=np.int64))
        elif tids is grid.tid:
            out.append(np.asarray(v, dtype=np.int64))
        else:
            out.append(np.asarray(v, dtype=np.int64)[tids])
    return out


def thread_values(grid: Grid, tids: np.ndarray, value: Any, t) -> np.ndarray:
    a = per_thread(value, t, grid.num_threads)
    return a if tids is grid.tid else a[tids]


def scatter(grid: Grid, tids: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Values of the threads `tids` as a per-thread array (zeros elsewhere)."""
    if tids is grid.tid:
        return values
    out = np.zeros((grid.num_threads, *values.shape[1:]), dtype=values.dtype)
    out[tids] = values
    return out


def _mem(op: Operation, value: Any) -> MemRef:
    if not isinstance(value, MemRef):
        raise ExecutionError(op, "memory accessed outside a kernel (on the host)")
    return value


def _vector_len(op: Operation, t) -> int:
    shape = shape_of(t)
    if len(shape) != 1:
        raise ExecutionError(op, f"only 1-D vectors are loaded and stored, not {t}")
    n = shape[0]
    nbytes = n * dtype_of(t).itemsize
    if nbytes > MAX_VECTOR_BYTES:
        raise ExecutionError(
            op,
            f"a vector access of {nbytes} bytes ({t}); the widest is "
            f"{MAX_VECTOR_BYTES} bytes",
        )
    return n


def _mixed(static: tuple[int, ...], dynamic: list[Any]) -> list[Any]:
    it = iter(dynamic)
    return [next(it) if s == DYNAMIC_INDEX else s for s in static]


def _offsets_sizes_strides(interp: ReferenceInterpreter, op: Any, what: str):
    """Offsets (may differ per thread), sizes and strides (uniform: `what` + "size" /
    "stride" names them in the error) of a subview or reinterpret_cast."""
    offs = _mixed(op.static_offsets.get_values(), interp.get_values(op.offsets))
    sizes = _mixed(op.static_sizes.get_values(), interp.get_values(op.sizes))
    steps = _mixed(op.static_strides.get_values(), interp.get_values(op.strides))
    sizes = [_uniform_int(op, s, what + "size") for s in sizes]
    steps = [_uniform_int(op, s, what + "stride") for s in steps]
    return offs, sizes, steps


@register_impls
class MemoryFunctions(InterpreterFunctions):
    # ------------------------------------------------------------- allocation
    def _allocate(self, interp: ReferenceInterpreter, op: Operation, t: MemRefType, dyn):
        grid = _grid(interp, op)
        space = memory_space(t)
        if space == GLOBAL:
            raise ExecutionError(op, f"cannot allocate {t} in a kernel (global memory)")
        shape = list(t.get_shape())
        dyn_it = iter(dyn)
        for i, s in enumerate(shape):
            if s < 0:
                shape[i] = _uniform_int(op, next(dyn_it), "the size of an allocation")
        size = int(np.prod(shape)) if shape else 1
        instances = grid.num_blocks if space == SHARED else grid.num_threads
        dt = dtype_of(t)
        hint = op.results[0].name_hint
        words = "shared memory" if space == SHARED else "registers"
        name = f"%{hint}" if hint else f"{words} {t}"
        storage = Storage(name, space, poison(dt, instances * size), size)
        shape_t = tuple(shape)
        strides = contiguous_strides(shape_t)
        offset = 0
        if isinstance(t.layout, StridedLayoutAttr):
            given = t.layout.get_strides()
            strides = tuple(s if g is None else g for s, g in zip(strides, given))
            offset = t.layout.get_offset() or 0
        return (MemRef(storage, shape_t, strides, offset, t),)

    @impl(memref.AllocaOp)
    def run_alloca(self, interp: ReferenceInterpreter, op: memref.AllocaOp, args):
        return self._allocate(interp, op, op.memref.type, args[: len(op.dynamic_sizes)])

    @impl(memref.AllocOp)
    def run_alloc(self, interp: ReferenceInterpreter, op: memref.AllocOp, args):
        return self._allocate(interp, op, op.memref.type, args[: len(op.dynamic_sizes)])

    @impl(memref.DeallocOp)
    def run_dealloc(self, interp, op, args):
        return ()

    @impl(memref.AssumeAlignmentOp)
    def run_assume_alignment(self, interp, op, args):
        return tuple(args[:1]) if op.results else ()

    # ------------------------------------------------------------------ views
    @impl(memref.DimOp)
    def run_dim(self, interp, op: memref.DimOp, args):
        mem = _mem(op, args[0])
        d = _uniform_int(op, args[1], "the dimension")
        if not 0 <= d < len(mem.shape):
            raise ExecutionError(op, f"dimension {d} of a {len(mem.shape)}-d memref")
        return (np.int64(mem.shape[d]),)

    @impl(memref.CastOp)
    def run_cast(self, interp, op: memref.CastOp, args):
        mem = _mem(op, args[0])
        t = op.dest.type
        assert isinstance(t, MemRefType)
        for d, s in enumerate(t.get_shape()):
            if s >= 0 and s != mem.shape[d]:
                raise ExecutionError(
                    op, f"cast of a memref of shape {list(mem.shape)} to {t}"
                )
        return (MemRef(mem.storage, mem.shape, mem.strides, mem.offset, t),)

    @impl(memref.SubviewOp)
    def run_subview(self, interp: ReferenceInterpreter, op: memref.SubviewOp, args):
        mem = _mem(op, args[0])
        offs, sizes, steps = _offsets_sizes_strides(interp, op, "a subview ")
        grid = interp.grid
        offset = mem.offset
        for d, o in enumerate(offs):
            lo = np.asarray(o, dtype=np.int64)
            hi = lo + (sizes[d] - 1) * steps[d]
            bad = (lo < 0) | (hi >= mem.shape[d]) if sizes[d] > 0 else lo < 0
            if (i := first_offender(grid, bad)) is not None:
                tid = i if np.ndim(bad) else None
                who = f" ({grid.describe_thread(tid)})" if tid is not None and grid else ""
                first = int(lo if np.ndim(lo) == 0 else lo[tid])
                raise ExecutionError(
                    op,
                    f"out-of-bounds subview{who}: {sizes[d]} elements from {first} "
                    f"with step {steps[d]} in dimension {d} of {mem.name}, of size "
                    f"{mem.shape[d]}",
                )
            offset = offset + lo * mem.strides[d]
        shape = [s for s in sizes]
        strides = [mem.strides[d] * steps[d] for d in range(len(sizes))]
        t = op.result.type
        assert isinstance(t, MemRefType)
        want = list(t.get_shape())
        if len(want) < len(shape):
            keep = _rank_reduction(shape, want)
            shape = [shape[d] for d in keep]
            strides = [strides[d] for d in keep]
        if isinstance(offset, np.ndarray) and offset.ndim == 0:
            offset = int(offset)
        return (MemRef(mem.storage, tuple(shape), tuple(strides), offset, t),)

    @impl(memref.ReinterpretCastOp)
    def run_reinterpret_cast(self, interp, op: memref.ReinterpretCastOp, args):
        mem = _mem(op, args[0])
        offs, sizes, steps = _offsets_sizes_strides(interp, op, "a ")
        offset = offs[0]
        if isinstance(offset, np.ndarray) and offset.ndim == 0:
            offset = int(offset)
        t = op.result.type
        return (MemRef(mem.storage, tuple(sizes), tuple(steps), offset, t),)

    # ------------------------------------------------- loads and stores
    # memref.load/store, vector.load/store and vector.maskedload/maskedstore share one
    # checked access (`_access`, then memory.load / memory.store); the same checks hold
    # for global, shared and register memory (memory.py).
    @impl(memref.LoadOp)
    def run_load(self, interp: ReferenceInterpreter, op: memref.LoadOp, args):
        return _load(interp, op, args[0], args[1:])

    @impl(memref.StoreOp)
    def run_store(self, interp: ReferenceInterpreter, op: memref.StoreOp, args):
        value, m, *indices = args
        return _store(interp, op, m, indices, value, op.value.type)

    @impl(vector.LoadOp)
    def run_vector_load(self, interp: ReferenceInterpreter, op: vector.LoadOp, args):
        return _load(interp, op, args[0], args[1:], op.result.type)

    @impl(vector.StoreOp)
    def run_vector_store(self, interp: ReferenceInterpreter, op: vector.StoreOp, args):
        value, m, *indices = args
        return _store(interp, op, m, indices, value, op.vector.type, op.vector.type)

    @impl(vector.MaskedLoadOp)
    def run_masked_load(self, interp: ReferenceInterpreter, op: vector.MaskedLoadOp, args):
        m, *rest = args
        indices, lane_mask, pass_thru = rest[:-2], rest[-2], rest[-1]
        return _load(interp, op, m, indices, op.result.type, (lane_mask, op.mask.type), pass_thru)

    @impl(vector.MaskedStoreOp)
    def run_masked_store(self, interp: ReferenceInterpreter, op: vector.MaskedStoreOp, args):
        m, *rest = args
        indices, lane_mask, value = rest[:-2], rest[-2], rest[-1]
        t = op.value_to_store.type
        return _store(interp, op, m, indices, value, t, t, (lane_mask, op.mask.type))

    # ------------------------------------------------------- vector registers
    @impl(vector.BroadcastOp)
    def run_broadcast(self, interp: ReferenceInterpreter, op: vector.BroadcastOp, args):
        (src,) = args
        shape = shape_of(op.vector.type)
        a = np.asarray(src)
        src_rank = len(shape_of(op.source.type))
        if a.ndim > src_rank:  # per-thread
            lead = a.shape[0]
            a = a.reshape((lead,) + (1,) * (len(shape) - src_rank) + a.shape[1:])
            return (np.broadcast_to(a, (lead, *shape)),)
        return (np.broadcast_to(a, shape),)

    @impl(vector.ExtractOp)
    def run_extract(self, interp: ReferenceInterpreter, op: vector.ExtractOp, args):
        value, *dyn = args
        vt = op.vector.type
        pos = _mixed(op.static_position.get_values(), list(dyn))
        a = np.asarray(value)
        if any(np.ndim(p) > 0 for p in pos) and a.ndim == len(shape_of(vt)):
            a = per_thread(a, vt, _grid(interp, op).num_threads)
        index = _vector_index(interp, op, a, pos, shape_of(vt), vt)
        out = a[index]
        return (out[()] if isinstance(out, np.ndarray) and out.ndim == 0 else out,)

    @impl(vector.InsertOp)
    def run_insert(self, interp: ReferenceInterpreter, op: vector.InsertOp, args):
        src, dest, *dyn = args
        vt = op.dest.type
        pos = _mixed(op.static_position.get_values(), list(dyn))
        grid = interp.grid
        d = np.asarray(dest)
        s = np.asarray(src)
        src_rank = len(shape_of(op.source.type))
        per = d.ndim > len(shape_of(vt)) or s.ndim > src_rank or any(
            np.ndim(p) > 0 for p in pos
        )
        if per:
            assert grid is not None
            d = np.array(per_thread(d, vt, grid.num_threads))
            s = per_thread(s, op.source.type, grid.num_threads)
        else:
            d = d.copy()
        index = _vector_index(interp, op, d, pos, shape_of(vt), vt)
        d[index] = s
        return (d,)

    @impl(vector.FMAOp)
    def run_fma(self, interp, op: vector.FMAOp, args):
        a, b, c = (np.asarray(x) for x in args)
        dt = a.dtype
        wide = np.float64 if dt.itemsize < 8 else np.longdouble
        return ((a.astype(wide) * b.astype(wide) + c.astype(wide)).astype(dt),)

    @impl(vector.CreateMaskOp)
    def run_create_mask(self, interp, op: vector.CreateMaskOp, args):
        shape = shape_of(op.mask_vector.type)
        out: Any = np.ones(shape, bool)
        per = any(np.ndim(a) for a in args)
        grid = interp.grid
        if per:
            assert grid is not None
            out = np.ones((grid.num_threads, *shape), bool)
        for d, (size, bound) in enumerate(zip(shape, args)):
            r = np.arange(size)
            b = np.asarray(bound)
            if per:
                b = np.broadcast_to(b, (grid.num_threads,))  # type: ignore[union-attr]
                cond = r[None, :] < b[:, None]
                cond = cond.reshape(
                    (grid.num_threads,)  # type: ignore[union-attr]
                    + tuple(size if k == d else 1 for k in range(len(shape)))
                )
            else:
                cond = (r < b).reshape(tuple(size if k == d else 1 for k in range(len(shape))))
            out = out & cond
        return (out,)

    @impl(vector.ReductionOp)
    def run_reduction(self, interp, op: vector.ReductionOp, args):
        v = np.asarray(args[0])
        kind = str(op.kind.data.value if hasattr(op.kind.data, "value") else op.kind.data)
        axis = -1
        fns = {
            "add": lambda x: np.add.reduce(x, axis=axis),
            "mul": lambda x: np.multiply.reduce(x, axis=axis),
            "minsi": lambda x: x.min(axis=axis),
            "maxsi": lambda x: x.max(axis=axis),
            "minimumf": lambda x: x.min(axis=axis),
            "maximumf": lambda x: x.max(axis=axis),
            "minnumf": lambda x: np.fmin.reduce(x, axis=axis),
            "maxnumf": lambda x: np.fmax.reduce(x, axis=axis),
            "and": lambda x: np.bitwise_and.reduce(x, axis=axis),
            "or": lambda x: np.bitwise_or.reduce(x, axis=axis),
            "xor": lambda x: np.bitwise_xor.reduce(x, axis=axis),
        }
        if kind not in fns:
            raise ExecutionError(op, f"vector.reduction <{kind}> is not supported")
        r = fns[kind](v)
        if len(args) > 1 and args[1] is not None:
            r = fns[kind](np.stack([np.broadcast_to(r, np.broadcast(r, args[1]).shape),
                                    np.broadcast_to(args[1], np.broadcast(r, args[1]).shape)], axis=-1))
        r = np.asarray(r).astype(v.dtype)
        return (r[()] if r.ndim == 0 else r,)

    @impl(vector.BitcastOp)
    def run_vector_bitcast(self, interp, op: vector.BitcastOp, args):
        a = np.ascontiguousarray(args[0])
        return (a.view(dtype_of(op.result.type)),)

    @impl(vector.ShuffleOp)
    def run_vector_shuffle(self, interp, op: vector.ShuffleOp, args):
        v1, v2 = (np.asarray(x) for x in args)
        t1, t2 = op.v1.type, op.v2.type
        grid = interp.grid
        r1, r2 = len(shape_of(t1)), len(shape_of(t2))
        if v1.ndim > r1 or v2.ndim > r2:
            assert grid is not None
            v1 = per_thread(v1, t1, grid.num_threads)
            v2 = per_thread(v2, t2, grid.num_threads)
            both = np.concatenate([v1, v2], axis=1)
            return (both[:, list(op.mask.get_values())],)
        both = np.concatenate([v1, v2], axis=0)
        return (both[list(op.mask.get_values())],)


def _access(
    interp: ReferenceInterpreter, op: Operation, m: Any, indices, verb: str,
    vt=None, mask: tuple[Any, Any] | None = None,
):
    """The checked storage keys of a load or store by the active threads: of one
    element (`vt` None), of a vector of type `vt` (1-D, at most 16 bytes, aligned to
    its length), or of the lanes of a vector that `mask` (value, type) selects.
    Returns (grid, memref, tids, keys, lanes)."""
    grid = _grid(interp, op)
    mem = _mem(op, m)
    n = 0
    if vt is not None:
        n = shape_of(vt)[0] if mask is not None else _vector_len(op, vt)
    tids = grid.active_tids()
    idx = thread_indices(grid, tids, tuple(indices))
    lanes = None
    if mask is not None:
        lanes = thread_values(grid, tids, mask[0], mask[1]).astype(bool)
    keys = resolve(op, grid, mem, tids, idx, verb, n, check_alignment=mask is None, lanes=lanes)
    return grid, mem, tids, keys, lanes


def _load(interp, op: Operation, m: Any, indices, vt=None, mask=None, pass_thru=None):
    grid, mem, tids, keys, lanes = _access(interp, op, m, indices, "reads", vt, mask)
    if lanes is None:
        return (scatter(grid, tids, load(op, grid, mem, tids, keys)),)
    out = np.array(thread_values(grid, tids, pass_thru, op.results[0].type))
    rows = np.broadcast_to(tids[:, None], keys.shape)
    out[lanes] = load(op, grid, mem, rows[lanes], keys[lanes])
    return (scatter(grid, tids, out),)


def _store(interp, op: Operation, m: Any, indices, value, value_type, vt=None, mask=None):
    grid, mem, tids, keys, lanes = _access(interp, op, m, indices, "writes", vt, mask)
    vals = thread_values(grid, tids, value, value_type)
    if lanes is None:
        store(op, grid, mem, tids, keys, vals)
    else:
        rows = np.broadcast_to(tids[:, None], keys.shape)
        store(op, grid, mem, rows[lanes], keys[lanes], vals[lanes])
    return ()


def _rank_reduction(shape: list[int], want: list[int]) -> list[int]:
    """Which dims of `shape` a rank-reducing subview keeps (dropping unit dims)."""
    keep: list[int] = []
    j = 0
    drop = len(shape) - len(want)
    for d, s in enumerate(shape):
        if drop and s == 1 and (j >= len(want) or want[j] != 1 or drop >= len(shape) - d):
            drop -= 1
            continue
        keep.append(d)
        j += 1
    return keep


def _vector_index(
    interp: ReferenceInterpreter,
    op: Operation,
    a: np.ndarray,
    pos: list[Any],
    vshape: tuple[int, ...],
    vt,
):
    """An index expression for positions `pos` into vector value `a`."""
    for d, p in enumerate(pos):
        bad = (np.asarray(p) < 0) | (np.asarray(p) >= vshape[d])
        if np.any(bad):
            raise ExecutionError(
                op,
                f"position {np.asarray(p).ravel()[int(np.argmax(bad))] if np.ndim(bad) else int(p)} "
                f"out of range for dimension {d} of {vt}",
            )
    per_thread_value = a.ndim > len(vshape)
    per_thread_pos = any(np.ndim(p) > 0 for p in pos)
    if not per_thread_value and not per_thread_pos:
        return tuple(int(p) for p in pos)
    grid = interp.grid
    assert grid is not None
    if not per_thread_pos:
        return (slice(None), *(int(p) for p in pos))
    return (grid.tid, *(np.broadcast_to(np.asarray(p, np.int64), (grid.num_threads,)) for p in pos))
