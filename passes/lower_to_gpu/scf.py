"""`scf.for` / `scf.if` / `scf.while` whose carried values or results are distributed
tensors: one iter_arg / result per register of the thread."""


from __future__ import annotations

from xdsl.dialects import scf
from xdsl.dialects.builtin import (
    IndexType,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region

from tilec.dialects.cuda import UNROLL_ATTR
from tilec.dialects.layout_attrs import (
    PtrType,
    TensorViewType,
)

from .._gpu_builder import DynamicIndex, index
from . import registers
from .base import (
    _fail,
    lowers,
)
from .context import OpFamily
from .lowered_values import LoweredIndex, LoweredScalar, RegisterTensor


class ScfLowering(OpFamily):
    # -------------------------------------------------------------- scf
    def carrier(self, t: Attribute, op: Operation):
        """How a value of type t crosses a region boundary (loop-carried value, if
        result): (types of its SSA values, pack: the value -> the SSA values that carry
        it, unpack: those SSA values -> its lowered value, lowered_values.py). A
        distributed tensor is its per-thread registers, one SSA value per distinct
        element (broadcast copies share one); an index is an SSA index; other scalars
        are themselves. Views cannot be carried."""
        b = self.b
        if isinstance(t, TensorType) and t.encoding is not None:
            regs = registers.reg_coords(registers.linear(t, op))
            slot: dict = {}
            for r, c in enumerate(regs):
                slot.setdefault(c, len(slot))
            firsts = [regs.index(c) for c in slot]
            et = index if isinstance(t.element_type, PtrType) else t.element_type  # offsets (ptr.py)
            return ([et] * len(slot), lambda v: [self.values.registers(v)[r] for r in firsts],
                    lambda vs: RegisterTensor(tuple(vs[slot[c]] for c in regs), t))
        if isinstance(t, IndexType):
            return [t], lambda v: [self.ctx.ssa(v)], lambda vs: LoweredIndex(DynamicIndex(b, vs[0]))
        if isinstance(t, TensorViewType | PtrType | TensorType):
            raise _fail(op, f"a {t} cannot be carried through {op.name}")
        return [t], lambda v: [self.ctx.ssa(v)], lambda vs: LoweredScalar(vs[0])

    def lower_region_body(self, src: Block, dst: Block, carriers: list):
        """Lower the ops of `src` into `dst`; its scf.yield yields the packed values."""
        with self.b.at(dst):
            for o in src.ops:
                if isinstance(o, scf.YieldOp):
                    flat = [v for c, x in zip(carriers, o.operands) for v in c[1](x)]
                    self.b.add(scf.YieldOp(*flat))
                else:
                    self.ctx.lower(o)

    def _unpack_all(self, carriers: list, values: list, targets: list):
        it = iter(values)
        for c, t in zip(carriers, targets):
            self.values.set(t, c[2]([next(it) for _ in c[0]]))

    @lowers(scf.ForOp)
    def op_scf_for(self, op: scf.ForOp):
        """scf.for: bounds lowered as index values; each iter_arg becomes the SSA values
        of its carrier (a distributed tensor: one iter_arg per register)."""
        b = self.b
        carriers = [self.carrier(v.type, op) for v in op.iter_args]
        inits = [v for c, x in zip(carriers, op.iter_args) for v in c[1](x)]
        body = Block(arg_types=[index, *[t for c in carriers for t in c[0]]])
        loop = b.add(scf.ForOp(b.ssa(self.values.index(op.lb)), b.ssa(self.values.index(op.ub)), b.ssa(self.values.index(op.step)),
                               inits, Region(body)))
        if UNROLL_ATTR in op.attributes:
            loop.attributes[UNROLL_ATTR] = op.attributes[UNROLL_ATTR]
        src = op.body.block
        if src.args[0].name_hint:
            body.args[0].name_hint = src.args[0].name_hint
        self.values.set_index(src.args[0], DynamicIndex(b, body.args[0]))
        self._unpack_all(carriers, list(body.args[1:]), list(src.args[1:]))
        self.lower_region_body(src, body, carriers)
        self._unpack_all(carriers, list(loop.results), list(op.results))

    @lowers(scf.IfOp)
    def op_scf_if(self, op: scf.IfOp):
        """scf.if: the condition as an i1; results are carried as in `op_scf_for`."""
        b = self.b
        carriers = [self.carrier(r.type, op) for r in op.results]
        types = [t for c in carriers for t in c[0]]
        then = Block()
        other = Block() if op.false_region.blocks else None
        self.lower_region_body(op.true_region.block, then, carriers)
        if other is not None:
            self.lower_region_body(op.false_region.block, other, carriers)
        cond = self.ctx.ssa(op.cond)
        new = b.add(scf.IfOp(cond, types, Region(then), Region(other) if other is not None else Region()))
        self._unpack_all(carriers, list(new.results), list(op.results))

    @lowers(scf.WhileOp)
    def op_scf_while(self, op: scf.WhileOp):
        """scf.while: the values entering `before` (the operands, then what `after`
        yields) and the values `scf.condition` forwards to `after` and to the results
        are carried as in `op_scf_for`; the condition is an i1 of each thread."""
        b = self.b
        into = [self.carrier(v.type, op) for v in op.arguments]
        out = [self.carrier(r.type, op) for r in op.results]
        inits = [v for c, x in zip(into, op.arguments) for v in c[1](x)]
        before = Block(arg_types=[t for c in into for t in c[0]])
        after = Block(arg_types=[t for c in out for t in c[0]])
        self._unpack_all(into, list(before.args), list(op.before_region.block.args))
        self._unpack_all(out, list(after.args), list(op.after_region.block.args))
        with b.at(before):
            for o in op.before_region.block.ops:
                if isinstance(o, scf.ConditionOp):
                    flat = [v for c, x in zip(out, o.args) for v in c[1](x)]
                    b.add(scf.ConditionOp(self.ctx.ssa(o.condition), *flat))
                else:
                    self.ctx.lower(o)
        self.lower_region_body(op.after_region.block, after, into)
        new = b.add(scf.WhileOp(inits, [t for c in out for t in c[0]], Region(before), Region(after)))
        self._unpack_all(out, list(new.results), list(op.results))

