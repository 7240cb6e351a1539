"""`layout.reduce` and `layout.reduce_region`: within a thread, across lanes by a
shuffle butterfly, across warps through shared memory in one round."""


from __future__ import annotations

from xdsl.dialects import arith, gpu, memref
from xdsl.dialects.builtin import (
    TensorType,
    i32,
)

from tilec.dialects import cuda, layout, layout_compute

from .._gpu_builder import IndexValue
from . import access, registers
from .base import (
    _count,
    _fail,
    lowers,
)
from .compute import combiner
from .context import OpFamily


class ReduceLowering(OpFamily):
    @lowers(layout.ReduceOp)
    def op_layout_reduce(self, op: layout.ReduceOp):
        st: TensorType = op.source.type
        comb = combiner(self.b, op.kind.data, st.element_type)
        (out,) = self.reduce_values(
            op, op.axis.value.data, st, op.result.type, [self.values.registers(op.source)], comb,
            commutative=True)  # add, mul, max, min: IEEE-commutative, NaN-propagating max/min too
        self.values.set_registers(op.result, out)

    @lowers(layout_compute.ReduceRegionOp)
    def op_layout_reduce_region(self, op):
        """`layout.reduce_region`: the combiner region's ops lowered as scalars, once per
        combination (block arguments bound to the two tuples' values)."""
        body = op.combiner.block
        n = len(op.srcs)

        def comb(a, c):
            for arg, v in zip(body.args, [*a, *c]):
                self.values.set_scalar(arg, v)
            for o in body.ops:
                if o is body.last_op:
                    return tuple(self.ctx.ssa(x) for x in o.operands)
                self.ctx.lower(o)
            raise _fail(op, "the combiner region has no terminator")

        outs = self.reduce_values(op, op.axis.value.data, op.srcs[0].type, op.results[0].type,
                                  [self.values.registers(x) for x in op.srcs], comb)
        for r, v in zip(op.results, outs[:n]):
            self.values.set_registers(r, v)

    def reduce_values(self, op, ax: int, st: TensorType, rt: TensorType, xss: list, comb,
                      commutative: bool = False) -> list:
        """Reduce the distributed values `xss` (registers of each, all in the layout of
        `st`) together along `ax`: comb(tuple, tuple) -> tuple combines one element of
        each. Inside the thread in register order, then a butterfly over the lane bits
        along the axis, then one round through shared memory across the warps; returns
        the registers of each result (layout of `rt`, the slice of `st`)."""
        b = self.b
        src = registers.linear(st, op)
        dst = registers.linear(rt, op)

        def proj(c):
            return tuple(x for d, x in enumerate(c) if d != ax)

        # within the thread: group registers by their non-axis coordinate
        groups: dict = {}
        seen_full: set = set()
        for k in range(src.num_registers):
            c = tuple(src.apply(register=k))
            if c in seen_full:
                continue  # broadcast copy of an element: count it once
            seen_full.add(c)
            p = proj(c)
            x = tuple(xs[k] for xs in xss)
            groups[p] = x if p not in groups else comb(groups[p], x)
        # across lanes: butterfly over the lane bits that move along the axis
        lanes = src.get_bases("lane")
        for i, bs in enumerate(lanes):
            if bs[ax] == 0:
                continue
            if any(bs[d] for d in range(len(bs)) if d != ax):
                raise _fail(op, "a lane basis that moves along several dims is not supported in reduce")
            lane_src = b.ssa(b.xor_(b.and_(self.ctx.tid, 31), 1 << i))
            lane32 = b.add(arith.IndexCastOp(lane_src, i32)).results[0]
            for p in list(groups):
                other = tuple(b.add(cuda.ShflIdxOp(v, lane32, 32)).results[0] for v in groups[p])
                groups[p] = comb(groups[p], other)
        steps = []
        for j, bs in enumerate(src.get_bases("warp")):
            if bs[ax] == 0:
                continue
            if any(bs[d] for d in range(len(bs)) if d != ax):
                raise _fail(op, "a warp basis that moves along several dims is not supported in reduce")
            steps.append(32 << j)
        if steps:
            lane_mask = sum(1 << i for i, bs in enumerate(lanes) if bs[ax])
            self.reduce_across_warps(op, groups, steps, lane_mask, comb, commutative)
        out: list = [[] for _ in xss]
        for k in range(dst.num_registers):
            c = tuple(dst.apply(register=k))
            if c not in groups:
                raise _fail(op, "reduce: result layout does not match the source's slice")
            for lst, v in zip(out, groups[c]):
                lst.append(v)
        for n in ("lane", "warp"):
            for x, y in zip(dst.get_bases(n), src.get_bases(n)):
                if tuple(x) != proj(y):
                    raise _fail(op, "reduce: result layout is not the slice of the source layout")
        return out

    def reduce_across_warps(self, op, groups: dict, steps: list[int], lane_mask: int, comb,
                            commutative: bool = False):
        """Combine each thread's partials in `groups` (tuples: one value per reduced
        operand) with those of the other warps along the reduced axis (`steps`: the
        thread-id bits of those warps, lowest first) in one round through shared memory,
        as the Gluon tutorial says (butterfly shuffles within the warp, then one round
        through shared memory). After the shuffles, the lanes that differ only in
        `lane_mask` (the lane bits along the axis) hold the same partials: the one with
        those bits zero writes them, partial k of thread t at k * S + c(t), c(t) being t
        without the `lane_mask` bits (S = threads / 2^popcount(lane_mask)), one buffer
        per operand; one barrier; each thread reads the slots of the 2^len(steps) threads
        that differ from it only in the `steps` bits, in warp order, and folds them, as
        `reduce_like_a_gpu` of the reference executor does. Writers of one warp take
        consecutive slots and readers of one slot read it together: no bank conflicts.
        Where every lane bit moves along the axis (`lane_mask` 31: all lanes of a warp
        hold the same partials) and the combiner is commutative (`layout.reduce`'s
        kinds; every warp then ends with the same value), the read is one slot per lane
        and a butterfly of shuffles instead (`_butterfly_across_warps`): 1 load and
        log2(warps) shuffles per partial, not one load per warp.
        A reduce inside a loop starts with a barrier (the previous iteration's reads;
        `eliminate-barriers` removes it where another barrier already separates them)."""
        b = self.b
        keys = list(groups)
        n = self.ctx.nthreads
        slots = n >> bin(lane_mask).count("1")
        bufs = []
        for j, v in enumerate(groups[keys[0]]):
            buf_op = memref.AllocaOp.get(v.type, shape=[len(keys) * slots], memory_space=cuda.SHARED_MEMORY_SPACE)
            buf_op.results[0].name_hint = "red"
            e = b.entry
            e.insert_op_before(buf_op, e.first_op) if e.first_op else e.add_op(buf_op)
            bufs.append(buf_op.results[0])
        ways = 1 << len(steps)
        self.ctx.comment(f"reduce across {ways} warps via smem: one round of {_count(len(keys), 'partial')} "
                     f"per thread, 0 bank conflicts per write, 0 per read")
        if self.ctx.in_loop(op):
            b.add(gpu.BarrierOp())

        def write():
            mine = self._compress(self.ctx.tid, lane_mask, n)
            for k, p in enumerate(keys):
                for buf, v in zip(bufs, groups[p]):
                    b.add(memref.StoreOp.get(v, buf, [b.ssa(b.add_(mine, k * slots))]))

        access.guarded(self.b, b.eq0(b.and_(self.ctx.tid, lane_mask)) if lane_mask else True, write)
        b.add(gpu.BarrierOp())
        base = b.and_(self.ctx.tid, ~(sum(steps) | lane_mask) & ((1 << (n - 1).bit_length()) - 1))
        if commutative and lane_mask == 31 and ways <= 32:
            self._butterfly_across_warps(groups, keys, bufs, base, steps, slots, n, comb)
            return
        reads = []
        for j in range(ways):
            off = sum(st for i, st in enumerate(steps) if j >> i & 1)
            reads.append(self._compress(b.add_(base, off), lane_mask, n))
        for k, p in enumerate(keys):
            acc = None
            for r in reads:
                at = b.ssa(b.add_(r, k * slots))
                x = tuple(b.add(memref.LoadOp.get(buf, [at])).results[0] for buf in bufs)
                acc = x if acc is None else comb(acc, x)
            groups[p] = acc

    def _butterfly_across_warps(self, groups: dict, keys: list, bufs: list, base: IndexValue, steps: list[int],
                                slots: int, n: int, comb) -> None:
        """The warps' partials combined by a butterfly over the warp bits `steps`, as the
        reference executor's `reduce_like_a_gpu` orders it: lane l of warp w starts from
        the partial of warp j0 = (l mod W) ^ j(w) (W = 2^len(steps), j(w) the warp's
        index along the axis), then for each step i combines with lane l ^ 2^i, which
        started from j0 ^ 2^i; lane l ends with the value the executor gives a thread of
        warp j0, which for a commutative combiner is every warp's."""
        b = self.b
        lane = b.and_(self.ctx.tid, 31)
        own = 0
        for i, st in enumerate(steps):  # j(w): the warp's bits along the axis, packed
            own = b.add_(own, b.shl_(b.and_(b.shr_(self.ctx.tid, st.bit_length() - 1), 1), i))
        j0 = b.xor_(b.and_(lane, (1 << len(steps)) - 1), own)
        partner = base
        for i, st in enumerate(steps):  # the thread id of a thread of warp j0
            partner = b.add_(partner, b.shl_(b.and_(b.shr_(j0, i), 1), st.bit_length() - 1))
        at = self._compress(partner, 31, n)
        for k, p in enumerate(keys):
            slot = b.ssa(b.add_(at, k * slots))
            x = tuple(b.add(memref.LoadOp.get(buf, [slot])).results[0] for buf in bufs)
            for i in range(len(steps)):
                src = b.add(arith.IndexCastOp(b.ssa(b.xor_(lane, 1 << i)), i32)).results[0]
                x = comb(x, tuple(b.add(cuda.ShflIdxOp(v, src, 32)).results[0] for v in x))
            groups[p] = x

    def _compress(self, t: IndexValue, drop: int, n: int) -> IndexValue:
        """t (a thread id below n) with the bits of `drop` removed, the bits above
        each shifted down: one and + shift per run of kept bits."""
        b = self.b
        out: IndexValue = 0
        pos = dst = 0
        while (1 << pos) < n:
            if drop >> pos & 1:
                pos += 1
                continue
            end = pos
            while (1 << end) < n and not drop >> end & 1:
                end += 1
            run = b.and_(t, ((1 << end) - 1) & ~((1 << pos) - 1))
            out = b.add_(out, b.shr_(run, pos - dst))  # dst <= pos: the run moves down
            dst += end - pos
            pos = end
        return out

