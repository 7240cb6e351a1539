"""Warpgroup MMA (`tilec.dialects.cuda_wgmma`) on the reference executor.

Every thread of each warpgroup (threads `128 g .. 128 g + 127` of a block) must run
`cuda.wgmma`, `cuda.wgmma_fence`, `cuda.wgmma_commit_group` and
`cuda.wgmma_wait_group` (`.sync.aligned`), and the operand indices of a `cuda.wgmma`
must be one value across its warpgroup (the descriptor is one per warpgroup).
`cuda.wgmma` reads A (64 x K) and B (n x K, K- or MN-major; K = 16 for 16-bit
operands, 32 for 8-bit floats, K-major) from shared memory at the
addresses the hardware forms from the descriptors (`wgmma.operand_byte_offset`,
relative to the memref's start, which the verifier and printer align to the swizzle's
repeat), as reads of the warpgroup's first thread, computes `D = A B^T + C` with f32
products (exact for 16- and 8-bit float operands) and f32 sums (NumPy's order; the float MMA tolerance of docs/testing.md covers
the hardware's), and gives each thread its `n / 2` values (`wgmma_accumulator`).

The model computes at issue, and keeps the shared elements it read *being read* by
the warpgroup until a `cuda.wgmma_wait_group N` retires the group they were committed
in (all but the N most recent of the warpgroup's groups): a write to them before (a
thread's store, a TMA load landing there, say after an mbarrier handed the stage back
too early) is reported as a data race. It does not flag a read of D before the wait
(the printer makes that impossible in emitted code: the wait's results are what later
ops read). Fence checks the warpgroup and does nothing else; the wait gives back its
values.
"""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import InterpreterFunctions, impl, register_impls

from tilec.dialects import cuda_wgmma
from tilec.dialects.cuda import mma_sync_fragment
from tilec.dialects.wgmma import operand_byte_offset, wgmma_accumulator

from .cuda_impls import first_missing_thread, record_float_mma
from .errors import ExecutionError
from .executor import ReferenceInterpreter, _grid
from .memory import SHARED, load, resolve, wgmma_reads
from .memory_impls import _mem, thread_indices
from .values import from_compute, per_thread, to_compute

WARPGROUP = 128


def _whole_warpgroups(op, grid) -> None:
    """An ExecutionError unless every warpgroup that runs `op` runs it with all 128
    threads."""
    tpb = grid.threads_per_block
    if tpb % WARPGROUP:
        raise ExecutionError(op, f"{op.name} in blocks of {tpb} threads, not a whole number of warpgroups (128)")
    if (missing := first_missing_thread(grid, WARPGROUP)) is not None:
        raise ExecutionError(
            op,
            f"{grid.describe_thread(missing)} does not take part in the {op.name} (control flow "
            f"diverges within its warpgroup; .sync.aligned needs all 128 threads)",
            thread=missing,
        )


def _operand(op: cuda_wgmma.WgmmaOp, grid, which: str, mem, index, rows: int, groups: np.ndarray):
    """The `rows x K` operand of each warpgroup in `groups` (first threads),
    [len(groups), rows, K] in compute precision (K: 32 bytes of elements)."""
    mem = _mem(op, mem)
    if mem.storage.space != SHARED:
        raise ExecutionError(op, f"{op.name} operand {which} is {mem.name}, which is not shared memory")
    tids = grid.active_tids()
    (ix,) = thread_indices(grid, tids, (index,))
    per_group = ix.reshape(-1, WARPGROUP)
    if (per_group != per_group[:, :1]).any():
        g = int(np.argmax((per_group != per_group[:, :1]).any(axis=1)))
        raise ExecutionError(op, f"{op.name} operand {which}: the threads of warpgroup {g} give different indices")
    starts = per_group[:, 0]
    et = getattr(op, which).type.element_type
    eb = et.bitwidth // 8
    kk = 32 // eb
    r, k = np.meshgrid(np.arange(rows), np.arange(kk), indexing="ij")
    out = []
    for first, start in zip(groups, starts):
        if (eb * int(start)) % 16:
            raise ExecutionError(op, f"{op.name} operand {which} starts at element {start}, not 16-byte aligned")
        byte = operand_byte_offset(op.descriptor(which, eb * int(start)), r, k, op.mn_major(which), eb)
        elems = (byte // eb).ravel()
        actor = np.full(elems.shape, first, dtype=np.int64)
        keys = resolve(op, grid, mem, actor, [elems], "reads")
        data = load(op, grid, mem, actor, keys)
        wgmma_reads(grid).issue(int(first) // WARPGROUP, mem.storage, np.asarray(keys).ravel())
        out.append(np.asarray(to_compute(data, et), dtype=np.float32).reshape(rows, kk))
    return np.stack(out)


def _mma(interp, op, grid, a, b_mem, b_index, accs, groups):
    """D = A B^T + C of each warpgroup; B read from shared memory."""
    n, cols = grid.num_threads, op.cols
    b = _operand(op, grid, "b", b_mem, b_index, cols, groups)
    acc_types = [v.type for v in op.accs]
    t = np.arange(WARPGROUP)
    c = np.zeros((len(groups), 64, cols), np.float32)
    for i, v in enumerate(accs):
        vals = np.asarray(per_thread(v, acc_types[i], n), dtype=np.float32)[grid.active_tids()]
        c[(slice(None), *wgmma_accumulator(t, i))] = vals.reshape(-1, WARPGROUP)
    d = np.matmul(a, np.swapaxes(b, 1, 2)) + c
    record_float_mma(interp, a.shape[-1], op.type_name, a, np.swapaxes(b, 1, 2), c)
    outs = []
    for i in range(cols // 2):
        full = np.zeros(n, np.float32)
        full[grid.active_tids()] = d[(slice(None), *wgmma_accumulator(t, i))].reshape(-1)
        outs.append(from_compute(full, op.outs[i].type))
    return tuple(outs)


def _warpgroups(grid) -> list[int]:
    return [int(t) // WARPGROUP for t in grid.active_tids()[::WARPGROUP]]


@register_impls
class WgmmaFunctions(InterpreterFunctions):
    @impl(cuda_wgmma.WgmmaOp)
    def run_wgmma(self, interp: ReferenceInterpreter, op: cuda_wgmma.WgmmaOp, args):
        grid = _grid(interp, op)
        _whole_warpgroups(op, grid)
        a_mem, a_index, b_mem, b_index, *accs = args
        groups = grid.active_tids()[::WARPGROUP]
        a = _operand(op, grid, "a", a_mem, a_index, 64, groups)
        return _mma(interp, op, grid, a, b_mem, b_index, accs, groups)

    @impl(cuda_wgmma.WgmmaRsOp)
    def run_wgmma_rs(self, interp: ReferenceInterpreter, op: cuda_wgmma.WgmmaRsOp, args):
        """A from each thread's 8 fragment elements (`mma.sync`'s A of its warp's 16 rows)."""
        grid = _grid(interp, op)
        _whole_warpgroups(op, grid)
        b_mem, b_index, *frags = args
        groups = grid.active_tids()[::WARPGROUP]
        tids = grid.active_tids()
        t = np.arange(WARPGROUP)
        a = np.zeros((len(groups), 64, 16), np.float32)
        et = op.b.type.element_type
        for i in range(cuda_wgmma.WGMMA_RS_A):
            vals = np.asarray(to_compute(per_thread(frags[i], et, grid.num_threads), et), dtype=np.float32)[tids]
            r, c = mma_sync_fragment("bf16", "a", t % 32, i)
            a[:, 16 * (t // 32) + r, c] = vals.reshape(-1, WARPGROUP)
        return _mma(interp, op, grid, a, b_mem, b_index, frags[cuda_wgmma.WGMMA_RS_A :], groups)

    @impl(cuda_wgmma.WgmmaFenceOp)
    def run_fence(self, interp: ReferenceInterpreter, op: cuda_wgmma.WgmmaFenceOp, args):
        _whole_warpgroups(op, _grid(interp, op))
        return ()

    @impl(cuda_wgmma.WgmmaCommitGroupOp)
    def run_commit(self, interp: ReferenceInterpreter, op: cuda_wgmma.WgmmaCommitGroupOp, args):
        grid = _grid(interp, op)
        _whole_warpgroups(op, grid)
        for wg in _warpgroups(grid):
            wgmma_reads(grid).commit(wg)
        return ()

    @impl(cuda_wgmma.WgmmaWaitGroupOp)
    def run_wait(self, interp: ReferenceInterpreter, op: cuda_wgmma.WgmmaWaitGroupOp, args):
        grid = _grid(interp, op)
        _whole_warpgroups(op, grid)
        for wg in _warpgroups(grid):
            wgmma_reads(grid).wait(wg, op.pending.value.data)
        return tuple(args[:len(op.values)])  # `after` orders the wait on the GPU only
