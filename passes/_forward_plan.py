"""Forward propagation of a conversion's source layout through its users, for
`remove-layout-conversions` (not a pass): instead of converting `x` (layout S) to T, the
values computed from the converted value are made in S, and a conversion back to T goes
where a value leaves that region (Triton carries a loaded layout through a loop and
converts once after it).

The region (`ForwardPlan.values`) grows from the conversion's result through:
elementwise ops (their results), the yield of a uniform `scf.if` (the if's result) and
the yield or the start of a uniform `scf.for` slot (the slot's body argument and result,
so a loop carries the value in S). The other operands of those ops (an elementwise op's
other operand, the other branch's yield, a slot's start or yield) are made in S by a
backward `Plan` (constants are free to make again, a value from outside gets a
conversion); every other use keeps layout T and reads a conversion back placed after the
value's definition (a loop result's conversion runs once, after the loop); a use by a
conversion to U converts from S instead. Only blocks that every thread of the block
reaches alike take part (a conversion moves data between threads)."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tilec.support.locations import copy_loc
from tilec.dialects import layout

from ._layout_cost import (
    Cost,
    CostModel,
    conversion_cost,
    is_distributed,
    is_elementwise,
    point_weight,
    registers,
    with_encoding,
    work,
)
from ._remat_plan import MAX_NODES, Node, Plan, uniform

MAX_VALUES = 32


def uniform_path(block) -> bool:
    """Whether every scf op around `block` (up to the launch) is one every thread of the
    block takes alike."""
    while block is not None:
        op = block.parent_op()
        if op is None or isinstance(op, layout.LaunchOp):
            return True
        if isinstance(op, scf.IfOp | scf.ForOp | scf.WhileOp) and not uniform(op):
            return False
        block = op.parent
    return True


def _def_block(v: SSAValue):
    if isinstance(v, BlockArgument):
        return v.block
    assert isinstance(v, OpResult)
    return v.op.parent


@dataclass
class ForwardPlan:
    """The region of values that `cvt`'s source layout reaches (see the module
    docstring): `analyse()` finds it, `cost()` compares, `build()` rewrites."""

    model: CostModel
    cvt: layout.ConvertLayoutOp
    equiv: dict[SSAValue, SSAValue]
    values: list[SSAValue] = field(default_factory=list)
    """The values made in the source layout, the conversion's result first."""
    ops: list[Operation] = field(default_factory=list)
    """The elementwise ops whose results are in `values`."""
    needs: list[tuple[Operation, int]] = field(default_factory=list)
    """Operands (op, index) not in `values` that must be in the source layout."""
    boundary: dict[SSAValue, list[tuple[Operation, int]]] = field(default_factory=dict)
    """Value of `values` -> its uses that keep the old layout."""
    plan: Plan | None = None
    nodes: list[Node] = field(default_factory=list)

    @property
    def enc(self) -> Attribute:
        return self.cvt.source.type.encoding

    def analyse(self) -> bool:
        """Find the region; False when there is none worth building or it is too big."""
        seen: set[SSAValue] = set()
        work_list: list[SSAValue] = []
        cands: list[tuple[Operation, int]] = []

        def add(v: SSAValue) -> None:
            if v not in seen:
                seen.add(v)
                self.values.append(v)
                work_list.append(v)

        if not uniform_path(self.cvt.parent):
            return False
        add(self.cvt.result)
        while work_list:
            if len(self.values) > MAX_VALUES:
                return False
            v = work_list.pop()
            for use in list(v.uses):
                o, k = use.operation, use.index
                if is_elementwise(o) and uniform_path(o.parent):
                    if o not in self.ops:
                        self.ops.append(o)
                        for r in o.results:
                            add(r)
                        cands.extend((o, j) for j, x in enumerate(o.operands) if is_distributed(x.type))
                    continue
                p = o.parent_op() if isinstance(o, scf.YieldOp) else None
                if isinstance(p, scf.IfOp) and p.false_region.blocks and uniform(p):
                    add(p.results[k])
                    cands.extend((r.block.last_op, k) for r in (p.true_region, p.false_region))
                    continue
                if isinstance(p, scf.ForOp) and uniform(p):
                    self._add_slot(p, k, add, cands)
                    continue
                if isinstance(o, scf.ForOp) and k >= 3 and uniform(o):
                    self._add_slot(o, k - 3, add, cands)
                    continue
                self.boundary.setdefault(v, []).append((o, k))
        done: set[tuple[Operation, int]] = set()
        for o, j in cands:
            if (o, j) not in done and o.operands[j] not in seen:
                done.add((o, j))
                self.needs.append((o, j))
        return True

    @staticmethod
    def _add_slot(loop: scf.ForOp, i: int, add, cands) -> None:
        add(loop.body.block.args[1 + i])
        add(loop.results[i])
        cands.append((loop, 3 + i))
        cands.append((loop.body.block.last_op, i))

    def _new_type(self, v: SSAValue):
        return with_encoding(v.type, self.enc)

    def cost(self) -> tuple[Cost, Cost]:
        """(before, after): the conversion removed against the operands made in the
        source layout, the conversions back and the retyped ops' change in work."""
        m = self.model
        before = conversion_cost(m, self.cvt.source.type, self.cvt.result.type).scaled(
            point_weight(m, self.cvt.parent))
        plan = Plan(m, {self.cvt}, self.equiv, replaced=set(self.needs))
        for v in self.values:
            plan.nodes[(v, self.enc)] = Node("value", v)
        self.nodes = [plan.plan(o.operands[j], self.enc) for o, j in self.needs]
        self.plan = plan
        if plan.too_big or len(plan.nodes) > MAX_NODES:
            return before, before
        after = plan.cost()
        for v, uses in self.boundary.items():
            new_t = self._new_type(v)
            if any(not isinstance(o, layout.ConvertLayoutOp) for o, _ in uses):
                after = after + conversion_cost(m, new_t, v.type).scaled(point_weight(m, _def_block(v)))
            for o, _ in uses:
                if isinstance(o, layout.ConvertLayoutOp):
                    w = point_weight(m, o.parent)
                    after = after + (conversion_cost(m, new_t, o.result.type)
                                     - conversion_cost(m, v.type, o.result.type)).scaled(w)
        for o in self.ops:
            if m.recompute(o) == 0.0:
                continue
            new = m.alu * sum(registers(self._new_type(r)) for r in o.results)
            after = after + work(new - m.recompute(o)).scaled(point_weight(m, o.parent))
        return before, after

    def build(self) -> None:
        """Make the needed operands in the source layout, retype the region's values,
        give the uses that keep the old layout a conversion back and drop `cvt`."""
        plan = self.plan
        built = [plan.build(n) for n in self.nodes]
        for (o, j), new in zip(self.needs, built):
            plan.current(o).operands[j] = new
        root = self.cvt.result
        renamed: dict[SSAValue, SSAValue] = {root: self.cvt.source}
        for v in self.values[1:]:
            old = plan.resolve(v)
            renamed[v] = Rewriter.replace_value_with_new_type(old, self._new_type(old))
            self._rename_equiv(old, renamed[v])
        keep = {(plan.current(o), k) for uses in self.boundary.values() for o, k in uses}
        for use in list(root.uses):
            if (use.operation, use.index) not in keep:
                use.operation.operands[use.index] = self.cvt.source
        for v, uses in self.boundary.items():
            new = renamed[v]
            back = None
            for o, k in uses:
                o = plan.current(o)
                if isinstance(o, layout.ConvertLayoutOp):
                    o.operands[k] = new
                    continue
                if v is root:
                    continue  # the conversion itself is the way back
                if back is None:
                    back = layout.ConvertLayoutOp(new, v.type)
                    if isinstance(new, BlockArgument):
                        Rewriter.insert_op(back, InsertPoint.at_start(new.block))
                        copy_loc(self.cvt, back)
                    else:
                        Rewriter.insert_op(back, InsertPoint.after(new.op))
                        copy_loc(new.op, back)
                o.operands[k] = back.result
        if root.first_use is None:
            Rewriter.erase_op(self.cvt)

    def _rename_equiv(self, old: SSAValue, new: SSAValue) -> None:
        for k, v in list(self.equiv.items()):
            if v is old:
                self.equiv[k] = new
        if old in self.equiv:
            self.equiv[new] = self.equiv.pop(old)
