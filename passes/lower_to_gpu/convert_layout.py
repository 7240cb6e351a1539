"""`layout.convert_layout` within warps: register permutations and `cuda.shfl_idx`
shuffles planned from the linear layouts (passes/_shuffle_plan.py)."""


from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    StringAttr,
    i32,
)
from xdsl.ir import SSAValue

from tilec.dialects import cuda, layout
from tilec.dialects.errors import LayoutError
from tilec.dialects.layout_attrs import (
    to_linear,
)
from tilec.dialects.layout_ptr import is_pointer_tensor, pointer_conversion_message
from tilec.dialects.linear import LinearLayout, conversion_kind

from .._gpu_builder import IndexValue
from .._shuffle_plan import apply_bits, lane_offsets, span_of
from . import registers
from .base import (
    _count,
    _fail,
    lowers,
)
from .context import OpFamily


class ConvertLayoutLowering(OpFamily):
    # -------------------------------------------------------------- distributed ops
    @lowers(layout.ConvertLayoutOp)
    def op_layout_convert_layout(self, op: layout.ConvertLayoutOp):
        s, r = op.source.type, op.result.type
        shape = list(s.get_shape())
        try:
            kind = conversion_kind(to_linear(s.encoding, shape), to_linear(r.encoding, shape))
        except LayoutError as e:
            raise _fail(op, str(e)) from None
        src, dst = registers.linear(s, op), registers.linear(r, op)
        if is_pointer_tensor(s) and kind not in ("identity", "register"):
            raise _fail(op, pointer_conversion_message(kind))
        if op.lowering is not None and op.lowering.data == "shuffle":
            self.values.set_registers(op.result, self.shuffle_convert(op, self.values.registers(op.source), src, dst))
            return
        if kind in ("identity", "register") and registers.is_permutation(src, dst):
            self.ctx.comment("convert_layout in registers: a renaming of registers, no data "
                         "moves between threads, 0 bank conflicts (no shared memory)")
            self.values.set_registers(op.result, registers.permute(self.values.registers(op.source), src, dst, op))
            return
        if kind in ("register", "warp_shuffle"):
            # (a 'register' conversion whose register choice depends on the lane: selects)
            self.values.set_registers(op.result, self.shuffle_convert(op, self.values.registers(op.source), src, dst))
            return
        raise _fail(op, f"a '{kind}' layout conversion must be lowered by lower-convert-layout first")

    def shuffle_convert(self, op, xs: list, src, dst) -> list:
        """Registers of `dst` from the registers `xs` of `src` when the conversion stays
        within each warp (`conversion_kind` is `warp_shuffle`): one `cuda.shfl_idx` per
        destination register where it can be arranged, `arith.select`s choosing registers.

        The conversion map: for destination register r of the thread (lane l, warp w),
        the source (register, lane) of the same warp that holds its element. Both are
        linear in (r, l, w), since the warp parts of src and dst differ by an element of
        the span of src's register and lane bases:
            src_reg  = cr(r) ^ kr(l, w)        src_lane = cl(r) ^ kl(l, w)
        - When kl restricted to lanes is a bijection (each lane is read by exactly one
          lane per shuffle), the sending lane p works out which reader reads it and
          sends that reader's register: register c(r) ^ g(p, w) of the sender, g linear
          in the sender's thread id, picked with selects; one shuffle per register.
        - Otherwise each reader picks: one shuffle per value of kr (for each k in the
          span of kr's images, every lane sends register cr(r) ^ k) and the reader
          selects the one whose k is its kr(l, w).
        Results equal the source registers bit for bit (shuffles only move values)."""
        b = self.b
        rank = src.rank

        def xor(u, v):
            return tuple(p ^ q for p, q in zip(u, v))

        target = LinearLayout({
            "register": dst.get_bases("register"), "lane": dst.get_bases("lane"),
            "warp": [xor(x, y) for x, y in zip(dst.get_bases("warp"), src.get_bases("warp"))],
        }, list(dst.out_shape))
        within = LinearLayout({"register": src.get_bases("register"), "lane": src.get_bases("lane")},
                              list(src.out_shape))
        if len(src.get_bases("lane")) != 5 or len(dst.get_bases("lane")) != 5:
            raise _fail(op, "warp shuffles need 32 lanes per warp")
        if src.get_bases("block") or dst.get_bases("block"):
            raise _fail(op, "distributed layouts over several blocks are not supported")
        try:
            cmap = target.invert_and_compose(within)
        except LayoutError:
            raise _fail(op, "the conversion moves data between warps: not a warp shuffle") from None
        assert rank == dst.rank
        note = self.ctx.comment("convert_layout via warp shuffles")  # counts filled in below

        def where(**inp) -> tuple[int, int]:
            out = dict(zip(cmap.out_dims, cmap.apply(**inp)))
            return out.get("register", 0), out.get("lane", 0)

        # images of the reader's thread-id bits: lane bits 0..4, warp bits 5..
        tid_bits = [(i, where(lane=1 << i)) for i in range(5)]
        tid_bits += [(5 + j, where(warp=1 << j)) for j in range(len(dst.get_bases("warp")))]
        kl = [(i, c[1]) for i, c in tid_bits]
        kr = [(i, c[0]) for i, c in tid_bits]
        lane_part: IndexValue = 0  # the reader's lane-dependent part of the source lane
        lanes_i32: dict = {}

        def lane_of(cl: int) -> SSAValue:
            x = b.ssa(b.xor_(lane_part, cl))
            if x not in lanes_i32:
                if isinstance(x.owner, arith.ConstantOp):
                    lanes_i32[x] = b.const(x.owner.value.value.data, i32)
                else:
                    lanes_i32[x] = b.add(arith.IndexCastOp(x, i32)).results[0]
            return lanes_i32[x]

        def pick(base: int, span: list[int], key: IndexValue, values) -> SSAValue:
            """values(base ^ s) for the s of `span` equal to the run-time `key`."""
            val = values(base)
            for s in span:
                if s:
                    val = b.add(arith.SelectOp(b.ssa(b.eq_(key, s)), values(base ^ s), val)).results[0]
            return val

        nshfl = nsel = 0
        out = []

        n_dst_reg = len(dst.get_bases("register"))
        cl_r = [where(register=1 << j)[1] for j in range(n_dst_reg)]
        cr_r = [where(register=1 << j)[0] for j in range(n_dst_reg)]
        free = [1 << i for i, bs in enumerate(src.get_bases("lane")) if not any(bs)]
        offsets = lane_offsets([v for i, v in kl if i < 5], cl_r, free)
        if offsets is not None:
            f_l = [x for x, _ in offsets]
            # round k: reader lane l receives its register k ^ f(l) from lane
            # p = cl(k) ^ m(l) ^ kl_warp(w), m = kl_lane ^ cl o f invertible, so the
            # sender p knows its reader and sends register c(k) ^ g(p, w)
            m = [v ^ apply_bits(cl_r, x) ^ z for (i, v), (x, z) in zip(kl[:5], offsets)]
            inv = LinearLayout({"lane": [(v,) for v in m]}, [32]).invert()

            def reader_of(p: int) -> int:
                return inv.apply(dim0=p)[0]

            nr = [v ^ apply_bits(cr_r, f) for (i, v), f in zip(kr[:5], f_l)]  # lane -> src register
            g = [(i, apply_bits(nr, reader_of(1 << i))) for i in range(5)]
            g += [(i, apply_bits(nr, reader_of(lv)) ^ rv) for (i, lv), (_, rv) in zip(kl[5:], kr[5:])]
            span = span_of([v for _, v in g])
            gkey = registers.tid_linear(self.ctx, g) if len(span) > 1 else 0
            lane_part = registers.tid_linear(self.ctx, [(i, v) for (i, _), v in zip(kl[:5], m)] + kl[5:])
            identity = all(v == 1 << i for i, v in enumerate(m)) and not any(v for _, v in kl[5:])
            rounds = []
            for k in range(dst.num_registers):
                cl = apply_bits(cl_r, k)
                c = apply_bits(cr_r, k) ^ apply_bits(nr, reader_of(cl))
                sent = pick(c, span, gkey, lambda x: xs[x])
                nsel += len(span) - 1
                if identity and cl == 0:
                    rounds.append(sent)  # every lane reads its own lane
                    continue
                rounds.append(b.add(cuda.ShflIdxOp(sent, lane_of(cl), 32)).results[0])
                nshfl += 1
            # the reader's register r came in round r ^ f(l)
            fspan = span_of(f_l)
            fkey = registers.tid_linear(self.ctx, [(i, f) for i, f in enumerate(f_l)]) if len(fspan) > 1 else 0
            for r in range(dst.num_registers):
                out.append(pick(r, fspan, fkey, lambda x: rounds[x]))
                nsel += len(fspan) - 1
        else:
            lane_part = registers.tid_linear(self.ctx, kl)
            span = span_of([v for _, v in kr])
            key = registers.tid_linear(self.ctx, kr) if len(span) > 1 else 0
            shuffled: dict = {}

            def shfl(k: int, lane: SSAValue) -> SSAValue:
                nonlocal nshfl
                if (k, lane) not in shuffled:
                    shuffled[(k, lane)] = b.add(cuda.ShflIdxOp(xs[k], lane, 32)).results[0]
                    nshfl += 1
                return shuffled[(k, lane)]

            for r in range(dst.num_registers):
                cr, cl = where(register=r)
                lane = lane_of(cl)
                out.append(pick(cr, span, key, lambda k, lane=lane: shfl(k, lane)))
                nsel += len(span) - 1
        how = "via warp shuffles" if nshfl else "in registers, chosen per lane"
        note.properties["text"] = StringAttr(
            f"convert_layout {how}: {_count(nshfl, 'shuffle')}, {_count(nsel, 'select')}"
            " per thread, 0 bank conflicts (no shared memory)")
        return out
