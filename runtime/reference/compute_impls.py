"""The compute ops of `dialects/layout_compute.py` on the reference executor: the
elementwise ones are their scalar `arith` op's impl applied to whole distributed
values (shape [blocks, *shape] or uniform [*shape]); `layout.scan` combines in the
order the GPU does (`scan_like_a_gpu`), so that float results agree bit for bit."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import arith
from xdsl.interpreter import InterpreterFunctions, ReturnedValues, impl, impl_terminator, register_impls

from tilec.dialects import layout_compute as lc
from tilec.dialects import layout_funnel as lf
from tilec.dialects.scan_plan import ScanPlan, ScanPlanError, scan_plan

from .arith_impls import ArithFunctions
from .errors import ExecutionError
from .executor import ReferenceInterpreter
from .layout_impls import _dist_rank, reduce_tuples_like_a_gpu
from .values import from_compute, to_compute

_ARITH = ArithFunctions()
_SCALAR_IMPL = {
    arith.CmpiOp: ArithFunctions.run_cmpi, arith.CmpfOp: ArithFunctions.run_cmpf,
    arith.ExtSIOp: ArithFunctions.run_extsi, arith.ExtUIOp: ArithFunctions.run_extui,
    arith.TruncIOp: ArithFunctions.run_trunci, arith.SIToFPOp: ArithFunctions.run_sitofp,
    arith.UIToFPOp: ArithFunctions.run_uitofp, arith.FPToSIOp: ArithFunctions.run_fptosi,
    arith.FPToUIOp: ArithFunctions.run_fptoui,
}


def _elementwise(cls):
    fn = _SCALAR_IMPL[cls.SCALAR]

    @impl(cls)
    def run(self, interp: ReferenceInterpreter, op, args):
        # the arith impls read only the op's operand/result types and predicate,
        # which these ops name alike
        return fn(_ARITH, interp, op, args).values

    return run


@register_impls
class ComputeFunctions(InterpreterFunctions):
    run_cmpi = _elementwise(lc.CmpiOp)
    run_cmpf = _elementwise(lc.CmpfOp)
    run_extsi = _elementwise(lc.ExtSIOp)
    run_extui = _elementwise(lc.ExtUIOp)
    run_trunci = _elementwise(lc.TruncIOp)
    run_sitofp = _elementwise(lc.SIToFPOp)
    run_uitofp = _elementwise(lc.UIToFPOp)
    run_fptosi = _elementwise(lc.FPToSIOp)
    run_fptoui = _elementwise(lc.FPToUIOp)

    @impl(lc.SelectOp)
    def run_select(self, interp: ReferenceInterpreter, op: lc.SelectOp, args):
        cond, a, b = (np.asarray(x) for x in args)
        return (np.where(cond, a, b),)

    @impl(lc.ReduceRegionOp)
    def run_reduce_region(self, interp: ReferenceInterpreter, op: lc.ReduceRegionOp, args):
        t = op.srcs[0].type
        arrays = [np.asarray(a) for a in args]
        if not all(_dist_rank(a, t) for a in arrays):
            lead = max((a.shape[0] for a in arrays if _dist_rank(a, t)), default=1)
            arrays = [a if _dist_rank(a, t) else np.broadcast_to(a[None], (lead, *a.shape)) for a in arrays]
        saved = interp.grid
        interp.grid = None  # the combiner runs on whole arrays, not per thread

        def comb(a: tuple, c: tuple) -> tuple:
            return tuple(np.asarray(v) for v in interp.run_ssacfg_region(op.combiner, (*a, *c), "combiner"))

        try:
            return tuple(reduce_tuples_like_a_gpu(arrays, t, op.axis.value.data, comb))
        finally:
            interp.grid = saved

    @impl(lc.PermuteOp)
    def run_permute(self, interp: ReferenceInterpreter, op: lc.PermuteOp, args):
        a = np.asarray(args[0])
        order = list(op.permutation)
        if _dist_rank(a, op.source.type):
            return (np.transpose(a, [0, *(o + 1 for o in order)]),)
        return (np.transpose(a, order),)

    @impl(lc.GatherOp)
    def run_gather(self, interp: ReferenceInterpreter, op: lc.GatherOp, args):
        src, idx = (np.asarray(x) for x in args)
        ax = op.axis.value.data
        n = op.source.type.get_shape()[ax]
        per = _dist_rank(src, op.source.type) or _dist_rank(idx, op.index.type)
        if per:
            lead = src.shape[0] if _dist_rank(src, op.source.type) else idx.shape[0]
            if not _dist_rank(src, op.source.type):
                src = np.broadcast_to(src[None], (lead, *src.shape))
            if not _dist_rank(idx, op.index.type):
                idx = np.broadcast_to(idx[None], (lead, *idx.shape))
        i64 = idx.astype(np.int64)
        if ((i64 < 0) | (i64 >= n)).any():
            bad = int(i64[(i64 < 0) | (i64 >= n)][0])
            raise ExecutionError(op, f"gather index {bad} outside [0, {n}) along axis {ax}")
        return (np.take_along_axis(src, i64, axis=ax + (1 if per else 0)),)

    @impl(lf.FunnelShiftOp)
    def run_funnel_shift(self, interp: ReferenceInterpreter, op: lf.FunnelShiftOp, args):
        lo, hi, sh = (np.asarray(x) for x in args)
        t, rt, st = op.lo.type, op.result.type, op.shift.type
        v = rt.get_shape()[-1]
        if any(_dist_rank(a, ty) for a, ty in ((lo, t), (hi, t), (sh, st))):
            lead = max(a.shape[0] for a, ty in ((lo, t), (hi, t), (sh, st)) if _dist_rank(a, ty))
            lo, hi = (a if _dist_rank(a, t) else np.broadcast_to(a[None], (lead, *a.shape)) for a in (lo, hi))
            if not _dist_rank(sh, st):
                sh = np.broadcast_to(sh[None], (lead, *sh.shape))
        s64 = sh.astype(np.int64)
        if ((s64 < 0) | (s64 >= v)).any():
            bad = int(s64[(s64 < 0) | (s64 >= v)].flat[0])
            raise ExecutionError(op, f"funnel_shift shift {bad} outside [0, {v})")
        window = np.ascontiguousarray(np.concatenate([lo, hi], axis=-1))
        out_dtype = np.dtype(f"int{rt.element_type.width.data}") if rt.element_type != t.element_type else window.dtype
        # the window's bytes as result elements (little-endian, as memory holds them)
        elems = window.view(np.uint8).view(out_dtype) if out_dtype != window.dtype else window
        picked = np.take_along_axis(elems, s64[..., None] + np.arange(v), axis=-1)
        return (picked,)

    @impl(lc.ReshapeOp)
    def run_reshape(self, interp: ReferenceInterpreter, op: lc.ReshapeOp, args):
        a = np.asarray(args[0])
        shape = tuple(op.result.type.get_shape())
        if _dist_rank(a, op.source.type):
            return (a.reshape((a.shape[0], *shape)),)
        return (a.reshape(shape),)

    @impl(lc.JoinOp)
    def run_join(self, interp: ReferenceInterpreter, op: lc.JoinOp, args):
        a, b = (np.asarray(x) for x in args)
        a, b = np.broadcast_arrays(a, b) if a.ndim != b.ndim else (a, b)
        return (np.stack([a, b], axis=-1),)

    @impl(lc.SplitOp)
    def run_split(self, interp: ReferenceInterpreter, op: lc.SplitOp, args):
        a = np.asarray(args[0])
        return (a[..., 0], a[..., 1])

    @impl_terminator(lc.YieldOp)
    def run_yield(self, interp: ReferenceInterpreter, op: lc.YieldOp, args):
        return ReturnedValues(args), ()

    @impl(lc.ScanRegionOp)
    def run_scan_region(self, interp: ReferenceInterpreter, op: lc.ScanRegionOp, args):
        return _run_scan_region(interp, op, args)

    @impl(lc.ScanOp)
    def run_scan(self, interp: ReferenceInterpreter, op: lc.ScanOp, args):
        t = op.source.type
        a = np.asarray(args[0])
        if not _dist_rank(a, t):
            a = a[None]
        ax = op.axis.value.data
        x = np.asarray(to_compute(a, t))
        try:
            plan = scan_plan(t, ax)
        except ScanPlanError:
            # a layout lower-to-gpu cannot scan (it says so): the scan in element order
            plan = ScanPlan(ax, t.get_shape()[ax], 1, 1, (), ())
        out = scan_like_a_gpu(x, plan, op.kind.data, op.is_reverse)
        return (from_compute(out, t),)


def _run_scan_region(interp: ReferenceInterpreter, op: lc.ScanRegionOp, args):
    t = op.srcs[0].type
    arrays = [np.asarray(a) for a in args]
    lead = max((a.shape[0] for a in arrays if _dist_rank(a, t)), default=1)
    arrays = [a if _dist_rank(a, t) else np.broadcast_to(a[None], (lead, *a.shape)) for a in arrays]
    ax = op.axis.value.data
    try:
        plan = scan_plan(t, ax)
    except ScanPlanError:
        plan = ScanPlan(ax, t.get_shape()[ax], 1, 1, (), ())
    saved = interp.grid
    interp.grid = None  # the combiner runs on whole arrays, not per thread

    def comb(a: tuple, c: tuple) -> tuple:
        return tuple(np.asarray(v) for v in interp.run_ssacfg_region(op.combiner, (*a, *c), "combiner"))

    try:
        return tuple(scan_tuples_like_a_gpu(arrays, plan, comb, op.is_reverse))
    finally:
        interp.grid = saved


_COMBINE = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def scan_like_a_gpu(x: np.ndarray, plan, kind: str, reverse: bool) -> np.ndarray:
    """`layout.scan` of per-block values x [blocks, *shape] along plan.axis with a
    built-in combiner (`scan_tuples_like_a_gpu` of one array)."""
    f = _COMBINE[kind]
    return scan_tuples_like_a_gpu([x], plan, lambda a, b: (f(a[0], b[0]),), reverse)[0]


def scan_tuples_like_a_gpu(xs: list, plan, comb, reverse: bool) -> list:
    """The inclusive scan of per-block arrays xs (each [blocks, *shape]) together
    along plan.axis, comb(tuple, tuple) -> tuple combining one element of each (the
    earlier elements on the left), in the order `lower-to-gpu` emits (docs/dialect.md,
    layout.scan): the axis position is r + R*(l + L*g), g = w + W*c for register, lane,
    warp and chunk positions (plan); each thread scans its R elements of a chunk in
    order; threads combine their totals by a Hillis-Steele scan over the L lanes (step
    1, 2, 4, ...: v[l] = v[l - d] op v[l]); each (warp, chunk)'s total goes through
    shared memory and a thread folds the totals of the g before its own in order; a
    thread's prefix is (warps' prefix op lanes' prefix), then each element is prefix op
    its in-thread scan. `reverse` is the same on the axis read backwards."""
    ax = plan.axis + 1
    dts = [x.dtype for x in xs]

    def cmb(a: tuple, b: tuple) -> tuple:
        return tuple(np.asarray(v).astype(dt, copy=False) for v, dt in zip(comb(a, b), dts))

    def where(c, a: tuple, b: tuple) -> tuple:
        return tuple(np.where(c, u, v) for u, v in zip(a, b))

    if reverse:
        xs = [np.flip(x, axis=ax) for x in xs]
    xs = [np.moveaxis(x, ax, -1) for x in xs]
    lead = xs[0].shape[:-1]
    # chunks continue the warp sequence: position r + R*(l + L*g), g = w + W*c
    R, L, W = plan.regs, plan.lanes, plan.warps * plan.chunks
    y = [x.reshape(*lead, W, L, R) for x in xs]
    with np.errstate(all="ignore"):
        p = [np.empty_like(a) for a in y]  # in-thread inclusive, in order
        acc = tuple(a[..., 0] for a in y)
        for r in range(R):
            if r:
                acc = cmb(acc, tuple(a[..., r] for a in y))
            for pa, v in zip(p, acc):
                pa[..., r] = v
        v = tuple(pa[..., -1] for pa in p)  # [.., W, L] thread totals
        pos = np.arange(L)
        d = 1
        while d < L:
            shifted = tuple(np.roll(u, d, axis=-1) for u in v)
            v = where(pos >= d, cmb(shifted, v), v)
            d *= 2
        lane_ex = tuple(np.roll(u, 1, axis=-1) for u in v)  # exclusive lane prefix, valid for l > 0
        totals = tuple(u[..., -1] for u in v)  # [.., W] per-warp totals
        warp_ex = tuple(np.empty_like(t) for t in totals)
        acc = tuple(t[..., 0] for t in totals)
        for w in range(1, W):
            for we_, a in zip(warp_ex, acc):
                we_[..., w] = a
            acc = cmb(acc, tuple(t[..., w] for t in totals))
        has_lane = (pos > 0)[None, :]
        has_warp = (np.arange(W) > 0)[:, None]
        we = tuple(np.broadcast_to(u[..., :, None], v[0].shape) for u in warp_ex)
        prefix = where(has_warp & has_lane, cmb(we, lane_ex), where(has_warp, we, lane_ex))
        has = has_warp | has_lane
        pre = tuple(u[..., None] for u in prefix)
        out = where(has[..., None], cmb(pre, tuple(p)), tuple(p))
    res = []
    for o in out:
        o = np.moveaxis(np.asarray(o).reshape(*lead, W * L * R), -1, ax)
        if reverse:
            o = np.flip(o, axis=ax)
        res.append(np.ascontiguousarray(o))
    return res
