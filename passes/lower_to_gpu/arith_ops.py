"""Scalar and elementwise `arith`/`math` ops (and `vector` splats and lanes), and the ops that make distributed values
from scalars: `layout.splat`, `arange`, `expand_dims`, `broadcast`."""


from __future__ import annotations

from xdsl.dialects import arith, vector
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
    f32,
    i32,
)
from xdsl.ir import Operation, SSAValue

from tilec.dialects import cuda, layout
from tilec.dialects.layout_attrs import PtrType
from tilec.dialects.math_functions import approximate_division, is_fast

from .._gpu_builder import DynamicIndex
from . import ptr, registers
from .base import (
    _fail,
    lowers,
)
from .._float_range import float_range
from .context import OpFamily
from .lowered_values import RegisterTensor


class ArithLowering(OpFamily):
    # -------------------------------------------------------------- arith
    def arith_op(self, op: Operation):
        b = self.b
        if isinstance(op, arith.ConstantOp):
            t = op.result.type
            val = op.value
            if isinstance(t, TensorType):
                ll = registers.linear(t, op)
                if not (isinstance(val, DenseIntOrFPElementsAttr) and val.is_splat()):
                    raise _fail(op, "only splat constants of distributed tensors are supported")
                scalar = val.get_values()[0]
                et = t.element_type
                attr = FloatAttr(scalar, et) if not isinstance(et, IntegerType | IndexType) else IntegerAttr(int(scalar), et)
                c = b.add(arith.ConstantOp(attr)).results[0]
                self.values.set_registers(op.result, [c] * ll.num_registers)
                return
            if isinstance(t, IndexType):
                self.values.set_index(op.result, val.value.data)
                return
            c = b.add(op.clone()).results[0]
            self.values.set_scalar(op.result, c)
            return
        rt = [r.type for r in op.results]
        if any(isinstance(t, TensorType) for t in [*rt, *(o.type for o in op.operands)]):
            lowered = [self.values.get(o) for o in op.operands]
            regs = [x.registers if isinstance(x, RegisterTensor) else None for x in lowered]
            n = None
            for r in regs:
                if r is not None:
                    n = len(r)
            if n is None or any(r is None or len(r) != n for r in regs):
                raise _fail(op, "elementwise ops need distributed operands of one layout")
            if isinstance(op, arith.DivfOp) and (g := division_group(op)) > 1 and n >= g:
                self.values.set_registers(op.result, self.grouped_division(op, regs[0], regs[1], g))
                return
            if isinstance(op, xmath.Exp2Op) and cuda.EXP2_FMA_ATTR in op.attributes:
                self.values.set_registers(op.result, self.exp2_shared(op, regs[0]))
                return
            outs = [[] for _ in op.results]
            for k in range(n):
                new = op.create(
                    operands=[r[k] for r in regs],
                    result_types=[t.element_type if isinstance(t, TensorType) else t for t in rt],
                    properties=dict(op.properties),
                    attributes=dict(op.attributes),
                )
                b.add(new)
                for j, res in enumerate(new.results):
                    outs[j].append(res)
            for res, lst in zip(op.results, outs):
                self.values.set_registers(res, lst)
            return
        # scalar arith: fold index arithmetic where possible
        ops = [self.values.scalar_or_index(o) for o in op.operands]
        if all(isinstance(x, int) for x in ops) and isinstance(op.results[0].type, IndexType):
            fold = {
                arith.AddiOp: lambda a, c: a + c, arith.SubiOp: lambda a, c: a - c,
                arith.MuliOp: lambda a, c: a * c,
            }.get(type(op))
            if fold is not None:
                self.values.set_index(op.results[0], fold(*ops))
                return
        new = op.create(
            operands=[x if isinstance(x, SSAValue) else b.ssa(x) for x in ops],
            result_types=rt, properties=dict(op.properties), attributes=dict(op.attributes),
        )
        b.add(new)
        for r, n in zip(op.results, new.results):
            if isinstance(n.type, IndexType):
                self.values.set_index(r, DynamicIndex(b, n))
            else:
                self.values.set_scalar(r, n)

    def grouped_division(self, op: arith.DivfOp, xs: list[SSAValue], ds: list[SSAValue], g: int) -> list[SSAValue]:
        """The quotients xs[k] / ds[k] of a thread's registers, `g` at a time through one
        `cuda.div_approx_group` (`division_group`); the registers past the last whole
        group (and those of a smaller group where two are left) likewise, one left
        alone as `op` on its element."""
        out: list[SSAValue] = []
        k = 0
        while k < len(xs):
            size = next((s for s in (g, 2) if k + s <= len(xs)), 1)
            if size == 1:
                one = op.create(operands=[xs[k], ds[k]], result_types=[op.result.type.element_type],
                                properties=dict(op.properties), attributes=dict(op.attributes))
                out.append(self.b.add(one).results[0])
            else:
                out.extend(self.b.add(cuda.DivApproxGroupOp(xs[k:k + size], ds[k:k + size])).results)
            k += size
        return out

    def exp2_shared(self, op: xmath.Exp2Op, xs: list[SSAValue]) -> list[SSAValue]:
        """2^x of a thread's registers for a `math.exp2` with `cuda.EXP2_FMA_ATTR` = k: on
        the FMA pipe (`cuda.ex2_fma`) in k of every 8 registers (`cuda.ex2_fma_registers`),
        `op` on its element (one `ex2.approx`, with `fastmath<afn>`) in the others."""
        k = op.attributes[cuda.EXP2_FMA_ATTR].value.data
        if not (is_fast(op) and op.result.type.element_type == f32 and 1 <= k <= 8):
            raise _fail(op, f"{cuda.EXP2_FMA_ATTR} {k}: an f32 math.exp2 with fastmath<afn> and 1 to 8 eighths")
        attrs = {a: v for a, v in op.attributes.items() if a != cuda.EXP2_FMA_ATTR}
        out = []
        for x, fma in zip(xs, cuda.ex2_fma_registers(len(xs), k)):
            one = cuda.Ex2FmaOp(x) if fma else op.create(operands=[x], result_types=[f32],
                                                         properties=dict(op.properties), attributes=attrs)
            out.append(self.b.add(one).results[0])
        return out

    @lowers(vector.BroadcastOp, vector.ExtractOp, vector.InsertOp, vector.BitcastOp)
    def op_vector_scalar(self, op: Operation):
        """A vector splat from a scalar, a lane of a vector, a vector with one lane
        replaced (the Python builder's `V[x, y] * s`), a vector's bytes as another vector
        type (the `tiles` box's interleaving, passes/_box_tile.py): per-thread values,
        kept as they are."""
        self.arith_op(op)

    @lowers(cuda.OpaqueOp, cuda.BytePermOp)
    def op_opaque(self, op: cuda.OpaqueOp | cuda.BytePermOp):
        """An opaque scalar (`cuda.opaque`) or a byte permutation of two words
        (`cuda.byte_perm`), inside a launch: kept as it is, on the lowered values."""
        self.arith_op(op)

    @lowers(layout.SplatOp)
    def op_layout_splat(self, op: layout.SplatOp):
        if isinstance(op.value.type, PtrType):
            ptr.splat_pointer(self.ctx, op)
            return
        ll = registers.linear(op.result.type, op)
        self.values.set_registers(op.result, [self.ctx.ssa(op.value)] * ll.num_registers)

    @lowers(layout.ArangeOp)
    def op_layout_arange(self, op: layout.ArangeOp):
        b = self.b
        t = op.result.type
        ll = registers.linear(t, op)
        tco = registers.thread_coords(self.ctx, ll, op)[0]
        start = op.start.value.data
        tmask = registers.thread_mask(ll)[0]
        out = []
        for rc in registers.reg_coords(ll):
            if rc[0] & tmask == 0:
                x = b.add_(b.add_(tco, rc[0]), start)
            else:
                x = b.add_(b.xor_(tco, rc[0]), start)
            s = b.ssa(x)
            out.append(b.add(arith.IndexCastOp(s, i32)).results[0] if isinstance(s.type, IndexType) else s)
        # constants were index: cast them too
        out = [o if o.type == i32 else b.add(arith.IndexCastOp(o, i32)).results[0] for o in out]
        self.values.set_registers(op.result, out)

    @lowers(layout.ExpandDimsOp)
    def op_layout_expand_dims(self, op: layout.ExpandDimsOp):
        ax = op.axis.value.data
        src = registers.linear(op.source.type, op)
        dst = registers.linear(op.result.type, op)
        xs = self.values.registers(op.source)
        self.values.set_registers(
            op.result, registers.permute(xs, src, dst, op, project=lambda c: [x for d, x in enumerate(c) if d != ax]))

    @lowers(layout.BroadcastOp)
    def op_layout_broadcast(self, op: layout.BroadcastOp):
        ss = list(op.source.type.get_shape())
        src = registers.linear(op.source.type, op)
        dst = registers.linear(op.result.type, op)
        xs = self.values.registers(op.source)
        self.values.set_registers(
            op.result, registers.permute(xs, src, dst, op, project=lambda c: [0 if ss[d] == 1 else x for d, x in enumerate(c)]))


def division_group(op: arith.DivfOp) -> int:
    """How many quotients of the distributed `op` one approximate reciprocal serves: G of
    `cuda.DIV_GROUP_SIZES` where `op` is an f32 `arith.divf` with `fastmath<afn>`
    (`approximate_division`) whose divisors `float_range` knows to be numbers (never NaN)
    within [2^(-124/G), 2^(124/G)] (`cuda.div_group_size`); 1 (one `div.approx` a
    quotient) elsewhere. The rule: one `MUFU.RCP` for G quotients, within 2^-21 of each
    (`cuda.DivApproxGroupOp`) where `div.approx` is within 2^-22, where the range makes it
    safe: SiLU's sigmoid, 1 / (1 + 2^(-|y| log2 e)), divides by numbers in (1, 2]."""
    if not approximate_division(op):
        return 1
    r = float_range(op.rhs)
    if r.nan or not r.lo > 0:
        return 1
    return cuda.div_group_size(r.lo, r.hi)
