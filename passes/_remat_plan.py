"""Backward rematerialisation of a value in another distributed layout, for
`remove-layout-conversions` (not a pass): which producers are recomputed, which loads are
issued again, which `scf.if` results and `scf.for` slots get a twin in the new layout,
which values get a conversion, what it all costs and how it is built.

A plan is a graph of `Node`s, one per (value, layout) asked for; a loop-carried value
asks for itself through the loop's yield, so nodes are made before their operands and a
loop slot's yielded value is built last."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tilec.support.locations import copy_loc
from tilec.dialects import layout
from tilec.dialects.layout_attrs import threads_per_block

from ._analysis import depends_on_thread
from ._layout_cost import (
    Cost,
    CostModel,
    conversion_cost,
    is_distributed,
    op_cost,
    operand_targets,
    point_weight,
    registers,
    retyped_clone,
    with_encoding,
    work,
)
from ._scf_slots import rebuild_for, rebuild_if, rebuild_while

MAX_NODES = 64


@dataclass(eq=False)
class Slot:
    """A twin in layout `enc` of value `index` that crosses the boundary of `loop`:
    `for` (a carried slot: init, body argument, yield, result), `iter` (a value
    entering an scf.while's `before`: init, `before` argument, `after`'s yield) or
    `fwd` (a value scf.condition forwards: `after` argument, result)."""

    kind: str
    loop: Operation
    index: int
    enc: Attribute
    init: Node | None = None
    yielded: Node | None = None
    built: tuple[SSAValue, SSAValue | None] | None = None  # (block argument, result)


@dataclass(eq=False)
class Node:
    """kind: `value` (v as it is), `convert` (a conversion of v to `want`), `clone`
    (op recomputed in `enc`), `reload` (a load issued again in `enc`), `if` (result
    `index` of an scf.if, both branches yielding `kids` in `enc`), `arg` / `result`
    (the body argument / result of a new loop `slot`)."""

    kind: str
    value: SSAValue | None = None
    want: TensorType | None = None
    op: Operation | None = None
    enc: Attribute | None = None
    kids: list[Node] = field(default_factory=list)
    index: int = 0
    slot: Slot | None = None


def cheap_load(op: Operation) -> bool:
    """Triton's rule (`isExpensiveLoadOrStore`): a load is cheap to issue again when it
    reads one element, or fewer elements than the block has threads (the repeat hits
    the cache lines the first load brought in)."""
    if not isinstance(op, layout.LoadOp) or not is_distributed(op.result.type):
        return False
    t = op.result.type
    n = 1
    for s in t.get_shape():
        n *= s
    return n == 1 or n < threads_per_block(t.encoding)


def uniform(op: Operation) -> bool:
    """Whether every thread of the block takes the same path through an `scf.if` or
    `scf.for` (its condition or bounds do not depend on the thread id): only then may a
    conversion, which moves data between threads, cross its boundary."""
    if isinstance(op, scf.IfOp):
        return not depends_on_thread(op.cond)
    if isinstance(op, scf.ForOp):
        return not any(depends_on_thread(v) for v in (op.lb, op.ub, op.step))
    if isinstance(op, scf.WhileOp):
        return not depends_on_thread(op.before_region.block.last_op.condition)
    return False


def block_of(v: SSAValue) -> Block | None:
    """The block a value is defined in (where a conversion of it goes)."""
    if isinstance(v, BlockArgument):
        return v.block
    assert isinstance(v, OpResult)
    return v.op.parent


@dataclass
class Plan:
    """One rewrite's rematerialisation: `plan(v, enc)` makes the graph, `cost()` says
    what building it adds (to compare with what the rewrite removes), `build(node)`
    makes the IR and returns the node's value."""

    model: CostModel
    roots: set[Operation]
    """Ops the rewrite removes (the conversion, a sunk user): their uses keep nothing alive."""
    equiv: dict[SSAValue, SSAValue]
    """Filled when built: each new value -> the value it equals in another layout."""
    redirected: set[SSAValue] = field(default_factory=set)
    """Values whose uses the rewrite hands to a conversion of their new twin."""
    replaced: set[tuple[Operation, int]] = field(default_factory=set)
    """Uses (op, operand index) that the rewrite gives the plan's values instead."""
    bypassed: list[Operation] = field(default_factory=list)
    """Conversions whose source the plan reads instead of their result."""
    nodes: dict[tuple[SSAValue, Attribute], Node] = field(default_factory=dict)
    too_big: bool = False
    built: dict[int, SSAValue] = field(default_factory=dict)
    renamed: dict[SSAValue, SSAValue] = field(default_factory=dict)
    op_renamed: dict[Operation, Operation] = field(default_factory=dict)
    pending_yields: list[tuple[Slot, int]] = field(default_factory=list)

    # ------------------------------------------------------------------ planning

    def plan(self, v: SSAValue, enc: Attribute) -> Node:
        key = (v, enc)
        if key in self.nodes:
            return self.nodes[key]
        if len(self.nodes) > MAX_NODES:
            self.too_big = True
        t = v.type
        want = with_encoding(t, enc)
        if t == want or self.too_big:
            node = Node("value", v) if t == want else Node("convert", v, want)
            self.nodes[key] = node
            return node
        op = v.op if isinstance(v, OpResult) else None
        if isinstance(op, layout.ConvertLayoutOp) and op not in self.roots:
            self.bypassed.append(op)
            x = op.source
            node = Node("value", x) if x.type == want else Node("convert", x, want)
            self.nodes[key] = node
            return node
        if op is not None and cheap_load(op):
            node = Node("reload", v, want, op, enc)
            self.nodes[key] = node
            if op.mask is not None:  # a mask is in the result's layout
                node.kids.append(self.plan(op.mask, enc))
            return node
        if op is not None and len(op.results) == 1 and (targets := operand_targets(op, enc)) is not None:
            node = Node("clone", v, want, op, enc)
            self.nodes[key] = node
            for o, tg in zip(op.operands, targets):
                node.kids.append(Node("value", o) if tg is None else self.plan(o, tg))
            return node
        if isinstance(op, scf.IfOp) and op.false_region.blocks and uniform(op):
            i = v.index
            node = Node("if", v, want, op, enc, index=i)
            self.nodes[key] = node
            for region in (op.true_region, op.false_region):
                node.kids.append(self.plan(region.block.last_op.operands[i], enc))
            return node
        kind, loop, i = loop_slot(v)
        if loop is not None and uniform(loop):
            slot = Slot(kind, loop, i, enc)
            if kind == "for":
                arg, res = loop.body.block.args[1 + i], loop.results[i]
                init, yielded = loop.iter_args[i], loop.body.block.last_op.operands[i]
            elif kind == "iter":
                arg, res = loop.before_region.block.args[i], None
                init, yielded = loop.arguments[i], loop.after_region.block.last_op.operands[i]
            else:
                arg, res = loop.after_region.block.args[i], loop.results[i]
                init, yielded = None, loop.before_region.block.last_op.args[i]
            self.nodes[(arg, enc)] = a = Node("arg", arg, with_encoding(arg.type, enc), slot=slot)
            r = None
            if res is not None:
                self.nodes[(res, enc)] = r = Node("result", res, with_encoding(res.type, enc), slot=slot)
            if init is not None:
                slot.init = self.plan(init, enc)
            slot.yielded = self.plan(yielded, enc)
            return a if v is arg else r
        node = Node("convert", v, want)
        self.nodes[key] = node
        return node

    # ------------------------------------------------------------------ cost

    def cost(self) -> Cost:
        """What building the plan adds: its conversions and new loads and ops, each at
        the weight of the block it goes into, less the ops that it leaves dead (a
        bypassed conversion whose uses all go with the rewrite among them)."""
        total = Cost()
        for c in dict.fromkeys(self.bypassed):
            if all(u.operation in self.roots or (u.operation, u.index) in self.replaced
                   for u in c.results[0].uses):
                total = total - op_cost(self.model, c)
        cloned = self.cloned()
        for n in self.nodes.values():
            if n.kind == "convert":
                total = total + conversion_cost(self.model, n.value.type, n.want).scaled(
                    point_weight(self.model, block_of(n.value)))
        alive = self._alive(cloned)
        moved: set[Operation] = set()
        for n in self.nodes.values():
            if n.kind not in ("clone", "reload"):
                continue
            op = n.op
            w = point_weight(self.model, op.parent)
            new = self._new_cost(op, n.want)
            if op in alive or op in moved:
                total = total + work(new).scaled(w)
            else:  # the op only changes layout
                moved.add(op)
                total = total + work(new - self.model.recompute(op)).scaled(w)
        return total

    def _new_cost(self, op: Operation, want: TensorType) -> float:
        if isinstance(op, layout.LoadOp):
            return self.model.load(want)
        if self.model.recompute(op) == 0.0:
            return 0.0
        return self.model.alu * registers(want)

    def cloned(self) -> set[Operation]:
        return {n.op for n in self.nodes.values() if n.kind in ("clone", "reload")}

    def dead_use(self, use) -> bool:
        return self._dead_use(use, self.cloned())

    def _dead_use(self, use, cloned: set[Operation]) -> bool:
        """Whether a use goes away with the rewrite: by a removed or recomputed op, or
        by a yield into an if result or loop slot that nothing else uses."""
        user = use.operation
        if user in cloned or user in self.roots:
            return True
        gone = lambda v: all(u.operation in cloned or u.operation in self.roots for u in v.uses)  # noqa: E731
        if isinstance(user, scf.ConditionOp):
            if use.index == 0:
                return False
            w = user.parent_op()
            j = use.index - 1
            return gone(w.results[j]) and gone(w.after_region.block.args[j])
        if not isinstance(user, scf.YieldOp):
            return False
        parent = user.parent_op()
        if isinstance(parent, scf.IfOp):
            return gone(parent.results[use.index])
        if isinstance(parent, scf.ForOp):
            i = use.index
            return gone(parent.results[i]) and gone(parent.body.block.args[1 + i])
        if isinstance(parent, scf.WhileOp):
            return gone(parent.before_region.block.args[use.index])
        return False

    def _alive(self, cloned: set[Operation]) -> set[Operation]:
        """The recomputed ops whose originals something outside the plan still uses."""
        alive: set[Operation] = set()
        work_list = [op for op in cloned
                     if any(r not in self.redirected and not self._dead_use(u, cloned)
                            for r in op.results for u in r.uses)]
        while work_list:
            op = work_list.pop()
            if op in alive:
                continue
            alive.add(op)
            for o in op.operands:
                if isinstance(o, OpResult) and o.op in cloned:
                    work_list.append(o.op)
        return alive

    # ------------------------------------------------------------------ building

    def build(self, node: Node) -> SSAValue:
        """The plan's value for `node`, in the IR; loop slots get their yields last."""
        v = self._build(node)
        while self.pending_yields:
            slot, j = self.pending_yields.pop()
            value = self._build(slot.yielded)
            loop = self.current(slot.loop)
            y = (loop.body.block if slot.kind == "for" else loop.after_region.block).last_op
            y.operands = [*y.operands[:j], value, *y.operands[j + 1:]]
        return self.resolve(v)

    def resolve(self, v: SSAValue) -> SSAValue:
        while v in self.renamed:
            v = self.renamed[v]
        return v

    def _record(self, node: Node, new: SSAValue) -> SSAValue:
        self.built[id(node)] = new
        if node.value is not None:
            self.equiv[new] = self.resolve(node.value)
        return new

    def _build(self, node: Node) -> SSAValue:
        if id(node) in self.built:
            return self.resolve(self.built[id(node)])
        kind = node.kind
        if kind == "value":
            return self.resolve(node.value)
        if kind == "convert":
            x = self.resolve(node.value)
            c = layout.ConvertLayoutOp(x, node.want)
            if isinstance(x, BlockArgument):
                Rewriter.insert_op(c, InsertPoint.at_start(x.block))
            else:
                Rewriter.insert_op(c, InsertPoint.after(x.owner))
                copy_loc(x.owner, c)
            return self._record(node, c.result)
        if kind in ("clone", "reload"):
            op = node.op
            if kind == "reload":
                operands = list(op.operands)
                if node.kids:  # the mask, last operand
                    operands[-1] = self._build(node.kids[0])
            else:
                operands = [self._build(k) for k in node.kids]
            new = retyped_clone(op, operands, node.enc)
            if kind == "reload" and "vector" in new.properties:
                del new.properties["vector"]  # chosen for the first load's layout
            Rewriter.insert_op(new, InsertPoint.after(op))
            copy_loc(op, new)
            return self._record(node, new.results[0])
        if kind == "if":
            then_v, else_v = (self._build(k) for k in node.kids)
            op = self.current(node.op)
            n = len(op.results)
            new = rebuild_if(op, list(range(n)), [(then_v, else_v)])
            self._renamed_op(op, new)
            return self._record(node, new.results[n])
        # a loop slot
        slot = node.slot
        if slot.built is None:
            self._build_slot(slot)
        arg, res = slot.built
        return arg if kind == "arg" else self.resolve(res)

    def _build_slot(self, slot: Slot) -> None:
        if slot.kind == "fwd":
            value = self._build(slot.yielded)
            w = self.current(slot.loop)
            n = len(w.results)
            old_arg = w.after_region.block.args[slot.index]
            new = rebuild_while(w, list(range(len(w.arguments))), [],
                                list(range(n)), [value])
            self._renamed_op(w, new)
            slot.built = (new.after_region.block.args[n], new.results[n])
            self.equiv[slot.built[0]] = old_arg
            self.equiv[slot.built[1]] = new.results[slot.index]
            return
        init = self._build(slot.init)
        loop = self.current(slot.loop)
        if slot.kind == "for":
            n = len(loop.iter_args)
            old_arg = loop.body.block.args[1 + slot.index]
            new = rebuild_for(loop, list(range(n)), [init])
            slot.built = (new.body.block.args[1 + n], new.results[n])
            self.equiv[slot.built[1]] = new.results[slot.index]
        else:
            n = len(loop.arguments)
            old_arg = loop.before_region.block.args[slot.index]
            new = rebuild_while(loop, list(range(n)), [init], list(range(len(loop.results))), [])
            slot.built = (new.before_region.block.args[n], None)
        self._renamed_op(loop, new)
        self.equiv[slot.built[0]] = old_arg
        self.pending_yields.append((slot, n))

    def _renamed_op(self, old: Operation, new: Operation) -> None:
        self.op_renamed[old] = new
        for a, b in zip(old.results, new.results):
            self.renamed[a] = b

    def current(self, op: Operation) -> Operation:
        while op in self.op_renamed:
            op = self.op_renamed[op]
        return op


def loop_slot(v: SSAValue) -> tuple[str, Operation | None, int]:
    """(kind, loop, index) of the `Slot` a distributed value belongs to: a carried body
    argument or result of an scf.for (`for`), a `before` argument of an scf.while
    (`iter`), an `after` argument or result of an scf.while (`fwd`); else ("", None, 0)."""
    if not is_distributed(v.type):
        return "", None, 0
    if isinstance(v, OpResult):
        if isinstance(v.op, scf.ForOp):
            return "for", v.op, v.index
        if isinstance(v.op, scf.WhileOp):
            return "fwd", v.op, v.index
        return "", None, 0
    assert isinstance(v, BlockArgument)
    op = v.block.parent_op()
    if isinstance(op, scf.ForOp) and v.index > 0:
        return "for", op, v.index - 1
    if isinstance(op, scf.WhileOp):
        return ("iter" if v.block is op.before_region.block else "fwd"), op, v.index
    return "", None, 0
