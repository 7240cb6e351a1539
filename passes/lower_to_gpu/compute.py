"""`lower-to-gpu` for the compute ops of dialects/layout_compute.py.

Elementwise ops (compare, select, integer casts) become their scalar `arith` op once
per register. `layout.scan` and `layout.scan_region` (its combiner region's ops once per
combination, on tuples of registers) follow `dialects/scan_plan.py`: each thread scans its
registers along the axis in order; a Hillis-Steele scan over the lanes along the axis
(`__shfl_sync` from lane - d for d = 1, 2, 4, ...); the last lane of each warp writes the
warp's total to shared memory, one barrier, and each thread folds the totals of the
warps before its own; then every element is combined with its thread's prefix. The
reference executor's `scan_like_a_gpu` combines in the same order."""

from __future__ import annotations

from xdsl.dialects import arith, gpu, memref
from xdsl.dialects.builtin import IndexType, IntegerType, TensorType, i32
from xdsl.ir import Attribute

from tilec.dialects import cuda
from tilec.dialects import layout_compute as lc
from tilec.dialects.scan_plan import ScanPlanError, scan_plan
from tilec.support.diagnostics import TilecError

from .._gpu_builder import DynamicIndex
from . import access, registers
from .base import lowers
from .context import OpFamily

COMBINERS = {
    ("add", True): arith.AddfOp, ("add", False): arith.AddiOp,
    ("mul", True): arith.MulfOp, ("mul", False): arith.MuliOp,
    ("max", True): arith.MaximumfOp, ("max", False): arith.MaxSIOp,
    ("min", True): arith.MinimumfOp, ("min", False): arith.MinSIOp,
}
"""The scalar combiner of a reduce or scan kind, for float (True) or integer elements."""


def combiner(b, kind: str, element_type: Attribute):
    """comb(tuple, tuple) -> tuple: one element of a reduce or scan of `kind` over
    elements of `element_type`, built with `b` (`COMBINERS`' op)."""
    cls = COMBINERS[(kind, not isinstance(element_type, IntegerType))]

    def comb(a, c):
        return (b.add(cls(a[0], c[0])).results[0],)

    return comb


def scan_registers(ctx, op, t: TensorType, ax: int, rev: bool, xss: list, comb) -> list:
    """The inclusive scan along `ax` of the distributed values `xss` (registers of each,
    all in the layout of `t`) together: comb(tuple, tuple) -> tuple combines one element
    of each, earlier elements on the left. Returns the registers of each result."""
    b = ctx.b
    try:
        plan = scan_plan(t, ax)
    except ScanPlanError as e:
        raise TilecError(f"lower-to-gpu: {e}", op=op) from None
    ll = registers.linear(t, op)
    xs = [tuple(x[k] for x in xss) for k in range(ll.num_registers)]

    def select(cond, a, c):
        if cond is True:
            return a
        if cond is False:
            return c
        return tuple(b.add(arith.SelectOp(b.ssa(cond), u, v)).results[0] for u, v in zip(a, c))

    def shfl(v, src):
        return tuple(b.add(cuda.ShflIdxOp(u, src, 32)).results[0] for u in v)

    # rows of this thread: registers grouped by their coordinate off the axis and their
    # chunk, in axis order (backwards for reverse)
    rows: dict[tuple, list[tuple[int, int]]] = {}
    for k in range(ll.num_registers):
        c = tuple(ll.apply(register=k))
        chunk = c[ax] // plan.span
        if rev:
            chunk = plan.chunks - 1 - chunk
        rows.setdefault((c[:ax] + c[ax + 1:], chunk), []).append((c[ax], k))
    keys = list(rows)
    out: list = [None] * ll.num_registers
    p: dict = {}
    for key in keys:
        order = sorted(rows[key], reverse=rev)
        acc = None
        for _, k in order:
            acc = xs[k] if acc is None else comb(acc, xs[k])
            p[k] = acc
        rows[key] = order
    totals = {key: p[rows[key][-1][1]] for key in keys}
    L = plan.lanes
    lane = b.and_(ctx.tid, 31)
    has_lane: object = False
    lane_ex: dict = {}
    last_lane: object = True
    lane_axis_mask = 0
    if L > 1:
        s = plan.lane_bits[0]
        pos = b.and_(b.shr_(lane, s), L - 1)
        if rev:
            pos = b.sub_(L - 1, pos)

        def from_lane(d):
            src = b.and_(b.sub_(lane, d << s) if not rev else b.add_(lane, d << s), 31)
            return b.add(arith.IndexCastOp(b.ssa(src), i32)).results[0]

        v = dict(totals)
        d = 1
        while d < L:
            src, ok = from_lane(d), b.lt_(d - 1, pos)
            for key in keys:
                y = shfl(v[key], src)
                v[key] = select(ok, comb(y, v[key]), v[key])
            d *= 2
        src = from_lane(1)
        for key in keys:
            lane_ex[key] = shfl(v[key], src)
        totals = v
        has_lane = b.lt_(0, pos)
        last_lane = b.eq_(pos, L - 1)
        lane_axis_mask = (L - 1) << s
    warp_ex: dict = {}
    has_warp: dict = {key: False for key in keys}
    if plan.warps * plan.chunks > 1:
        elems = [x.type.element_type for x in (op.srcs if isinstance(op, lc.ScanRegionOp) else [op.source])]
        warp_ex, has_warp = _across_warps(ctx, op, plan, keys, totals, last_lane, lane_axis_mask,
                                          comb, select, elems, rev)
    for key in keys:
        hw = has_warp[key]
        if has_lane is not False and hw is not False:
            prefix = select(b.land(has_lane, hw), comb(warp_ex[key], lane_ex[key]),
                            select(hw, warp_ex[key], lane_ex[key]))
            has = True if hw is True else b.add(arith.OrIOp(b.ssa(has_lane), b.ssa(hw))).results[0]
        elif has_lane is not False:
            prefix, has = lane_ex[key], has_lane
        elif hw is not False:
            prefix, has = warp_ex[key], hw
        else:
            prefix = has = None
        for _, k in rows[key]:
            out[k] = p[k] if prefix is None else select(has, comb(prefix, p[k]), p[k])
    return [[x[j] for x in out] for j in range(len(xss))]


def _across_warps(ctx, op, plan, keys, totals, last_lane, lane_axis_mask, comb, select, elems, rev):
    """The totals of each (warp, chunk) along the axis, held by the warp's last lane along
    it, through shared memory (one buffer per scanned operand): slot q * threads + (tid
    without its lane-axis bits) for the q-th (row, chunk) of the thread. One barrier;
    then a thread folds, for each of its rows, the totals in axis order g = w + W * c
    and keeps, for each chunk c, the fold of those before g = wpos + W * c. Returns the
    prefixes and whether each exists (an i1 IndexValue, or True/False when known)."""
    b = ctx.b
    W, n = plan.warps, ctx.nthreads
    sw = (plan.warp_bits[0] + 5) if W > 1 else 0
    warp_axis_mask = (W - 1) << sw if W > 1 else 0
    bufs = []
    for elem in elems:
        buf_op = memref.AllocaOp.get(elem, shape=[len(keys) * n], memory_space=cuda.SHARED_MEMORY_SPACE)
        buf = buf_op.results[0]
        buf.name_hint = "scan"
        e = b.entry
        e.insert_op_before(buf_op, e.first_op) if e.first_op else e.add_op(buf_op)
        bufs.append(buf)
    ctx.comment(f"scan across {W} warp(s) x {plan.chunks} chunk(s) via smem: "
               f"{len(keys)} total(s) per thread, one barrier")
    if ctx.in_loop(op):
        b.add(gpu.BarrierOp())
    mine = b.and_(ctx.tid, ~lane_axis_mask & (2 * n - 1))
    slot = {key: q for q, key in enumerate(keys)}

    def write():
        for key in keys:
            at = b.ssa(b.add_(mine, slot[key] * n))
            for buf, x in zip(bufs, totals[key]):
                b.add(memref.StoreOp.get(x, buf, [at]))

    access.guarded(ctx.b, last_lane, write)
    b.add(gpu.BarrierOp())
    if W > 1:
        wpos = b.and_(b.shr_(ctx.tid, sw), W - 1)
        if rev:
            wpos = b.sub_(W - 1, wpos)
    else:
        wpos = 0
    base = b.and_(mine, ~warp_axis_mask & (2 * n - 1))
    out, has = {}, {}
    by_row: dict = {}  # a thread holds every chunk of its rows (chunks are register bits)
    for key in keys:
        by_row.setdefault(key[0], {})[key[1]] = key
    for row, chunks in by_row.items():
        acc = None
        for c in range(plan.chunks):
            res = acc  # the fold of the chunks before c: the prefix of g = W * c
            for j in range(W):
                if j >= 1:
                    res = acc if res is None else select(b.eq_(wpos, j), acc, res)
                if j == W - 1 and c + 1 == plan.chunks:
                    break  # the last total is nobody's prefix
                w = (W - 1 - j) if rev else j
                at = b.ssa(b.add_(base, slot[(row, c)] * n + (w << sw)))
                x = tuple(b.add(memref.LoadOp.get(buf, [at])).results[0] for buf in bufs)
                acc = x if acc is None else comb(acc, x)
            if c in chunks:
                if c == 0:
                    out[chunks[c]], has[chunks[c]] = (res, b.lt_(0, wpos)) if W > 1 else (None, False)
                else:
                    out[chunks[c]], has[chunks[c]] = res, True
    return out, has


def _gather_in_warp(ctx, op: lc.GatherOp) -> bool:
    """When the source's gathered axis lies in registers and lanes only (each basis along
    it alone), and the index's lane and warp bases move along the other dimensions as
    the source's do, every element a thread needs is in its own warp: for each result
    register, the lane holding source[.., v, ..] is the thread's lane with the lane bits
    of the axis replaced by v's, and its register is one of the source registers of the
    same row, chosen by v's register bits: one `__shfl_sync` per such register, then a
    select. Returns False (nothing emitted) when the layouts do not allow it."""
    b = ctx.b
    ax = op.axis.value.data
    src_ll, idx_ll = registers.linear(op.source.type, op), registers.linear(op.index.type, op)

    def off_axis(v):
        return tuple(x for d, x in enumerate(v) if d != ax)

    def pure_axis(v):
        return not any(off_axis(v))

    if any(v[ax] for v in src_ll.get_bases("warp")):
        return False
    for dim in ("lane", "warp"):
        sb, ib = src_ll.get_bases(dim), idx_ll.get_bases(dim)
        if len(sb) != len(ib) or any(off_axis(x) != off_axis(y) for x, y in zip(sb, ib)):
            return False
    lane_axis = []  # (lane bit, axis value)
    for i, v in enumerate(src_ll.get_bases("lane")):
        if v[ax]:
            if not pure_axis(v):
                return False
            lane_axis.append((i, v[ax]))
    reg_axis_mask = 0
    for v in src_ll.get_bases("register"):
        if v[ax]:
            if not pure_axis(v):
                return False
            reg_axis_mask |= v[ax]
    by_row: dict = {}
    for r in range(src_ll.num_registers):
        c = tuple(src_ll.apply(register=r))
        by_row.setdefault(off_axis(c), {}).setdefault(c[ax], r)
    idx_regs = [tuple(idx_ll.apply(register=k)) for k in range(idx_ll.num_registers)]
    if any(off_axis(c) not in by_row for c in idx_regs):
        return False
    ctx.comment(f"gather along axis {ax} in registers within the warp: shuffles, no shared memory")
    xs, idx = ctx.values.registers(op.source), ctx.values.registers(op.index)
    lane = b.and_(ctx.tid, 31)
    keep = b.and_(lane, ~sum(1 << i for i, _ in lane_axis) & 31)
    out = []
    for k, c in enumerate(idx_regs):
        v = DynamicIndex(b, b.add(arith.IndexCastOp(idx[k], IndexType())).results[0])
        src_lane = keep
        for i, a in lane_axis:
            src_lane = b.or_(src_lane, b.shl_(b.and_(b.shr_(v, a.bit_length() - 1), 1), i))
        lane32 = b.add(arith.IndexCastOp(b.ssa(src_lane), i32)).results[0]
        cands = by_row[off_axis(c)]
        which = b.and_(v, reg_axis_mask) if reg_axis_mask else 0
        got = None
        for a, r in sorted(cands.items()):
            x = b.add(cuda.ShflIdxOp(xs[r], lane32, 32)).results[0]
            if got is None:
                got = x
            else:
                got = b.add(arith.SelectOp(b.ssa(b.eq_(which, a)), x, got)).results[0]
        out.append(got)
    ctx.values.set_registers(op.result, out)
    return True


def _gather_through_smem(ctx, op: lc.GatherOp) -> None:
    """Through shared memory: the source's owners write it row-major to a buffer of its
    size (each element once), one barrier, then each thread reads its result elements at
    the coordinates of its index registers with the gathered axis replaced by the index
    value. A gather in a loop starts with a barrier (the previous iteration's reads)."""
    b = ctx.b
    st, it = op.source.type, op.index.type
    ax = op.axis.value.data
    shape = list(st.get_shape())
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    src_ll, idx_ll = registers.linear(st, op), registers.linear(it, op)
    buf_op = memref.AllocaOp.get(st.element_type, shape=[strides[0] * shape[0]],
                                 memory_space=cuda.SHARED_MEMORY_SPACE)
    buf = buf_op.results[0]
    buf.name_hint = "gather"
    e = b.entry
    e.insert_op_before(buf_op, e.first_op) if e.first_op else e.add_op(buf_op)
    ctx.comment(f"gather along axis {ax} through smem: the source written once, one barrier")
    if ctx.in_loop(op):
        b.add(gpu.BarrierOp())
    xs = ctx.values.registers(op.source)

    def coords(ll, tco, rc):
        return [b.xor_(t, x) if x & m else b.add_(t, x) for t, x, m in zip(tco, rc, registers.thread_mask(ll))]

    redundant = sum(1 << i for i, bs in enumerate(src_ll.get_bases("lane")) if not any(bs))
    redundant |= sum(1 << (5 + i) for i, bs in enumerate(src_ll.get_bases("warp")) if not any(bs))

    def write():
        tco = registers.thread_coords(ctx, src_ll, op)
        seen = set()
        for k, rc in enumerate(registers.reg_coords(src_ll)):
            if rc in seen:
                continue
            seen.add(rc)
            c = coords(src_ll, tco, rc)
            at = 0
            for x, sd in zip(c, strides):
                at = b.add_(at, b.mul_(x, sd))
            b.add(memref.StoreOp.get(xs[k], buf, [b.ssa(at)]))

    access.guarded(ctx.b, b.eq0(b.and_(ctx.tid, redundant)) if redundant else True, write)
    b.add(gpu.BarrierOp())
    idx = ctx.values.registers(op.index)
    tco = registers.thread_coords(ctx, idx_ll, op)
    out = []
    for k, rc in enumerate(registers.reg_coords(idx_ll)):
        c = coords(idx_ll, tco, rc)
        i = idx[k]
        iv = b.add(arith.IndexCastOp(i, IndexType())).results[0]
        at = b.mul_(DynamicIndex(b, iv), strides[ax])
        for d, (x, sd) in enumerate(zip(c, strides)):
            if d != ax:
                at = b.add_(at, b.mul_(x, sd))
        out.append(b.add(memref.LoadOp.get(buf, [b.ssa(at)])).results[0])
    ctx.values.set_registers(op.result, out)


class ComputeLowering(OpFamily):
    """Compare, select and integer casts, scans, permute/reshape/join/split and gather (module doc)."""

    @lowers(*lc.ELEMENTWISE_OPS)
    def lower_elementwise(self, op) -> None:
        """One scalar `arith` op per register of the (shared) layout of the operands."""
        ctx = self.ctx
        b = ctx.b
        regs = [ctx.values.registers(o) for o in op.operands]
        n = len(regs[0])
        rt: TensorType = op.result.type
        out = []
        for k in range(n):
            xs = [r[k] for r in regs]
            if isinstance(op, lc.SelectOp):
                new = arith.SelectOp(*xs)
            elif isinstance(op, lc.CmpiOp | lc.CmpfOp):
                new = op.SCALAR(xs[0], xs[1], op.predicate_name)
            else:
                new = op.SCALAR(xs[0], rt.element_type)
            out.append(b.add(new).results[0])
        ctx.values.set_registers(op.result, out)

    @lowers(lc.ScanOp)
    def lower_scan(self, op: lc.ScanOp) -> None:
        ctx = self.ctx
        t: TensorType = op.source.type
        comb = combiner(ctx.b, op.kind.data, t.element_type)
        (out,) = scan_registers(ctx, op, t, op.axis.value.data, op.is_reverse, [ctx.values.registers(op.source)], comb)
        ctx.values.set_registers(op.result, out)

    @lowers(lc.ScanRegionOp)
    def lower_scan_region(self, op: lc.ScanRegionOp) -> None:
        """`layout.scan_region`: the combiner region's ops lowered as scalars, once per
        combination (block arguments bound to the two tuples' values)."""
        ctx = self.ctx
        body = op.combiner.block

        def comb(a, c):
            for arg, v in zip(body.args, [*a, *c]):
                ctx.values.set_scalar(arg, v)
            for o in body.ops:
                if o is body.last_op:
                    return tuple(ctx.ssa(x) for x in o.operands)
                ctx.lower(o)
            raise TilecError("the combiner region has no terminator", op=op)

        outs = scan_registers(ctx, op, op.srcs[0].type, op.axis.value.data, op.is_reverse,
                              [ctx.values.registers(x) for x in op.srcs], comb)
        for r, v in zip(op.results, outs):
            ctx.values.set_registers(r, v)

    @lowers(lc.PermuteOp)
    def lower_permute(self, op: lc.PermuteOp) -> None:
        """No data moves: result register k is the source register holding the element with
        the permuted coordinates (the verifier checked that the bases correspond)."""
        ctx = self.ctx
        order = op.permutation
        inv = [order.index(e) for e in range(len(order))]
        src, dst = registers.linear(op.source.type, op), registers.linear(op.result.type, op)
        xs = ctx.values.registers(op.source)
        ctx.values.set_registers(op.result, registers.permute(xs, src, dst, op, project=lambda c: [c[inv[e]] for e in range(len(c))]))

    @lowers(lc.JoinOp)
    def lower_join(self, op: lc.JoinOp) -> None:
        """Result register k <- lhs or rhs (by its coordinate on the new minor dim), the
        register holding the same element of the halves: no data moves."""
        ctx = self.ctx
        half, joined = registers.linear(op.lhs.type, op), registers.linear(op.result.type, op)
        where = {}
        for k in range(half.num_registers):
            where.setdefault(tuple(half.apply(register=k)), k)
        xs, ys = ctx.values.registers(op.lhs), ctx.values.registers(op.rhs)
        ctx.values.set_registers(op.result, [(ys if c[-1] else xs)[where[tuple(c[:-1])]]
                                             for c in (joined.apply(register=k) for k in range(joined.num_registers))])

    @lowers(lc.SplitOp)
    def lower_split(self, op: lc.SplitOp) -> None:
        ctx = self.ctx
        half, joined = registers.linear(op.lhs.type, op), registers.linear(op.source.type, op)
        where = {}
        for k in range(joined.num_registers):
            where.setdefault(tuple(joined.apply(register=k)), k)
        xs = ctx.values.registers(op.source)
        for j, res in enumerate((op.lhs, op.rhs)):
            ctx.values.set_registers(res, [xs[where[(*half.apply(register=k), j)]] for k in range(half.num_registers)])

    @lowers(lc.GatherOp)
    def lower_gather(self, op: lc.GatherOp) -> None:
        """In registers within the warp when the layouts allow it (`_gather_in_warp`), else
        through shared memory (`_gather_through_smem`)."""
        ctx = self.ctx
        if not _gather_in_warp(ctx, op):
            _gather_through_smem(ctx, op)

    @lowers(lc.ReshapeOp)
    def lower_reshape(self, op: lc.ReshapeOp) -> None:
        """No data moves: result register k is the source register holding the element with
        the same row-major offset (the verifier checked that the bases correspond)."""
        ctx = self.ctx
        ss, rs = list(op.source.type.get_shape()), list(op.result.type.get_shape())

        def project(c):
            off = lc._flat(c, rs)
            out = []
            for n in reversed(ss):
                out.append(off % n)
                off //= n
            return out[::-1]

        src, dst = registers.linear(op.source.type, op), registers.linear(op.result.type, op)
        ctx.values.set_registers(op.result, registers.permute(ctx.values.registers(op.source), src, dst, op, project=project))
