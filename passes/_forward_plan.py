"""Forward propagation of a conversion's source layout through its users, for
`remove-layout-conversions` (not a pass): instead of converting `x` (layout S) to T, the
values computed from the converted value are made in S (or, past a reduction, in the
slice of S), and a conversion back goes where a value leaves that region (Triton carries
a loaded layout through a loop and converts once after it).

The region (`ForwardPlan.layouts`) grows from the conversion's result through:
elementwise ops (their results), reductions that give the same result in any layout
(max, min, integers; float add/mul with `reassociate`), the yield of a uniform `scf.if`
(the if's result), the yield or the start of a uniform `scf.for` slot (its body argument
and result, so a loop carries the value in S), and the values of a uniform `scf.while`
(a value entering `before`: its start, `before` argument and `after`'s yield; a value
`scf.condition` forwards: the `after` argument and the result). The other operands of
those ops (an elementwise op's other operand, the other branch's yield, a slot's start
or yield) are made in the new layout by a backward `Plan` (a constant is made again for
free, a conversion from that layout is read through, a value from outside gets a
conversion); every other use keeps the old layout and reads a conversion back placed
after the value's definition (a loop result's conversion runs once, after the loop); a
use by a conversion to U converts from the new layout instead. Only blocks that every
thread of the block reaches alike take part (a conversion moves data between threads)."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.dialects.builtin import IntAttr, IntegerType
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tilec.support.locations import copy_loc
from tilec.dialects import layout
from tilec.dialects.layout_attrs import SliceLayoutAttr

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
from ._remat_plan import MAX_NODES, Node, Plan, block_of, uniform

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


@dataclass
class ForwardPlan:
    """The region of values that `cvt`'s source layout reaches (see the module
    docstring): `analyse()` finds it, `cost()` compares, `build()` rewrites."""

    model: CostModel
    cvt: layout.ConvertLayoutOp
    equiv: dict[SSAValue, SSAValue]
    reassociate: bool = False
    layouts: dict[SSAValue, Attribute] = field(default_factory=dict)
    """The values made in another layout -> that layout, the conversion's result first."""
    ops: list[Operation] = field(default_factory=list)
    """The elementwise ops and reductions whose results are in `layouts`."""
    needs: list[tuple[Operation, int, Attribute]] = field(default_factory=list)
    """Operands (op, index) not in `layouts` that must be made in a layout."""
    boundary: dict[SSAValue, list[tuple[Operation, int]]] = field(default_factory=dict)
    """Value of `layouts` -> its uses that keep the old layout."""
    plan: Plan | None = None
    nodes: list[Node] = field(default_factory=list)

    def analyse(self) -> bool:
        """Find the region; False when it is too big or the conversion is in code that
        threads of the block may not all run."""
        work_list: list[SSAValue] = []
        cands: list[tuple[Operation, int, Attribute]] = []

        def add(v: SSAValue, enc: Attribute) -> None:
            if v not in self.layouts:
                self.layouts[v] = enc
                work_list.append(v)

        if not uniform_path(self.cvt.parent):
            return False
        add(self.cvt.result, self.cvt.source.type.encoding)
        while work_list:
            if len(self.layouts) > MAX_VALUES:
                return False
            v = work_list.pop()
            enc = self.layouts[v]
            for use in list(v.uses):
                o, k = use.operation, use.index
                if not self._crosses(o, k, enc, add, cands):
                    self.boundary.setdefault(v, []).append((o, k))
        done: set[tuple[Operation, int]] = set()
        for o, j, enc in cands:
            if (o, j) not in done and o.operands[j] not in self.layouts:
                done.add((o, j))
                self.needs.append((o, j, enc))
        return True

    def _crosses(self, o: Operation, k: int, enc: Attribute, add, cands) -> bool:
        """Extend the region through use `k` of op `o` by a value in new layout `enc`;
        False when the use keeps the old layout."""
        if is_elementwise(o) and uniform_path(o.parent):
            if o not in self.ops:
                self.ops.append(o)
                for r in o.results:
                    add(r, enc)
                cands.extend((o, j, enc) for j, x in enumerate(o.operands) if is_distributed(x.type))
            return True
        if isinstance(o, layout.ReduceOp) and uniform_path(o.parent) and self._exact(o):
            if o not in self.ops:
                self.ops.append(o)
                add(o.result, SliceLayoutAttr(IntAttr(o.axis.value.data), enc))
            return True
        p = o.parent_op() if isinstance(o, scf.YieldOp | scf.ConditionOp) else None
        if isinstance(o, scf.YieldOp) and isinstance(p, scf.IfOp) and p.false_region.blocks and uniform(p):
            add(p.results[k], enc)
            cands.extend((r.block.last_op, k, enc) for r in (p.true_region, p.false_region))
            return True
        loop = o if p is None else p
        if isinstance(loop, scf.ForOp) and uniform(loop) and (loop is p or k >= 3):
            i = k if loop is p else k - 3
            add(loop.body.block.args[1 + i], enc)
            add(loop.results[i], enc)
            cands.extend([(loop, 3 + i, enc), (loop.body.block.last_op, i, enc)])
            return True
        if isinstance(loop, scf.WhileOp) and uniform(loop):
            before, after = loop.before_region.block, loop.after_region.block
            if isinstance(o, scf.ConditionOp):
                if k == 0:
                    return False
                add(after.args[k - 1], enc)
                add(loop.results[k - 1], enc)
                cands.append((o, k, enc))
                return True
            if loop is o or o.parent is after:  # a value entering `before`
                add(before.args[k], enc)
                cands.extend([(loop, k, enc), (after.last_op, k, enc)])
                return True
        return False

    def _exact(self, red: layout.ReduceOp) -> bool:
        """A reduction that combines the elements in another order gives the same result."""
        return (red.kind.data in ("max", "min") or isinstance(red.source.type.element_type, IntegerType)
                or self.reassociate)

    def _new_type(self, v: SSAValue):
        return with_encoding(v.type, self.layouts[v])

    def cost(self) -> tuple[Cost, Cost]:
        """(before, after): the conversion removed against the operands made in the
        new layouts, the conversions back and the retyped ops' change in work."""
        m = self.model
        before = conversion_cost(m, self.cvt.source.type, self.cvt.result.type).scaled(
            point_weight(m, self.cvt.parent))
        plan = Plan(m, {self.cvt}, self.equiv, replaced={(o, j) for o, j, _ in self.needs})
        for v, enc in self.layouts.items():
            plan.nodes[(v, enc)] = Node("value", v)
        self.nodes = [plan.plan(o.operands[j], enc) for o, j, enc in self.needs]
        self.plan = plan
        if plan.too_big or len(plan.nodes) > MAX_NODES:
            return before, before
        after = plan.cost()
        for v, uses in self.boundary.items():
            new_t = self._new_type(v)
            if any(not isinstance(o, layout.ConvertLayoutOp) for o, _ in uses):
                after = after + conversion_cost(m, new_t, v.type).scaled(point_weight(m, block_of(v)))
            for o, _ in uses:
                if isinstance(o, layout.ConvertLayoutOp):
                    w = point_weight(m, o.parent)
                    after = after + (conversion_cost(m, new_t, o.result.type)
                                     - conversion_cost(m, v.type, o.result.type)).scaled(w)
        for o in self.ops:
            if not is_elementwise(o) or m.recompute(o) == 0.0:
                continue
            new = m.alu * sum(registers(self._new_type(r)) for r in o.results)
            after = after + work(new - m.recompute(o)).scaled(point_weight(m, o.parent))
        return before, after

    def build(self) -> None:
        """Make the needed operands in their layouts, retype the region's values, give
        the uses that keep the old layout a conversion back and drop `cvt`."""
        plan = self.plan
        built = [plan.build(n) for n in self.nodes]
        for (o, j, _), new in zip(self.needs, built):
            plan.current(o).operands[j] = new
        root = self.cvt.result
        renamed: dict[SSAValue, SSAValue] = {root: self.cvt.source}
        for v in list(self.layouts)[1:]:
            old = plan.resolve(v)
            renamed[v] = Rewriter.replace_value_with_new_type(old, self._new_type(v))
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
