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
from tilec.dialects.linear import conversion_kind

from .._gpu_builder import IndexValue
from .._shuffle_plan import ShufflePlanError, plan_shuffles
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

        Emits what `_shuffle_plan.plan_shuffles` plans (its module doc: the conversion
        map, the paired and per-reader forms):
        - paired: round k, the sender sends its register `round.register` ^ g(sender)
          (g: `sender_key`, selects over `sender_span`) to lane_part(reader) ^
          `round.lane`; the reader's register r came in round r ^ f(reader) (f:
          `reader_offsets`, selects over `reader_span`);
        - per reader: each reader selects, for its register r, among the shuffles of
          registers `round.register` ^ k (k over `sender_span`) of lane lane_part ^
          `round.lane` the one whose k is its kr (`sender_key`), each distinct
          (register, lane) shuffled once.
        Results equal the source registers bit for bit (shuffles only move values)."""
        b = self.b
        try:
            plan = plan_shuffles(src, dst)
        except ShufflePlanError as e:
            raise _fail(op, str(e)) from None
        note = self.ctx.comment("convert_layout via warp shuffles")  # counts filled in below
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

        def pick(base: int, span, key: IndexValue, values) -> SSAValue:
            """values(base ^ s) for the s of `span` equal to the run-time `key`."""
            val = values(base)
            for s in span:
                if s:
                    val = b.add(arith.SelectOp(b.ssa(b.eq_(key, s)), values(base ^ s), val)).results[0]
            return val

        def key_of(pieces, span) -> IndexValue:
            return registers.tid_linear(self.ctx, list(pieces)) if len(span) > 1 else 0

        nshfl = nsel = 0
        out = []
        span = plan.sender_span
        if plan.paired:
            gkey = key_of(plan.sender_key, span)
            lane_part = registers.tid_linear(self.ctx, list(plan.lane_pieces))
            rounds = []
            for rd in plan.rounds:
                sent = pick(rd.register, span, gkey, lambda x: xs[x])
                nsel += len(span) - 1
                if not rd.shuffle:
                    rounds.append(sent)  # every lane reads its own lane
                    continue
                rounds.append(b.add(cuda.ShflIdxOp(sent, lane_of(rd.lane), 32)).results[0])
                nshfl += 1
            fspan = plan.reader_span
            fkey = key_of(enumerate(plan.reader_offsets), fspan)
            for r in range(len(plan.rounds)):
                out.append(pick(r, fspan, fkey, lambda x: rounds[x]))
                nsel += len(fspan) - 1
        else:
            lane_part = registers.tid_linear(self.ctx, list(plan.lane_pieces))
            key = key_of(plan.sender_key, span)
            shuffled: dict = {}

            def shfl(k: int, lane: SSAValue) -> SSAValue:
                nonlocal nshfl
                if (k, lane) not in shuffled:
                    shuffled[(k, lane)] = b.add(cuda.ShflIdxOp(xs[k], lane, 32)).results[0]
                    nshfl += 1
                return shuffled[(k, lane)]

            for rd in plan.rounds:
                lane = lane_of(rd.lane)
                out.append(pick(rd.register, span, key, lambda k, lane=lane: shfl(k, lane)))
                nsel += len(span) - 1
        how = "via warp shuffles" if nshfl else "in registers, chosen per lane"
        note.properties["text"] = StringAttr(
            f"convert_layout {how}: {_count(nshfl, 'shuffle')}, {_count(nsel, 'select')}"
            " per thread, 0 bank conflicts (no shared memory)")
        return out
