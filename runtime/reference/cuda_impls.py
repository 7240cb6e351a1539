"""The `cuda` dialect (`tilec.dialects.cuda`): cp.async, warp shuffles and the grouped
approximate division (`cuda.div_approx_group`: each x_i / d_i rounded once, the
reference of `arith.divf` with `fastmath<afn>`).

cp.async is modelled as PTX defines it: `cuda.cp_async` reads the source when it is
issued and marks the destination elements *pending*; `cuda.cp_async_commit` closes
the thread's current group; `cuda.cp_async_wait {pending = N}` lands every copy of the
thread's groups but the N most recent, i.e. writes them to shared memory as that
thread's writes at that point. Reading or writing a pending element is an error, as is
a second copy to an element still pending. Copies to one element by different threads
follow the ordinary race rules when they land (another thread needs a barrier after
the wait before it reads them).

`cuda.cp_async` with `src_bytes` 0 reads nothing and writes zeros. A copy whose thread
then runs `cuda.cp_async_mbarrier_arrive` lands instead with that barrier's phase
(tma_impls.py).

`cuda.comment` does nothing. `cuda.shfl_idx` needs every lane of the warp (`__shfl_sync` with the full mask): a
warp some of whose threads are masked off by control flow is an error. So does
`cuda.mma_sync` (`.aligned`): each warp's lanes' fragments are gathered into A (16xK),
B (Kx8) and C (16x8) as the PTX ISA places them (`cuda.mma_sync_fragment`), `D = A B +
C` is computed exactly for s8 (wrapping in s32), with f32 products and sums for floats
(NumPy's order, tf32 operands taken as their f32 values; the float MMA tolerance of
docs/testing.md covers the hardware's order and tf32 rounding), and D is scattered back
to the lanes' `d0..d3`. `cuda.ldmatrix` / `cuda.stmatrix` need whole warps too: lane
`8*q + r` of a warp reads (writes) row `r` of matrix `q` (8 contiguous elements at a
16-byte-aligned address, checked), and each lane's values are its elements of the
matrices as the PTX ISA places them (`cuda.ldmatrix_element`).
"""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import InterpreterFunctions, impl, register_impls

from tilec.dialects import cuda

from .errors import ExecutionError
from .executor import ReferenceInterpreter, _async_copies, _grid
from .memory import SHARED, load, resolve, store
from .memory_impls import _mem, thread_indices
from .simt import WARP_SIZE
from .values import dtype_of, from_compute, per_thread, to_compute


@register_impls
class CudaFunctions(InterpreterFunctions):
    @impl(cuda.CpAsyncOp)
    def run_cp_async(self, interp: ReferenceInterpreter, op: cuda.CpAsyncOp, args):
        grid = _grid(interp, op)
        dst, dst_index, src, src_index, *src_bytes = args
        dst, src = _mem(op, dst), _mem(op, src)
        if dst.storage.space != SHARED:
            raise ExecutionError(op, f"cp.async to {dst.name}, which is not shared memory")
        nbytes = op.bytes.value.data
        n = nbytes // dtype_of(op.dst.type).itemsize
        tids = grid.active_tids()
        (si,) = thread_indices(grid, tids, (src_index,))
        (di,) = thread_indices(grid, tids, (dst_index,))
        dkeys = resolve(op, grid, dst, tids, [di], "writes", n, check_alignment=True)
        reads = np.ones(tids.shape, dtype=bool)
        if src_bytes:  # zero fill: a thread's src_bytes 0 reads nothing and writes zeros
            (sb,) = thread_indices(grid, tids, (src_bytes[0],))
            sb = np.broadcast_to(np.asarray(sb, dtype=np.int64), tids.shape)
            bad = (sb != 0) & (sb != nbytes)
            if bad.any():
                raise ExecutionError(op, f"cp.async src_bytes {int(sb[np.argmax(bad)])}: expected 0 or {nbytes}",
                                     thread=int(tids[np.argmax(bad)]))
            reads = sb == nbytes
        values = np.zeros(dkeys.shape, dtype=dst.storage.data.dtype)
        if reads.any():
            skeys = resolve(op, grid, src, tids[reads], [np.broadcast_to(si, tids.shape)[reads]], "reads", n,
                            check_alignment=True)
            values[reads] = load(op, grid, src, tids[reads], skeys)
        sel = np.ones(dkeys.shape, dtype=bool)
        _async_copies(interp, op).issue(op, dst.storage, tids, dkeys, values, sel, tids)
        return ()

    @impl(cuda.PrefetchL2Op)
    def run_prefetch_l2(self, interp: ReferenceInterpreter, op: cuda.PrefetchL2Op, args):
        return ()  # a hint to L2: no value is read or changed

    @staticmethod
    def _line_prefetch(interp: ReferenceInterpreter, op: cuda.PrefetchL1Op | cuda.PrefetchGlobalL2Op, args):
        """A hint to L1 or L2 (`cuda.prefetch_l1`, `cuda.prefetch_global_l2`): no value is
        read or changed. The element asked for must lie inside its buffer, as a load's (as
        `layout.prefetch_l1`'s and `layout.ptr_prefetch`'s: the lowering's guards on a
        masked view's or pointer tensor's elements are checked here)."""
        grid = _grid(interp, op)
        src = _mem(op, args[0])
        tids = grid.active_tids()
        (i,) = thread_indices(grid, tids, (args[1],))
        resolve(op, grid, src, tids, [np.broadcast_to(np.asarray(i, dtype=np.int64), tids.shape)], "prefetches")
        if getattr(op, "row", None) is not None:  # a row's first element: its last too
            (n,) = thread_indices(grid, tids, (args[2],))
            last = np.asarray(i, dtype=np.int64) + np.asarray(n, dtype=np.int64) - 1
            resolve(op, grid, src, tids, [np.broadcast_to(last, tids.shape)], "prefetches")
        return ()

    @impl(cuda.PrefetchL1Op)
    def run_prefetch_l1(self, interp: ReferenceInterpreter, op: cuda.PrefetchL1Op, args):
        return self._line_prefetch(interp, op, args)

    @impl(cuda.PrefetchGlobalL2Op)
    def run_prefetch_global_l2(self, interp: ReferenceInterpreter, op: cuda.PrefetchGlobalL2Op, args):
        return self._line_prefetch(interp, op, args)

    @impl(cuda.CpAsyncCommitOp)
    def run_commit(self, interp: ReferenceInterpreter, op: cuda.CpAsyncCommitOp, args):
        _async_copies(interp, op).commit(_grid(interp, op).active_tids())
        return ()

    @impl(cuda.CpAsyncWaitOp)
    def run_wait(self, interp: ReferenceInterpreter, op: cuda.CpAsyncWaitOp, args):
        _async_copies(interp, op).land(op.pending.value.data)
        return ()

    @impl(cuda.OpaqueOp)
    def run_opaque(self, interp: ReferenceInterpreter, op: cuda.OpaqueOp, args):
        return (args[0],)

    @impl(cuda.BytePermOp)
    def run_byte_perm(self, interp: ReferenceInterpreter, op: cuda.BytePermOp, args):
        a, b = (np.asarray(x).astype(np.int64) & 0xFFFFFFFF for x in args)
        both = a | (b << 32)
        sel = op.selector.value.data
        out = np.zeros_like(both)
        for n in range(4):
            out |= ((both >> (8 * ((sel >> (4 * n)) & 7))) & 0xFF) << (8 * n)
        return (out.astype(np.uint32).view(np.int32) if out.ndim else np.int32(np.uint32(out)),)

    @impl(cuda.CommentOp)
    def run_comment(self, interp: ReferenceInterpreter, op: cuda.CommentOp, args):
        return ()

    @impl(cuda.DivApproxGroupOp)
    def run_div_approx_group(self, interp: ReferenceInterpreter, op: cuda.DivApproxGroupOp, args):
        """Each x_i / d_i rounded once to f32, as `arith.divf` with `fastmath<afn>`: the
        reference of an approximate quotient (the op's docstring bounds the GPU's)."""
        g = len(op.outs)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return tuple((np.asarray(x, np.float32) / np.asarray(d, np.float32))[()]
                         for x, d in zip(args[:g], args[g:]))

    @impl(cuda.Ex2FmaOp)
    def run_ex2_fma(self, interp: ReferenceInterpreter, op: cuda.Ex2FmaOp, args):
        """2^x of x clamped to `EX2_FMA_RANGE`, rounded once to f32 (as `math.exp2`'s
        reference; the op's docstring bounds the GPU's)."""
        lo, hi = cuda.EX2_FMA_RANGE
        x = np.fmin(np.fmax(np.asarray(args[0], np.float64), lo), hi)  # fmaxf's: a NaN x is clamped to lo
        return (np.exp2(x).astype(np.float32)[()],)

    @impl(cuda.ShflIdxOp)
    def run_shfl_idx(self, interp: ReferenceInterpreter, op: cuda.ShflIdxOp, args):
        grid = _grid(interp, op)
        value, lane = args
        width = op.width.value.data
        _whole_warps(op, grid, "warp shuffle", "__shfl_sync with the full mask")
        if np.ndim(value) == 0:
            return (value,)
        lane_id = grid.local % WARP_SIZE
        src_lane = np.asarray(lane, dtype=np.int64) % width
        src = grid.tid - lane_id + (lane_id // width) * width + src_lane
        v = per_thread(value, op.value.type, grid.num_threads)
        return (v[src],)

    @impl(cuda.MmaSyncOp)
    def run_mma_sync(self, interp: ReferenceInterpreter, op: cuda.MmaSyncOp, args):
        grid = _grid(interp, op)
        _whole_warps(op, grid, "mma.sync", "mma.sync.aligned")
        name, kind = op.kind_name, op.kind
        n, warps = grid.num_threads, grid.num_threads // WARP_SIZE
        integer = name == "i8"
        dt = np.int64 if integer else np.float32
        frags = [
            np.asarray(to_compute(per_thread(v, o.type, n), o.type)).astype(dt).reshape(warps, WARP_SIZE)
            for v, o in zip(args, op.fragments)
        ]
        a = np.zeros((warps, 16, kind.k), dt)
        b = np.zeros((warps, kind.k, 8), dt)
        c = np.zeros((warps, 16, 8), dt)
        for i in range(kind.a):
            a[(slice(None), *cuda.mma_sync_fragment(name, "a", _LANES, i))] = frags[i]
        for i in range(kind.b):
            b[(slice(None), *cuda.mma_sync_fragment(name, "b", _LANES, i))] = frags[kind.a + i]
        for i in range(4):
            c[(slice(None), *cuda.mma_sync_fragment(name, "c", _LANES, i))] = frags[kind.a + kind.b + i]
        d = np.matmul(a, b) + c
        if integer:
            d = d.astype(np.int32)  # the s32 accumulator wraps
        else:
            record_float_mma(interp, kind.k, name, a, b, c)
        rt = op.outs[0].type
        return tuple(
            from_compute(d[(slice(None), *cuda.mma_sync_fragment(name, "c", _LANES, i))].reshape(n), rt)
            for i in range(4)
        )


    @impl(cuda.LdmatrixOp)
    def run_ldmatrix(self, interp: ReferenceInterpreter, op: cuda.LdmatrixOp, args):
        grid = _grid(interp, op)
        _whole_warps(op, grid, "ldmatrix", "ldmatrix.sync.aligned")
        mem, rows, keys = _matrix_rows(op, grid, *args)
        data = load(op, grid, mem, rows, keys)
        table = np.zeros((grid.num_threads, 8), dtype=data.dtype)
        table[rows] = data
        where = _matrix_sources(grid, op.is_trans)
        out = []
        for q in range(op.count):
            for i in range(2):
                src, col = where(q, i)
                out.append(table[src, col])
        return tuple(out)

    @impl(cuda.StmatrixOp)
    def run_stmatrix(self, interp: ReferenceInterpreter, op: cuda.StmatrixOp, args):
        grid = _grid(interp, op)
        _whole_warps(op, grid, "stmatrix", "stmatrix.sync.aligned")
        mem, index, *values = args
        mem, rows, keys = _matrix_rows(op, grid, mem, index)
        n = grid.num_threads
        vals = [per_thread(v, o.type, n) for v, o in zip(values, op.values)]
        table = np.zeros((n, 8), dtype=mem.storage.data.dtype)
        where = _matrix_sources(grid, op.is_trans)
        for q in range(op.count):
            for i in range(2):
                src, col = where(q, i)
                table[src, col] = vals[2 * q + i]
        store(op, grid, mem, rows, keys, table[rows])
        return ()


def record_float_mma(interp: ReferenceInterpreter, k: int, name: str, a, b, c) -> None:
    """Note on `interp.mma_records` the largest `|c| + |a| @ |b|` and `|a| @ |b|` of a
    float MMA (`mma_impls.MmaRecord`, for `mma_tolerance`)."""
    from .mma_impls import MmaRecord

    prods = np.matmul(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
    mag = prods + np.abs(c)
    records = getattr(interp, "mma_records", None)
    if records is None:
        records = interp.mma_records = []  # type: ignore[attr-defined]
    fin, pfin = np.isfinite(mag), np.isfinite(prods)
    records.append(MmaRecord(
        k, name,
        float(mag[fin].max()) if fin.any() else 0.0,
        float(prods[pfin].max()) if pfin.any() else 0.0,
    ))


def first_missing_thread(grid, size: int) -> int | None:
    """The first thread missing from a group of `size` consecutive threads (a warp, a
    warpgroup) that other threads of the group run: control flow diverges inside it.
    None where every group runs whole or not at all."""
    if grid.mask is None:
        return None
    per = grid.mask.reshape(-1, size)
    partial = per.any(axis=1) & ~per.all(axis=1)
    if not partial.any():
        return None
    g = int(np.argmax(partial))
    return g * size + int(np.argmin(per[g]))


def _whole_warps(op, grid, what: str, why: str) -> None:
    """An ExecutionError unless every warp that runs `op` runs it with all 32 lanes."""
    tpb = grid.threads_per_block
    if tpb % WARP_SIZE:
        raise ExecutionError(
            op,
            f"a {what} in blocks of {tpb} threads, not a whole number of "
            f"warps (the last warp is partial)",
        )
    if (missing := first_missing_thread(grid, WARP_SIZE)) is not None:
        raise ExecutionError(
            op,
            f"{grid.describe_thread(missing)} does not take part in the {what} "
            f"(control flow diverges within its warp; {why} needs all 32 lanes)",
            thread=missing,
        )


_LANES = np.arange(WARP_SIZE)


def _matrix_rows(op, grid, mem, index):
    """The threads that give a row address (lanes below 8 * num of each warp), their
    shared-memory keys [k, 8], and each thread's lane."""
    mem = _mem(op, mem)
    if mem.storage.space != SHARED:
        raise ExecutionError(op, f"{op.name} on {mem.name}, which is not shared memory")
    tids = grid.active_tids()
    lane = grid.local[tids] % WARP_SIZE
    rows = tids[lane < 8 * op.count]
    (ix,) = thread_indices(grid, rows, (index,))
    keys = resolve(op, grid, mem, rows, [ix], "reads" if isinstance(op, cuda.LdmatrixOp) else "writes",
                   8, check_alignment=True)
    return mem, rows, keys


def _matrix_sources(grid, trans: bool):
    """For each thread and (matrix q, element i) of it: the thread whose row holds it
    and the column in that row, [num_threads] each."""
    lane = grid.local % WARP_SIZE
    first = grid.tid - lane

    def where(q: int, i: int):
        r, c = cuda.ldmatrix_element(lane, i, trans)
        return first + 8 * q + r, c

    return where
