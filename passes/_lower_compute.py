"""`lower-to-gpu` for the compute ops of dialects/layout_compute.py.

Elementwise ops (compare, select, integer casts) become their scalar `arith` op once
per register. `layout.scan` follows `dialects/scan_plan.py`: each thread scans its
registers along the axis in order; a Hillis-Steele scan over the lanes along the axis
(`__shfl_sync` from lane - d for d = 1, 2, 4, ...); the last lane of each warp writes the
warp's total to shared memory, one barrier, and each thread folds the totals of the
warps before its own; then every element is combined with its thread's prefix. The
reference executor's `scan_like_a_gpu` combines in the same order."""

from __future__ import annotations

from xdsl.dialects import arith, gpu, memref
from xdsl.dialects.builtin import IntegerType, TensorType, i32

from tilec.compiler.diagnostics import TilecError
from tilec.dialects import cuda
from tilec.dialects import layout_compute as lc
from tilec.dialects.scan_plan import ScanPlanError, scan_plan

COMBINERS = {
    ("add", True): arith.AddfOp, ("add", False): arith.AddiOp,
    ("mul", True): arith.MulfOp, ("mul", False): arith.MuliOp,
    ("max", True): arith.MaximumfOp, ("max", False): arith.MaxSIOp,
    ("min", True): arith.MinimumfOp, ("min", False): arith.MinSIOp,
}
"""The scalar combiner of a reduce or scan kind, for float (True) or integer elements."""


def lower_elementwise(kl, op) -> None:
    """One scalar `arith` op per register of the (shared) layout of the operands."""
    b = kl.b
    regs = [kl.get(o) for o in op.operands]
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
    kl.vals[op.result] = out


def lower_scan(kl, op: lc.ScanOp) -> None:
    b = kl.b
    t: TensorType = op.source.type
    ax = op.axis.value.data
    try:
        plan = scan_plan(t, ax)
    except ScanPlanError as e:
        raise TilecError(f"lower-to-gpu: {e}", op=op) from None
    ll = kl.linear(t, op)
    xs = kl.get(op.source)
    rev = op.is_reverse
    cls = COMBINERS[(op.kind.data, not isinstance(t.element_type, IntegerType))]

    def comb(a, c):
        return b.add(cls(a, c)).results[0]

    def select(cond, a, c):
        return b.add(arith.SelectOp(b.ssa(cond), a, c)).results[0]

    # rows of this thread: registers grouped by their coordinate off the axis, in axis order
    rows: dict[tuple, list[tuple[int, int]]] = {}
    for k in range(ll.num_registers):
        c = tuple(ll.apply(register=k))
        rows.setdefault(c[:ax] + c[ax + 1:], []).append((c[ax], k))
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
    L, W = plan.lanes, plan.warps
    lane = b.and_(kl.tid, 31)
    has_lane = has_warp = False
    lane_ex: dict = {}
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
                y = b.add(cuda.ShflIdxOp(v[key], src, 32)).results[0]
                v[key] = select(ok, comb(y, v[key]), v[key])
            d *= 2
        src = from_lane(1)
        for key in keys:
            lane_ex[key] = b.add(cuda.ShflIdxOp(v[key], src, 32)).results[0]
        totals = v
        has_lane = b.lt_(0, pos)
        last_lane = b.eq_(pos, L - 1)
        lane_axis_mask = (L - 1) << s
    else:
        last_lane, lane_axis_mask = True, 0
    warp_ex: dict = {}
    if W > 1:
        warp_ex, has_warp = _across_warps(kl, op, plan, keys, totals, last_lane, lane_axis_mask, comb, select)
    for key in keys:
        if has_lane is not False and has_warp is not False:
            both = b.land(has_lane, has_warp)
            prefix = select(both, comb(warp_ex[key], lane_ex[key]),
                            select(has_warp, warp_ex[key], lane_ex[key]))
            has = b.add(arith.OrIOp(b.ssa(has_lane), b.ssa(has_warp))).results[0]
        elif has_lane is not False:
            prefix, has = lane_ex[key], has_lane
        elif has_warp is not False:
            prefix, has = warp_ex[key], has_warp
        else:
            prefix = has = None
        for _, k in rows[key]:
            out[k] = p[k] if prefix is None else select(has, comb(prefix, p[k]), p[k])
    kl.vals[op.result] = out


def _across_warps(kl, op, plan, keys, totals, last_lane, lane_axis_mask, comb, select):
    """Each warp's totals (held by its last lane along the axis) through shared memory:
    slot k * threads + (tid without its lane-axis bits); a thread reads the slots of the
    warps before its own along the axis, in order, and folds them."""
    b = kl.b
    W, n = plan.warps, kl.nthreads
    elem = op.source.type.element_type
    sw = plan.warp_bits[0] + 5
    warp_axis_mask = (W - 1) << sw
    buf_op = memref.AllocaOp.get(elem, shape=[len(keys) * n], memory_space=cuda.SHARED_MEMORY_SPACE)
    buf = buf_op.results[0]
    buf.name_hint = "scan"
    e = b.entry
    e.insert_op_before(buf_op, e.first_op) if e.first_op else e.add_op(buf_op)
    kl.comment(f"scan across {W} warps via smem: {len(keys)} totals per warp")
    if kl._in_loop(op):
        b.add(gpu.BarrierOp())
    mine = b.and_(kl.tid, ~lane_axis_mask & (2 * n - 1))

    def write():
        for k, key in enumerate(keys):
            b.add(memref.StoreOp.get(totals[key], buf, [b.ssa(b.add_(mine, k * n))]))

    if last_lane is True:
        write()
    else:
        kl._guarded(last_lane, write)
    b.add(gpu.BarrierOp())
    wpos = b.and_(b.shr_(kl.tid, sw), W - 1)
    rev = op.is_reverse
    if rev:
        wpos = b.sub_(W - 1, wpos)
    base = b.and_(mine, ~warp_axis_mask & (2 * n - 1))
    out = {}
    for k, key in enumerate(keys):
        acc = res = None
        for j in range(W - 1):
            w = (W - 1 - j) if rev else j
            x = b.add(memref.LoadOp.get(buf, [b.ssa(b.add_(base, k * n + (w << sw)))])).results[0]
            acc = x if acc is None else comb(acc, x)
            res = acc if res is None else select(b.eq_(wpos, j + 1), acc, res)
        out[key] = res
    return out, b.lt_(0, wpos)
