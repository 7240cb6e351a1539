"""`remove-layout-conversions`: fewer and cheaper `layout.convert_layout` ops."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntAttr, IntegerType, ModuleOp, TensorType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tilec.compiler.locations import copy_loc
from tilec.dialects import layout
from tilec.dialects.layout_attrs import SliceLayoutAttr

from ._layout_cost import (
    Cost,
    CostModel,
    conversion_cost,
    is_distributed,
    is_elementwise,
    kind_of,
    operand_targets,
    retyped_clone,
    same_layout,
    with_encoding,
)

# Ops that accept an operand of any distributed layout (their own type does not follow
# the operand's): an equivalent layout may replace the operand's layout freely.
_LAYOUT_FREE_USERS = (layout.StoreOp, layout.ConvertLayoutOp)

_MAX_SLICE = 64


@dataclass(frozen=True)
class RemoveLayoutConversions(ModulePass):
    """Removes `layout.convert_layout` ops that are identities, folds chains, rematerialises cheap producers in the target layout and moves conversions to where fewer elements move.

    Rewrites, repeated until none applies (each never makes the cost below larger):

    - identity: source and target layouts are equal as linear layouts for the tensor's
      shape (e.g. `blocked<[1],[32],[4],[0]>` and its `slice` twin): uses that accept any
      layout (`layout.store`, `layout.convert_layout`) take the source directly.
    - chain: `convert(convert(x))` becomes one conversion, or none.
    - backward rematerialisation: the producers of the converted value (`arith.constant`,
      `layout.splat`, `layout.arange`, `layout.broadcast`, `layout.expand_dims`,
      elementwise `arith`) are recomputed in the target layout, down to values that are
      already in it, to other conversions (folded), or to anchors (`layout.load`, block
      arguments, reductions), which get a conversion of their own; done when the cost
      model says the recomputation and the new conversions cost less than the conversion.
    - forward sinking: a conversion whose only user is a reduction or an elementwise op
      moves below it when that moves fewer elements (a reduction shrinks the tensor) or
      when it is an identity that can then reach a store. A float `add`/`mul` reduction
      in another layout combines the elements in another order, so it is only done with
      `reassociate=true` (results then differ in the last bits); `max`, `min` and integer
      reductions always.
    - loops: a loop-carried value converted on entry to the body and converted back
      before `scf.yield` is carried in the target layout (the conversions move out of the
      loop); a conversion of a loop-invariant value is hoisted above the loop.
    - branches: when both branches of an `scf.if` yield a converted value from one layout,
      the `scf.if` yields the unconverted values and one conversion follows it.

    Anchors, after Triton's RemoveLayoutConversions.cpp (test/TritonGPU/combine.mlir):
    loads and stores keep their layouts and are never duplicated; results never change
    (the CPU reference executor checks each test before and after).

    Cost model (`_layout_cost.CostModel`), in element operations per block: a shared-memory
    conversion costs `smem` per source and destination register element, a warp-shuffle
    conversion `shuffle` per destination element, a register permutation or identity 0;
    recomputing an elementwise op or an `arange` costs `alu` per result element, a
    constant, splat, broadcast or expand_dims 0; an op only moves (no cost) when the
    conversion was its only use.

    Options: `smem_cost` (default 2), `shuffle_cost` (2), `alu_cost` (1), `reassociate`
    (false).
    Preconditions: distributed values live inside `layout.launch`."""

    name = "remove-layout-conversions"

    smem_cost: float = 2.0
    shuffle_cost: float = 2.0
    alu_cost: float = 1.0
    reassociate: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        model = CostModel(alu=self.alu_cost, shuffle=self.shuffle_cost, smem=self.smem_cost)
        _Remover(model, self.reassociate).run(op)


# ============================================================================ driver


@dataclass
class _Remover:
    model: CostModel
    reassociate: bool = False
    changed: bool = False

    def run(self, module: ModuleOp) -> None:
        for _ in range(100):
            self.changed = False
            for op in [o for o in module.walk() if isinstance(o, scf.ForOp)]:
                self.loop_carried(op)
            for op in [o for o in module.walk() if isinstance(o, scf.IfOp)]:
                self.if_yields(op)
            for cvt in [o for o in module.walk() if isinstance(o, layout.ConvertLayoutOp)]:
                if cvt.parent is None:
                    continue
                self.visit(cvt)
            self.dce(module)
            if not self.changed:
                break

    # ------------------------------------------------------------------ per conversion

    def visit(self, cvt: layout.ConvertLayoutOp) -> None:
        src, dst = cvt.source.type, cvt.result.type
        if src == dst:
            self.replace(cvt, cvt.source)
            return
        if _unused(cvt.result):
            self.erase(cvt)
            return
        # chain: convert(convert(x))
        inner = cvt.source.owner
        if isinstance(inner, layout.ConvertLayoutOp):
            x = inner.source
            if x.type == dst:
                self.replace(cvt, x)
            else:
                new = layout.ConvertLayoutOp(x, dst)
                self.insert_before(cvt, new)
                self.replace(cvt, new.result)
            return
        if kind_of(src, dst) == "identity":
            n = len(list(cvt.result.uses))
            cvt.result.replace_uses_with_if(
                cvt.source, lambda u: isinstance(u.operation, _LAYOUT_FREE_USERS)
                # a masked store's mask is typed in the value's layout: keep it
                and not (isinstance(u.operation, layout.StoreOp) and u.operation.mask is not None)
            )
            if len(list(cvt.result.uses)) != n:
                self.changed = True
            if _unused(cvt.result):
                self.erase(cvt)
                return
        if self.hoist_invariant(cvt):
            return
        if self.rematerialize(cvt):
            return
        self.sink(cvt)

    def hoist_invariant(self, cvt: layout.ConvertLayoutOp) -> bool:
        """Move a conversion of a value defined outside the enclosing loops above them."""
        loop = None
        p = cvt.parent_op()
        src_block = _defining_block(cvt.source)
        while isinstance(p, scf.ForOp | scf.WhileOp) and not _inside(src_block, p):
            loop = p
            p = p.parent_op()
        if loop is None:
            return False
        cvt.detach()
        Rewriter.insert_op(cvt, InsertPoint.before(loop))
        self.changed = True
        return True

    def rematerialize(self, cvt: layout.ConvertLayoutOp) -> bool:
        plan = _Plan(self.model, cvt)
        node = plan.plan(cvt.source, cvt.result.type.encoding)
        if node is None or plan.too_big:
            return False
        after = plan.cost()
        before = conversion_cost(self.model, cvt.source.type, cvt.result.type)
        if not after < before:
            return False
        new = plan.materialize(node)
        self.replace(cvt, new)
        return True

    def sink(self, cvt: layout.ConvertLayoutOp) -> bool:
        """Move a conversion below its only user (a reduction or an elementwise op)."""
        r = cvt.result
        users = {u.operation for u in r.uses}
        if len(users) != 1:
            return False
        (user,) = users
        if len(user.results) != 1 or user.parent is not cvt.parent:
            return False
        src_t = cvt.source.type
        before = conversion_cost(self.model, src_t, r.type)
        res = user.results[0]
        if isinstance(user, layout.ReduceOp):
            exact = user.kind.data in ("max", "min") or isinstance(src_t.element_type, IntegerType)
            if not (exact or self.reassociate):
                return False  # another layout sums floats in another order
            ax = user.axis.value.data
            new_rt = with_encoding(res.type, SliceLayoutAttr(IntAttr(ax), src_t.encoding))
            after = conversion_cost(self.model, new_rt, res.type)
            after = after + self._fold_gain(res, new_rt)
            if not after < before:
                return False
            new_red = layout.ReduceOp.create(
                operands=[cvt.source], result_types=[new_rt],
                properties=dict(user.properties), attributes=dict(user.attributes),
            )
            new_cvt = layout.ConvertLayoutOp(new_red.result, res.type)
            self.insert_before(user, new_red, new_cvt)
            copy_loc(user, new_red)
            copy_loc(cvt, new_cvt)
            res.replace_all_uses_with(new_cvt.result)
            self.erase(user)
            self.erase(cvt)
            self.changed = True
            return True
        if not is_elementwise(user):
            return False
        enc = src_t.encoding
        plan = _Plan(self.model, None)
        nodes = []
        for o in user.operands:
            if o is r:
                nodes.append(("value", cvt.source))
            elif is_distributed(o.type):
                n = plan.plan(o, enc)
                if n is None:
                    return False
                nodes.append(n)
            else:
                nodes.append(("value", o))
        if plan.too_big:
            return False
        new_rt = with_encoding(res.type, enc)
        after = plan.cost() + conversion_cost(self.model, new_rt, res.type) + self._fold_gain(res, new_rt)
        ok = after < before or (
            before == after and kind_of(src_t, r.type) == "identity" and after.identities <= 1
        )
        if not ok:
            return False
        operands = [plan.materialize(n) for n in nodes]
        new_op = retyped_clone(user, operands, enc)
        new_cvt = layout.ConvertLayoutOp(new_op.results[0], res.type)
        self.insert_before(user, new_op, new_cvt)
        copy_loc(user, new_op)
        copy_loc(cvt, new_cvt)
        res.replace_all_uses_with(new_cvt.result)
        self.erase(user)
        if _unused(cvt.result):
            self.erase(cvt)
        self.changed = True
        return True

    def _fold_gain(self, res: SSAValue, new_t: TensorType) -> Cost:
        """When `res`'s only use is a conversion to C, converting `new_t` -> C replaces
        both: the difference to add to the cost of a conversion `new_t` -> res.type."""
        uses = list(res.uses)
        if len(uses) == 1 and isinstance(uses[0].operation, layout.ConvertLayoutOp):
            c = uses[0].operation.result.type
            return (
                conversion_cost(self.model, new_t, c)
                - conversion_cost(self.model, new_t, res.type)
                - conversion_cost(self.model, res.type, c)
            )
        return Cost()

    # ------------------------------------------------------------------ regions

    def loop_carried(self, loop: scf.ForOp) -> None:
        """Carry a value in the layout its body converts it to, when the body converts it
        back before yielding."""
        body = loop.body.block
        yield_op = body.last_op
        assert isinstance(yield_op, scf.YieldOp)
        for i, arg in enumerate(body.args[1:]):
            if not is_distributed(arg.type) or _unused(arg):
                continue
            users = [u.operation for u in arg.uses]
            if not all(isinstance(u, layout.ConvertLayoutOp) for u in users):
                continue
            target = users[0].result.type
            if not all(u.result.type == target for u in users):
                continue
            y = yield_op.operands[i]
            yo = y.owner
            if not (isinstance(yo, layout.ConvertLayoutOp) and same_layout(yo.source.type, target)):
                continue
            a_t = arg.type
            # entry
            init = loop.iter_args[i]
            c_in = layout.ConvertLayoutOp(init, target)
            self.insert_before(loop, c_in)
            copy_loc(users[0], c_in)
            loop.operands[3 + i] = c_in.result
            # body
            new_arg = Rewriter.replace_value_with_new_type(arg, target)
            for u in users:
                u.result.replace_all_uses_with(new_arg)
                self.erase(u)
            c_y = layout.ConvertLayoutOp(y, target)
            self.insert_before(yield_op, c_y)
            yield_op.operands[i] = c_y.result
            # exit
            res = loop.results[i]
            new_res = Rewriter.replace_value_with_new_type(res, target)
            uses = list(new_res.uses)
            c_out = layout.ConvertLayoutOp(new_res, a_t)
            Rewriter.insert_op(c_out, InsertPoint.after(loop))
            for u in uses:
                u.operation.operands[u.index] = c_out.result
            self.changed = True

    def if_yields(self, op: scf.IfOp) -> None:
        """Yield unconverted values from both branches and convert once after the if."""
        if not op.false_region.blocks:
            return
        yt = op.true_region.block.last_op
        yf = op.false_region.block.last_op
        for i, res in enumerate(op.results):
            if not is_distributed(res.type):
                continue
            a, b = yt.operands[i].owner, yf.operands[i].owner
            if not (isinstance(a, layout.ConvertLayoutOp) and isinstance(b, layout.ConvertLayoutOp)):
                continue
            src_t = a.source.type
            if b.source.type != src_t:
                continue
            yt.operands[i] = a.source
            yf.operands[i] = b.source
            new_res = Rewriter.replace_value_with_new_type(res, src_t)
            uses = list(new_res.uses)
            c = layout.ConvertLayoutOp(new_res, res.type)
            copy_loc(a, c)
            Rewriter.insert_op(c, InsertPoint.after(op))
            for u in uses:
                u.operation.operands[u.index] = c.result
            self.changed = True

    # ------------------------------------------------------------------ helpers

    def insert_before(self, anchor: Operation, *ops: Operation) -> None:
        Rewriter.insert_op(list(ops), InsertPoint.before(anchor))

    def replace(self, cvt: Operation, value: SSAValue) -> None:
        cvt.results[0].replace_all_uses_with(value)
        self.erase(cvt)

    def erase(self, op: Operation) -> None:
        Rewriter.erase_op(op)
        self.changed = True

    def dce(self, module: ModuleOp) -> None:
        """Erase pure ops on distributed values whose results are unused."""
        again = True
        while again:
            again = False
            for o in reversed(list(module.walk())):
                if not _removable(o):
                    continue
                if all(_unused(r) for r in o.results):
                    Rewriter.erase_op(o)
                    again = True


def _unused(v: SSAValue) -> bool:
    return v.first_use is None


def _removable(op: Operation) -> bool:
    if not op.results or not any(is_distributed(r.type) for r in op.results):
        return False
    return isinstance(
        op,
        layout.ConvertLayoutOp | layout.SplatOp | layout.ArangeOp | layout.BroadcastOp
        | layout.ExpandDimsOp | layout.ReduceOp | arith.ConstantOp,
    ) or is_elementwise(op)


def _defining_block(v: SSAValue) -> Block | None:
    if isinstance(v, BlockArgument):
        return v.block
    assert isinstance(v, OpResult)
    return v.op.parent


def _inside(block: Block | None, op: Operation) -> bool:
    """Whether `block` is nested in `op`."""
    while block is not None:
        p = block.parent_op()
        if p is op:
            return True
        if p is None:
            return False
        block = p.parent
    return False


# ============================================================================ planning


@dataclass
class _Plan:
    """Backward rematerialisation of a value in another layout: which producers are
    recomputed, which values get a conversion, and what it all costs."""

    model: CostModel
    root: Operation | None
    nodes: dict[tuple[SSAValue, object], tuple] = field(default_factory=dict)
    too_big: bool = False
    built: dict[tuple[SSAValue, object], SSAValue] = field(default_factory=dict)

    def plan(self, v: SSAValue, enc) -> tuple | None:
        """("value", v) | ("convert", x, type) | ("clone", op, enc, [nodes])."""
        key = (v, enc)
        if key in self.nodes:
            return self.nodes[key]
        t = v.type
        want = with_encoding(t, enc)
        node: tuple | None
        if t == want:
            node = ("value", v)
        elif isinstance(v, OpResult) and isinstance(v.op, layout.ConvertLayoutOp) and v.op is not self.root:
            x = v.op.source
            node = ("value", x) if x.type == want else ("convert", x, want)
        elif isinstance(v, OpResult) and (targets := operand_targets(v.op, enc)) is not None \
                and len(v.op.results) == 1:
            if len(self.nodes) > _MAX_SLICE:
                self.too_big = True
                return None
            self.nodes[key] = ("pending",)
            kids = []
            for o, tg in zip(v.op.operands, targets):
                if tg is None:
                    kids.append(("value", o))
                else:
                    k = self.plan(o, tg)
                    if k is None:
                        del self.nodes[key]
                        return None
                    kids.append(k)
            node = ("clone", v.op, enc, kids)
        else:
            node = ("convert", v, want)
        self.nodes[key] = node
        return node

    def cost(self) -> Cost:
        total = Cost()
        cloned = {n[1]: n for n in self.nodes.values() if n[0] == "clone"}
        for n in self.nodes.values():
            if n[0] == "convert":
                total = total + conversion_cost(self.model, n[1].type, n[2])
        # an original op stays alive when something outside the slice uses it
        alive: set[Operation] = set()
        work = []
        for op in cloned:
            if any(u.operation not in cloned and u.operation is not self.root
                   for r in op.results for u in r.uses):
                work.append(op)
        while work:
            op = work.pop()
            if op in alive:
                continue
            alive.add(op)
            for o in op.operands:
                if isinstance(o, OpResult) and o.op in cloned:
                    work.append(o.op)
        if self.root is None:  # sinking: the user's other operands keep their producers
            alive = set(cloned)
        for op in alive:
            total = total + Cost(self.model.recompute(op), 0, 0)
        return total

    def materialize(self, node: tuple) -> SSAValue:
        kind = node[0]
        if kind == "value":
            return node[1]
        if kind == "convert":
            x, want = node[1], node[2]
            key = (x, want)
            if key not in self.built:
                c = layout.ConvertLayoutOp(x, want)
                if isinstance(x, BlockArgument):
                    Rewriter.insert_op(c, InsertPoint.at_start(x.block))
                else:
                    Rewriter.insert_op(c, InsertPoint.after(x.owner))
                    copy_loc(x.owner, c)
                self.built[key] = c.result
            return self.built[key]
        op, enc, kids = node[1], node[2], node[3]
        key = (op.results[0], enc)
        if key not in self.built:
            operands = [self.materialize(k) for k in kids]
            new = retyped_clone(op, operands, enc)
            Rewriter.insert_op(new, InsertPoint.after(op))
            copy_loc(op, new)
            self.built[key] = new.results[0]
        return self.built[key]
