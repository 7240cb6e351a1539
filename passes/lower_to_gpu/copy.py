"""`layout.copy` and `layout.copy_async` (the CuTe path: every thread copies its
fragment, vector accesses where lanes are contiguous and aligned), `layout.barrier`
and `layout.async_wait`."""


from __future__ import annotations

from dataclasses import replace

from xdsl.dialects import gpu, scf
from xdsl.ir import Block, Region

from tilec.dialects import cuda, layout
from tilec.dialects.layout_attrs import (
    element_bytes,
)

from .._gpu_builder import DynamicIndex, IndexValue, index
from . import access
from .base import (
    _fail,
    lowers,
)
from .context import OpFamily
from .view_values import (
    View,
    _eval_coords,
    _lane_coords,
    _lane_order,
    _mode_coords,
    _mode_size,
    _vec_text,
)

UNROLL_LIMIT = 64
"""Copies of at most this many accesses are unrolled in Python; longer ones become a
static `scf.for` (which the CUDA printer unrolls with `#pragma unroll`)."""


class CopyLowering(OpFamily):
    # -------------------------------------------------------------- simple ops
    @lowers(layout.BarrierOp)
    def op_layout_barrier(self, op):
        self.b.add(gpu.BarrierOp())

    @lowers(layout.AsyncWaitOp)
    def op_layout_async_wait(self, op: layout.AsyncWaitOp):
        if op.commit is not None:
            self.b.add(cuda.CpAsyncCommitOp())
        self.b.add(cuda.CpAsyncWaitOp(op.groups_in_flight()))

    # -------------------------------------------------------------- copies (CuTe path)
    @lowers(layout.CopyOp)
    def op_layout_copy(self, op: layout.CopyOp):
        if op.convert is not None:
            raise _fail(
                op,
                "lower-to-gpu: a converting copy (convert = ...) must be distributed "
                "first (its conversion happens between a load and a store)",
            )
        if op.strategy_name in ("tma", "async"):
            fix = ("the tma pass makes it a TMA copy" if op.strategy_name == "tma"
                   else "distribute and vectorize make it cp.async")
            raise _fail(op, f"lower-to-gpu: a copy with strategy {op.strategy_name} reached the lowering as a "
                            f"plain copy ({fix}: run them, e.g. -p default)")
        self.copy(op, asynchronous=False)

    @lowers(layout.CopyAsyncOp)
    def op_layout_copy_async(self, op: layout.CopyAsyncOp):
        self.copy(op, asynchronous=True)
        self.b.add(cuda.CpAsyncCommitOp())
        if op.token is not None:
            self.values.set_token(op.token)  # program order says what a wait on it keeps in flight

    def copy(self, op, asynchronous: bool):
        s: View = self.values.view(op.source)
        d: View = self.values.view(op.dest)

        def emit(masked: bool) -> list:
            if masked:
                self._copy(op, asynchronous, s, d)
            else:
                self._copy(op, asynchronous, replace(s, mask=None), replace(d, mask=None))
            return []

        access.fast_path(self.b, [s, d], emit)

    def _copy(self, op, asynchronous: bool, s: View, d: View):
        b = self.b
        for v in (s, d):
            for m in v.layout:
                for sz, _ in m:
                    if not isinstance(sz, int):
                        raise _fail(op, "copies of views with dynamic extents must be tiled first")
        # lanes of a vector are taken fastest-stride mode first when both sides have
        # vectors of the same shape (the pairing of lanes is unchanged), so that a 2x2
        # vector of row-major tiles is two runs of 2 contiguous lanes
        order = _lane_order(s, d)
        ns, rs = access.vec_info(self.b, s, order)
        nd, rd = access.vec_info(self.b, d, order)
        if ns == 0 or nd == 0:
            raise _fail(op, "vectorized views need static vector layouts")
        outer_s = 1
        for m in s.layout:
            outer_s *= _mode_size(b, m)
        total = outer_s * ns
        eb = element_bytes(s.elem)
        # chunk: number of scalars moved per access, the widest run both sides share
        # (a 2x2 vector of row-major tiles moves as two 2-element accesses)
        chunk = min(rs, rd)
        if asynchronous and chunk * eb not in (4, 8, 16):
            raise _fail(
                op,
                f"copy_async of {ns}-element vectors ({_vec_text(s)}) into {nd}-element "
                f"vectors ({_vec_text(d)}): their common contiguous, aligned run is "
                f"{chunk} element(s) = {chunk * eb} bytes, and cp.async moves 4, 8 or 16 "
                "bytes; vectorize along the contiguous mode",
            )
        steps = total // chunk

        def body(i: IndexValue):
            # scalar logical index e = i*chunk + j; per side (outer index, lane)
            def locate(v: View, n: int, e: IndexValue):
                oi = b.div_(e, n)
                lane = b.rem_(e, n)
                coords = _mode_coords(b, v.layout, oi)
                inner = _eval_coords(b, v.layout, coords)
                lanes = None
                if v.vec is not None:
                    lanes = _lane_coords(b, v.vec, lane, order)
                    inner = b.add_(inner, _eval_coords(b, v.vec, lanes))
                return access.offset(self.b, v, inner), access.valid(self.b, v, coords, lanes)

            e0 = b.mul_(i, chunk)
            if chunk > 1:
                so, sv_ = locate(s, ns, e0)
                do, dv_ = locate(d, nd, e0)
                lane_ok = [b.land(self._lane_valid(s, e0, j, ns, order), self._lane_valid(d, e0, j, nd, order)) for j in range(chunk)]
                cond = b.land(sv_, dv_)
                if asynchronous:
                    access.guarded(self.b, b.land(cond, access.all_true(self.b, lane_ok)), lambda: b.add(cuda.CpAsyncOp(d.mem, b.ssa(do), s.mem, b.ssa(so), chunk * eb)))
                    return
                full = access.all_true(self.b, lane_ok)
                if full is True or access.same_condition(self.b, lane_ok):
                    c = b.land(cond, lane_ok[0])
                    if c is True and deferred is not None:
                        x = access.load_vec(self.b, s, so, chunk)
                        deferred.append(lambda: access.store_vec(self.b, d, x, do))
                        return
                    access.guarded(self.b, c, lambda: access.store_vec(self.b, d, access.load_vec(self.b, s, so, chunk), do))
                    return
                # partially valid vectors: per lane
                for j in range(chunk):
                    ej = b.add_(e0, j)
                    so_j, sv_j = locate(s, ns, ej)
                    do_j, dv_j = locate(d, nd, ej)
                    access.guarded(self.b, b.land(sv_j, dv_j), lambda so_j=so_j, do_j=do_j: access.store_scalar(self.b, d, access.load_scalar(self.b, s, so_j), do_j))
                return
            so, sv_ = locate(s, ns, e0)
            do, dv_ = locate(d, nd, e0)
            c = b.land(sv_, dv_)
            if c is True and deferred is not None:
                x = access.load_scalar(self.b, s, so)
                deferred.append(lambda: access.store_scalar(self.b, d, x, do))
                return
            access.guarded(self.b, c, lambda: access.store_scalar(self.b, d, access.load_scalar(self.b, s, so), do))

        deferred = None
        if steps <= UNROLL_LIMIT:
            # all loads first, then all stores: the loads are in flight together
            deferred = [] if s.mem is not d.mem else None
            for i in range(steps):
                body(i)
            for st in deferred or ():
                st()
        else:
            lb, ub, st = b.ssa(0), b.ssa(steps), b.ssa(1)
            blk = Block(arg_types=[index])
            loop = scf.ForOp(lb, ub, st, [], Region(blk))
            b.add(loop)
            with b.at(blk):
                body(DynamicIndex(b, blk.args[0]))
                b.add(scf.YieldOp())

    def _lane_valid(self, v: View, e0: IndexValue, j: int, n: int, order=None) -> IndexValue:
        """Whether scalar e0 + j (e0 a multiple of the chunk, which divides n) exists."""
        if v.mask is None:
            return True
        b = self.b
        if v.vec is None:
            return True
        e = b.add_(e0, j)
        oi = b.div_(e, n)
        coords = _mode_coords(b, v.layout, oi)
        lanes = _lane_coords(b, v.vec, b.rem_(e, n), order)
        return access.valid(self.b, v, coords, lanes)
