"""`lower-to-gpu` for `layout.mma` with a version-3 accumulator (Hopper's `wgmma`):
`cuda.wgmma` (A and B in shared memory) or `cuda.wgmma_rs` (A in registers), one
`wgmma.mma_async.m64nNk16` (`k32` for 8-bit floats) per 64 x N tile of the accumulator
that the thread's warpgroup computes and per 32-byte step of K, between a `cuda.wgmma_fence` and a
`cuda.wgmma_commit_group` + `cuda.wgmma_wait_group 0` that gives back the
accumulators (a synchronous op's result is complete when it returns), or, for an
`{async}` op, the commit alone (`layout.mma_wait` lowers to the wait).

Registers. The accumulator layout `#layout.nvidia_mma<version = 3, instrShape = [64,
N, 16]>` gives lane `l` of warp `w` of a warpgroup, register for register, the wgmma
accumulator fragment (`wgmma.wgmma_accumulator`): checked here on its lane and first
two warp bases; further warp bases move whole warpgroups (their tile origin). A in
registers is `#layout.dot_op<opIdx = 0, kWidth = 2>` of it: each warp's 16 rows in
`mma.sync`'s A fragment.

Shared memory. For every operand tile (64 x 16 of A, N x 16 of B) of every warpgroup,
the byte address of each element follows from the view's layout algebra (its static
layout, swizzle and in-swizzle offset); `wgmma.fit_descriptor` finds the descriptor
(swizzle 128/64/32 bytes or none, K- or MN-major, LBO and SBO) that reads exactly those
addresses, or the op is a located error saying why. The descriptor's start is the
view's run-time base plus a constant (plus, with several warpgroups, a constant per
warpgroup bit of the thread id); the base must be a known multiple of the swizzle's
repeat (8 rows) and the buffer is aligned to it.

One wgmma over several ops (`WgmmaLowering._run`). Consecutive `{async}` ops of one
block on the same A, each accumulator one wgmma tile wide, whose B views are column
tiles of one shared buffer that one descriptor reads side by side (at most 256 columns
in all), are issued as one `wgmma.m64nNk16` a warpgroup and K step, N the sum of their
columns (any widths, multiples of 8: 64 + 64 + 64, 128 + 64), their accumulators'
registers that wgmma's fragment in column order; A is read from shared memory once
instead of once an op. The run is one group of the hardware's (ptxas makes an empty
`commit_group` a wgmma of its own, so the later ops commit none), and a
`layout.mma_wait {pending = N}` waits for the hardware's groups that lie wholly within
the IR's N most recent (`_gpu_pending`): it retires every op's work no later than the
CPU reference executor does. `gemm_hopper_ws(one_wgmma=
True)` writes its column chunks so.

Asynchrony is in the IR. A synchronous op ends with `wgmma.wait_group 0`. An
`{async}` one ends at its `commit_group`: its result is the wgmma's registers, in
flight. `layout.mma_wait {pending = N}` is `wgmma.wait_group N` through which its
operands' registers pass (every register once); its results are the wait's, so later
reads are ordered after it.

Proxies. `wgmma` reads shared memory through the async proxy: when the operand's
buffer is written by anything but TMA loads in the launch, every thread runs
`fence.proxy.async` before the `wgmma.fence` (the barrier before the op orders the
writes of all threads; each thread's fence then makes them visible to its warpgroup's
tensor-core reads).
"""

from __future__ import annotations

import functools

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import Operation, SSAValue

from tilec.dialects import cuda, cuda_tma, cuda_wgmma, layout, views
from tilec.dialects.layout_attrs import TensorViewType, element_bytes
from tilec.dialects.layout_mma import MmaOp, MmaWaitOp
from tilec.dialects.wgmma import WgmmaDescriptor, fit_descriptor, swizzle_repeat_bytes, wgmma_accumulator
from tilec.support.diagnostics import TilecError

from .._gpu_builder import IndexValue
from . import registers
from .context import OpFamily
from .view_values import View

WARPGROUP_LANE_BASES = ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0))
"""The lane bases of the wgmma accumulator fragment (and of the A fragment with
kWidth 2 along K: (0, 2), (0, 4) are its K bits)."""

ASYNC_SAFE_USES = {op.name for op in layout.DERIVED_VIEW_OPS} | {
    "layout.view",
    "layout.load",
    "layout.mma",
    "layout.tma_load",
    "layout.tma_store",
    "layout.read",
}
"""Uses of a shared buffer that write nothing through the generic proxy."""


def _xor_table(bases) -> list[tuple[int, int]]:
    """Coordinates of every combination of `bases` (index bit j <-> basis j)."""
    out = [(0, 0)]
    for bs in bases:
        out += [(x ^ bs[0], y ^ bs[1]) for x, y in out]
    return out


class WgmmaLowering(OpFamily):
    """The wgmma lowering of `layout.mma` (the mma family, mma.py, hands it version-3
    accumulators) and of `layout.mma_wait`."""

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._runs: dict[MmaOp, int] = {}
        """The ops of each run of several (`_run`) -> the run's length: its wgmma are the
        first op's, one group."""
        self._joins: dict[Operation, bool] = {}
        """Per kernel (its outermost op), whether two `{async}` ops on one A follow each
        other anywhere in it (`_may_join`)."""

    def lower(self, op: MmaOp) -> None:
        if self._runs.get(op, 1) > 1 and op.prev_op in self._runs:  # issued with the run's first op
            self.b.add(cuda.CommentOp("layout.mma: issued in the wgmma of the layout.mma before it"))
            return
        run = self._run(op)
        pieces = [self._accumulator(x) for x in run]
        tms = pieces[0][1]
        wg_offsets = pieces[0][0]
        k_total = op.b.type.shape[0]
        k_step = op.acc.type.encoding.data.instr_shape[2]  # 32 bytes of K: 16 for 16-bit operands, 32 for 8-bit
        a_regs = not isinstance(op.a.type, TensorViewType)
        accs = [list(self.values.registers(x.acc)) for x in run]
        a_vals = self.values.registers(op.a) if a_regs else None
        ra = registers.registers_by_coordinate(registers.linear(op.a.type, op)) if a_regs else None
        b_views: list[View] = [self.values.view(x.b) for x in run]
        a_view: View | None = None if a_regs else self.values.view(op.a)
        b = self.b
        if self._needs_fence(op):
            b.add(cuda_tma.FenceProxyAsyncOp())
        b.add(cuda_wgmma.WgmmaFenceOp())
        et = op.b.type.element_type
        count = 0
        descs: set[str] = set()
        widths = [p[3] for p in pieces]
        n_instr = sum(widths) if len(run) > 1 else widths[0]
        for tm in tms:
            # the wgmma's registers: each op's tiles at `tm`, column by column (a run: one tile an op)
            parts = []  # (op index, its tile's N origin, the tile's registers)
            for j, (_, _, rc, w, tns) in enumerate(pieces):
                for tn in tns:
                    regs = []
                    for r, c in (wgmma_accumulator(0, i) for i in range(w // 2)):
                        where = (tm + r, tn + c)
                        if where not in rc:
                            raise TilecError(
                                f"lower-to-gpu: the accumulator layout does not hold {where} in lane 0", op=run[j]
                            )
                        regs.append(rc[where])
                    parts.append((j, tn, regs))
            groups = [parts] if len(run) > 1 else [[q] for q in parts]
            for group in groups:
                vals = [accs[j][rs[0]] for j, _, regs in group for rs in regs]
                b_parts = [(b_views[j], tn, widths[j]) for j, tn, _ in group]
                for kk in range(0, k_total, k_step):
                    b_idx, b_d, b_mn = self._operand(op, b_parts, "b", wg_offsets, kk)
                    descs.add(f"B {self._describe(b_d, b_mn)}")
                    if a_regs:
                        av = []
                        for i in range(cuda_wgmma.WGMMA_RS_A):
                            r, c = cuda.mma_sync_fragment("bf16", "a", 0, i)
                            where = (tm + r, kk + c)
                            if where not in ra:
                                raise TilecError(
                                    f"lower-to-gpu: the A operand layout does not hold {where} in lane 0", op=op
                                )
                            av.append(a_vals[ra[where][0]])
                        w = b.add(
                            cuda_wgmma.WgmmaRsOp(
                                b_views[0].mem, b.ssa(b_idx), av, vals, n_instr, self._desc_tuple(b_d), b_mn
                            )
                        )
                    else:
                        a_idx, a_d, a_mn = self._operand(op, [(a_view, tm, 64)], "a", wg_offsets, kk)
                        descs.add(f"A {self._describe(a_d, a_mn)}")
                        w = b.add(
                            cuda_wgmma.WgmmaOp(
                                a_view.mem,
                                b.ssa(a_idx),
                                b_views[0].mem,
                                b.ssa(b_idx),
                                vals,
                                n_instr,
                                self._desc_tuple(a_d),
                                self._desc_tuple(b_d),
                                a_mn,
                                b_mn,
                            )
                        )
                    vals = list(w.results)
                    count += 1
                at = iter(vals)
                for j, _, regs in group:
                    for rs in regs:
                        v = next(at)
                        for r in rs:
                            accs[j][r] = v
        b.add(cuda_wgmma.WgmmaCommitGroupOp())
        ct = op.acc.type
        comment = cuda.CommentOp(
            f"layout.mma {ct.get_shape()[0]}x{ct.get_shape()[1]}x{k_total} ({et}): {count} "
            f"wgmma.m64n{n_instr}k{k_step} per warpgroup"
            + (f" (with the {len(run) - 1} layout.mma after it: their columns)" if len(run) > 1 else "")
            + f", A from {'registers' if a_regs else 'smem'}; "
            + "; ".join(sorted(descs))
            + ("; async: in flight until a layout.mma_wait" if op.is_async else "")
        )
        if op.is_async:
            self.b.add(comment)
            for x, acc in zip(run, accs):
                self.values.set_registers(x.result, acc)
            if len(run) > 1:
                self._runs.update((x, len(run)) for x in run)
            return
        self.values.set_registers(op.result, self._wait(0, [accs[0]])[0])
        self.b.add(comment)

    def _accumulator(self, op: MmaOp) -> tuple:
        """(warpgroup tile origins, the M origins of lane 0's tiles, lane 0's registers by
        coordinate, instrShape N, the N origins of its tiles) of `op`'s accumulator,
        checked to be wgmma's fragment."""
        ct = op.acc.type
        enc = ct.encoding
        lc = registers.linear(ct, op)
        warps = lc.get_bases("warp")
        if tuple(map(tuple, lc.get_bases("lane"))) != WARPGROUP_LANE_BASES or [tuple(w) for w in warps[:2]] != [
            (16, 0),
            (32, 0),
        ]:
            raise TilecError(f"lower-to-gpu: the accumulator layout {enc} is not wgmma's fragment on {ct}", op=op)
        n_instr = enc.data.instr_shape[1]
        rc = registers.registers_by_coordinate(lc)
        tiles = sorted({(m - m % 64, n - n % n_instr) for m, n in rc})
        return (_xor_table(warps[2:]), sorted({m for m, _ in tiles}), rc, n_instr, sorted({n for _, n in tiles}))

    def _run(self, op: MmaOp) -> list[MmaOp]:
        """`op` and the `layout.mma` after it that one wgmma a tile and K step issues with
        it, their B columns side by side: consecutive `{async}` version-3 ops of one block
        on the same A, each accumulator one wgmma tile wide (N = instrShape N) over the same
        warps and M, their B views of one shared buffer that one descriptor reads as the
        columns of all in order (at most 256; distinct addresses), none reading another's
        result. The wgmma of the run are the first op's, one group (`_gpu_pending`
        counts it so). Else `[op]`."""
        if not op.is_async or not isinstance(op.b.type, TensorViewType):
            return [op]
        first = self._accumulator(op)
        if len(first[4]) != 1:
            return [op]
        enc = op.acc.type.encoding.data
        run, width = [op], first[3]
        nxt = op.next_op
        while (
            isinstance(nxt, MmaOp)
            and nxt.is_async
            and nxt.a is op.a
            and isinstance(nxt.b.type, TensorViewType)
            and nxt.b.type.element_type == op.b.type.element_type
            and nxt.b.type.shape[0] == op.b.type.shape[0]
            and isinstance(nxt.acc.type, type(op.acc.type))
            and isinstance(nxt.acc.type.encoding, type(op.acc.type.encoding))
            and nxt.acc.type.encoding.data.version == 3
            and nxt.acc.type.encoding.data.warps_per_cta == enc.warps_per_cta
            and nxt.acc.type.encoding.data.instr_shape[::2] == enc.instr_shape[::2]
            and nxt.acc.type.get_shape()[0] == op.acc.type.get_shape()[0]
            and not any(isinstance(v.owner, MmaOp) and v.owner in run for v in nxt.operands)
        ):
            piece = self._accumulator(nxt)
            if len(piece[4]) != 1 or piece[1] != first[1] or width + piece[3] > 256:
                break
            run.append(nxt)
            width += piece[3]
            nxt = nxt.next_op
        while len(run) > 1:  # the longest prefix whose B columns one descriptor reads
            parts = [(self.values.view(x.b), 0, self._accumulator(x)[3]) for x in run]
            if all(
                not isinstance(self._addresses(parts, "b", shift, kk), str)
                for shift in first[0]
                for kk in range(0, op.b.type.shape[0], enc.instr_shape[2])
            ):
                return run
            run.pop()
        return run

    def lower_wait(self, op: MmaWaitOp) -> None:
        """`wgmma.wait_group pending`, the operands' registers passing through it,
        issued after every register of the `after` values (`pending` counted in the
        wgmma's groups: `_gpu_pending`)."""
        after = [r for v in op.after for r in self.values.registers(v)]
        outs = self._wait(self._gpu_pending(op), [list(self.values.registers(v)) for v in op.values], after)
        for r, regs in zip(op.outs, outs):
            self.values.set_registers(r, regs)

    def _gpu_pending(self, op: MmaWaitOp) -> int:
        """The wait's `pending` in the hardware's groups: a run of several ops (`_run`) is
        one group, so the N most recent groups of the IR may be fewer. Walking back
        through the wait's block, the groups that lie wholly within the IR's `pending`
        most recent ones are kept in flight, the rest retired (no later than in the IR).
        Past the block's start the groups are taken one an op (as the IR counts them)
        where no two async ops of the kernel on one A follow each other (no run can be
        there), else none (retired: a stricter wait)."""
        budget = op.pending_groups
        kept = 0
        prev = op.prev_op
        while budget > 0 and prev is not None:
            if isinstance(prev, MmaOp):
                if not prev.is_async:  # it waited for every group (wait_group 0)
                    return kept
                size = self._runs.get(prev, 1)
                if size > budget:
                    return kept
                budget -= size
                kept += 1
                for _ in range(size - 1):
                    prev = prev.prev_op
            elif prev.regions and any(isinstance(x, MmaOp) for r in prev.regions for x in r.walk()):
                return kept  # groups committed inside a loop or branch: not counted here
            prev = prev.prev_op
        return kept + (0 if self._may_join(op) else budget)

    def _may_join(self, op: Operation) -> bool:
        """Whether the kernel of `op` has two `{async}` version-3 `layout.mma` on one A one
        right after the other (a run `_run` may join)."""
        root = op
        while root.parent_op() is not None and root.parent_op().parent_op() is not None:
            root = root.parent_op()
        if root not in self._joins:
            self._joins[root] = any(
                isinstance(x, MmaOp) and x.is_async and isinstance(x.next_op, MmaOp) and x.next_op.is_async
                and x.next_op.a is x.a
                for x in root.walk()
            )
        return self._joins[root]

    def _wait(self, pending: int, accs: list[list[SSAValue]], after: list[SSAValue] = ()) -> list[list[SSAValue]]:
        """A `cuda.wgmma_wait_group pending` through which every register of `accs`
        passes (one value may fill several registers, or several accumulators: pass it
        once), issued after the registers `after`; the accumulators after it."""
        uniq = list(dict.fromkeys(v for acc in accs for v in acc))
        wait = self.b.add(cuda_wgmma.WgmmaWaitGroupOp(pending, uniq, list(dict.fromkeys(after))))
        after = dict(zip(uniq, wait.results))
        return [[after[v] for v in acc] for acc in accs]

    @staticmethod
    def _desc_tuple(d: WgmmaDescriptor) -> tuple[int, int, int]:
        return (d.swizzle, d.lbo, d.sbo)

    @staticmethod
    def _describe(d: WgmmaDescriptor, mn: bool) -> str:
        sw = f"swizzle {d.swizzle}B" if d.swizzle else "no swizzle"
        return f"{'MN' if mn else 'K'}-major, {sw}, LBO {d.lbo}, SBO {d.sbo}"

    def _addresses(self, parts: list[tuple[View, int, int]], which: str, shift, kk: int):
        """The byte addresses, relative to the first part's base, of the `rows x K`
        operand tile (K: 32 bytes of elements) at K step `kk` made of `parts` (view,
        origin: M of A or N of B, rows) one after the other, for the warpgroup whose tile
        origin is `shift`: fit_descriptor's answer for them; a string where the parts'
        bases differ by a run-time amount or several parts read one address (the same
        columns twice: kept as separate wgmma). Computed once for each set of static
        facts (`_fit_parts`): the stages and the K steps of a kernel repeat them."""
        v0 = parts[0][0]
        facts = []
        for v, origin, rows in parts:
            if not all(isinstance(s, int) and isinstance(d, int) for m in v.layout for s, d in m) or not isinstance(
                v.swz_off, int
            ):
                return "the operand's view is not static"
            base = v.base - v0.base if isinstance(v.base, int) and isinstance(v0.base, int) else (
                0 if v.base is v0.base else None)
            if base is None or v.mem is not v0.mem:
                return "the operand's parts lie in different buffers"
            facts.append((tuple(tuple(m) for m in v.layout), v.swz_off, v.swizzle, base, origin, rows))
        d = shift[0] if which == "a" else shift[1]
        key = (tuple(facts), which, d, kk, element_bytes(v0.elem))
        try:
            return _fit_parts(*key)
        except TypeError:  # a fact that does not hash: computed, not kept
            return _fit_parts.__wrapped__(*key)

    def _operand(self, op: MmaOp, parts: list[tuple[View, int, int]], which: str, wg_offsets, kk: int):
        """(element index of the descriptor's start, descriptor, MN-major) of the operand
        tile made of `parts` (`_addresses`) at K step `kk`, for this thread's warpgroup."""
        v = parts[0][0]
        eb = element_bytes(v.elem)
        for pv, _, _ in parts:
            if eb not in (1, 2) or pv.vec is not None or pv.mask is not None:
                raise TilecError(
                    f"lower-to-gpu: wgmma reads a smem view of 16- or 8-bit scalars without a mask ({which})", op=op
                )
            if not all(isinstance(s, int) and isinstance(d, int) for m in pv.layout for s, d in m) or not isinstance(
                pv.swz_off, int
            ):
                raise TilecError(f"lower-to-gpu: wgmma needs the smem view of operand {which} to be static", op=op)
        fits = []
        for shift in wg_offsets:
            fit = self._addresses(parts, which, shift, kk)
            if isinstance(fit, str):
                what = "A (M x K)" if which == "a" else "B (K x N)"
                raise TilecError(
                    f"lower-to-gpu: wgmma cannot read operand {what} from {op.operands[0 if which == 'a' else 1].type}: "
                    f"{fit}",
                    op=op,
                )
            fits.append(fit)
        d0, mn = fits[0]
        if any((d.lbo, d.sbo, d.swizzle, m) != (d0.lbo, d0.sbo, d0.swizzle, mn) for d, m in fits):
            raise TilecError(f"lower-to-gpu: the warpgroups read operand {which} with different descriptors", op=op)
        deltas = [(d.start - d0.start) // eb for d, _ in fits]
        bits = len(wg_offsets).bit_length() - 1
        for g, dl in enumerate(deltas):
            if dl != sum(deltas[1 << j] for j in range(bits) if g >> j & 1):
                raise TilecError(f"lower-to-gpu: the warpgroups' operand {which} tiles are not evenly spaced", op=op)
        self._align_buffer(op, v, which, d0.swizzle)
        b = self.b
        idx: IndexValue = b.add_(v.base, d0.start // eb)
        for j in range(bits):
            if deltas[1 << j]:
                bit = b.and_(b.shr_(self.ctx.tid, 7 + j), 1)
                idx = b.add_(idx, b.mul_(bit, deltas[1 << j]))
        return idx, d0, mn

    def _align_buffer(self, op: MmaOp, v: View, which: str, swizzle: int) -> None:
        """The view's base and its buffer on the swizzle's repeat (8 rows)."""
        need = swizzle_repeat_bytes(swizzle)
        eb = element_bytes(v.elem)
        if (self.b.div_of(v.base) * eb) % need:
            raise TilecError(
                f"lower-to-gpu: the smem view of wgmma operand {which} starts at an offset not known to be a "
                f"multiple of {need} bytes (its {swizzle}-byte swizzle repeats every {need})",
                op=op,
            )
        alloca = v.mem.owner
        if isinstance(alloca, memref.AllocaOp):
            old = alloca.alignment.value.data if alloca.alignment is not None else 0
            if need > old:
                alloca.alignment = IntegerAttr(need, i64)
        elif v.align < need:
            raise TilecError(
                f"lower-to-gpu: the buffer of wgmma operand {which} is aligned to {v.align} bytes, not {need}", op=op
            )

    def _fences(self, op: MmaOp) -> bool:
        """Whether `op`'s shared operands are written by the generic proxy (`_generic_writes`):
        its wgmma are fenced for them (`fence.proxy.async`), unless `_needs_fence` finds
        the fence of an earlier one covering them."""
        a_regs = not isinstance(op.a.type, TensorViewType)
        return any(self._generic_writes(v) for v in ([op.b] if a_regs else [op.a, op.b]))

    def _needs_fence(self, op: MmaOp) -> bool:
        """`_fences(op)`, unless an earlier `layout.mma` of the same block that fences comes
        after every other op before `op` but `layout.mma` and `layout.mma_wait` (which write
        no shared memory): this thread's fence after the shared writes it has seen (an
        mbarrier wait, a barrier, its own stores) orders them for every wgmma after it
        (the column chunks of one K step fence once)."""
        if not self._fences(op):
            return False
        prev = op.prev_op
        while isinstance(prev, MmaOp | MmaWaitOp):
            if isinstance(prev, MmaOp) and prev.parent_block() is op.parent_block() and self._fences(prev):
                return False
            prev = prev.prev_op
        return True

    def _generic_writes(self, value: SSAValue) -> bool:
        """Whether the shared buffer under the view `value` is written in the launch by
        anything but TMA (through the generic proxy)."""
        root = value
        while (
            isinstance(root.owner, Operation)
            and root.owner.name in ASYNC_SAFE_USES - {"layout.load"}
            and root.owner.operands
        ):
            root = root.owner.operands[0]
        if not (isinstance(root.owner, Operation) and root.owner.name == "layout.alloc"):
            return True
        seen, todo = set(), [root]
        while todo:
            v = todo.pop()
            for use in v.uses:
                user = use.operation
                if user.name not in ASYNC_SAFE_USES:
                    return True
                if user.name == "layout.tma_store" or (user.name == "layout.tma_load" and use.index != 1):
                    continue
                for r in user.results:
                    if isinstance(r.type, TensorViewType) and r not in seen:
                        seen.add(r)
                        todo.append(r)
        return False


@functools.lru_cache(maxsize=4096)
def _fit_parts(parts: tuple, which: str, d: int, kk: int, eb: int):
    """`WgmmaLowering._addresses` of static facts: each part's (layout, swizzle offset,
    swizzle, base relative to the first part's, origin, rows), the operand (`which`), the
    warpgroup's shift of the origin `d`, the K step `kk`, the element's bytes `eb`."""
    chunks = []
    for layout, swz_off, swizzle, base, origin, rows in parts:
        r, k = np.meshgrid(np.arange(rows), np.arange(32 // eb), indexing="ij")
        coords = (origin + d + r, kk + k) if which == "a" else (kk + k, origin + d + r)
        off = np.full(r.shape, swz_off, np.int64)
        for dim, mode in enumerate(layout):
            off = off + views.leaves_offset(mode, coords[dim])
        if swizzle is not None:
            y = off & swizzle.yyy_msk
            off = off ^ (y >> swizzle.shift if swizzle.shift >= 0 else y << -swizzle.shift)
        chunks.append(off + base)
    addrs = eb * np.concatenate(chunks)
    if len(parts) > 1 and np.unique(addrs).size != addrs.size:
        return "the operand's parts overlap"
    return fit_descriptor(addrs, eb)
