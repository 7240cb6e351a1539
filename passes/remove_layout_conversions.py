"""`remove-layout-conversions`: fewer and cheaper `layout.convert_layout` ops."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntAttr, IntegerType, ModuleOp, TensorType
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue, Use
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter

from tilec.dialects import layout
from tilec.dialects.layout_attrs import SliceLayoutAttr
from tilec.support.diagnostics import TilecError
from tilec.support.locations import copy_loc

from ._forward_plan import ForwardPlan
from ._layout_cost import (
    Cost,
    CostModel,
    conversion_cost,
    is_distributed,
    is_elementwise,
    kind_of,
    point_weight,
    with_encoding,
)
from ._remat_plan import Node, Plan, block_of, uniform
from ._scf_slots import rebuild_for, rebuild_if, rebuild_while

# Ops that accept an operand of any distributed layout (their own type does not follow
# the operand's): an equivalent layout may replace the operand's layout freely.
_LAYOUT_FREE_USERS = (layout.StoreOp, layout.ConvertLayoutOp)


@dataclass(frozen=True)
class RemoveLayoutConversions(ModulePass):
    """Removes `layout.convert_layout` ops that are identities, folds chains, rematerialises producers (cheap loads, scf.if results, loop-carried values) in the target layout and moves conversions to where fewer bytes move.

    Rewrites, repeated until none applies; those with a choice (rematerialisation,
    sinking) are done only when the cost model below says the program costs strictly
    less after them, the others never cost more. The ones that look at one op and its
    operands' producers (identity, chain, both branches converting, dead pure ops) are
    xDSL `RewritePattern`s (`LOCAL_PATTERNS`, `EraseDeadOp`) that a
    `PatternRewriteWalker` applies at the start and the end of each round; the others
    need analyses of loops and branches and walk the IR:

    - identity: source and target layouts are equal as linear layouts for the tensor's
      shape (e.g. `blocked<[1],[32],[4],[0]>` and its `slice` twin): uses that accept any
      layout (`layout.store`, `layout.convert_layout`) take the source directly.
    - chain: `convert(convert(x))` becomes one conversion, or none.
    - backward rematerialisation: the producers of the converted value are made in the
      target layout, down to values already in it, to other conversions (folded) or to
      anchors, which get a conversion of their own: `arith.constant`, `layout.splat`,
      `layout.arange`, `layout.broadcast`, `layout.expand_dims`, elementwise `arith`
      (`extf`/`truncf` included) and the layout dialect's compares, selects and casts
      are recomputed; a small `layout.load` (one element, or
      fewer elements than the block has threads: Triton's rule) is issued again in the
      target layout, next to the first (same memory state), its mask recomputed too; an `scf.if` result gets a
      twin result that both branches yield in the target layout; a loop-carried value
      of an `scf.for`, or a value entering or forwarded by an `scf.while`, gets a twin
      slot carried in the target layout (its yield rematerialised the same way). Other
      loads, reductions and block arguments are anchors.
    - forward sinking: a conversion whose only user is a reduction or an elementwise op
      moves below it when that moves fewer bytes (a reduction shrinks the tensor, a
      `truncf` narrows it), or at equal cost when it is an identity (it can then reach a
      store, which takes any equivalent layout); the user's other operands are
      rematerialised as above, so a loop accumulator fed by a converted load is carried
      in the load's layout. A float
      `add`/`mul` reduction in another layout combines the elements in another order, so
      it is only done with `reassociate=true` (results then differ in the last bits);
      `max`, `min` and integer reductions always.
    - forward propagation (`_forward_plan`): what is computed from the converted value
      (elementwise ops, reductions that give the same result in any layout, the result
      of a uniform `scf.if` that yields it, the slot of a uniform `scf.for` or the
      values of a uniform `scf.while` that carry it, in nested loops and ifs too) is
      made in the source layout instead (past a reduction, its slice); the other
      operands of those ops are rematerialised as above (a constant made again, a
      conversion that then has no other use dropped) and a conversion back goes where
      a value leaves the region (after the loop for a loop result). So a conversion
      yielded by an if in a loop moves out of the loop (the loop carries the loaded
      layout), and one yielded by one branch of an if whose other branch yields a
      constant moves after the if when the costs say so: when that if's result feeds
      another if that converts from the same layout (one conversion instead of two),
      or a reduction (a smaller conversion); else it stays on the one path that runs
      it (the expected bytes decide).
    - loop slots: a slot whose body (`before` for an scf.while value entering it,
      `after` for a forwarded one) no longer reads it is dropped when its result is
      unused, or when it holds what a twin slot holds from an equal start: its result
      becomes the twin's result converted once after the loop. Together with the
      twins above: a value is carried in the layout that avoids a conversion in the
      body, in both layouts when the body uses both, and a peeled prologue (an scf.if
      before the loop) yields the layout the loop carries. A conversion of an scf.for
      result into a twin slot's layout is the twin's result. A dead scf.for slot
      (result unused, body argument feeding, through pure ops or a nested scf.for,
      only its own next value) is deleted with those ops and the conversion of its
      start; so is a dead value of an scf.while (entering `before`, forwarded to an
      unused result, yielded back by `after`, read only by pure ops on that cycle).
    - a conversion of a value defined outside the enclosing loops is hoisted above them;
      when both branches of an `scf.if` yield a conversion from one layout, the if yields
      the unconverted values and one conversion follows it.

    Only branches and loops that every thread of the block takes alike (condition or
    bounds independent of the thread id) are crossed: a conversion moves data between
    threads. Stores keep their layouts and are never duplicated; results never change
    (the CPU reference executor checks every lit test and random programs before and
    after, at the layout level and lowered to the GPU level).

    Cost model (`_layout_cost`), in bytes moved per block: a shared-memory conversion
    writes every source register and reads every destination register (`smem_cost` per
    byte); a warp-shuffle conversion moves every destination register as a 32-bit word
    at least (`shuffle_cost` per byte); a register permutation or an identity moves
    nothing (the kind comes from `linear.conversion_kind`); a load moves every register's
    bytes (`gmem_cost` per byte: a repeated small load hits the lines the first brought
    into the cache); recomputing an op costs `alu_cost` per register element (constants,
    splats, broadcasts and expand_dims nothing); an op that only changes layout (the
    conversion was its only use) costs the difference. Code in an `scf.for` with constant
    bounds counts its trip count times, in any other loop `trips` times; both branches of
    an `scf.if` count in full. Costs compare lexicographically (the tie rule): weighted
    bytes, then expected bytes (each branch counted half, so a conversion that moves into
    one branch only wins), then conversions that move data, then identity conversions;
    equal costs leave the IR as it is, so every decision is deterministic.

    Options: `smem_cost` (default 1), `shuffle_cost` (1), `gmem_cost` (1), `alu_cost`
    (2; for f32 a recomputed element then costs as much as half a shared-memory round
    trip of it), `trips` (16), `reassociate` (false).
    Preconditions: distributed values live inside `layout.launch`."""

    name = "remove-layout-conversions"

    smem_cost: float = 1.0
    shuffle_cost: float = 1.0
    gmem_cost: float = 1.0
    alu_cost: float = 2.0
    trips: int = 16
    reassociate: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for name in ("smem_cost", "shuffle_cost", "gmem_cost", "alu_cost"):
            if not getattr(self, name) >= 0:
                raise TilecError(f"remove-layout-conversions: {name}={getattr(self, name)} must be >= 0")
        if self.trips < 1:
            raise TilecError(f"remove-layout-conversions: trips={self.trips} must be >= 1")
        model = CostModel(alu=self.alu_cost, shuffle=self.shuffle_cost, smem=self.smem_cost,
                          gmem=self.gmem_cost, trips=self.trips)
        _Remover(model, self.reassociate).run(op)


# ============================================================================ driver


@dataclass
class _Remover:
    model: CostModel
    reassociate: bool = False
    changed: bool = False
    equiv: dict[SSAValue, SSAValue] = field(default_factory=dict)
    """Values the rewrites made -> the values they equal in another layout."""

    def run(self, module: ModuleOp) -> None:
        local = PatternRewriteWalker(GreedyRewritePatternApplier(list(LOCAL_PATTERNS), dce_enabled=False))
        dce = PatternRewriteWalker(EraseDeadOp(), walk_reverse=True)
        for _ in range(100):
            self.changed = False
            self.changed |= local.rewrite_module(module)
            for cvt in [o for o in module.walk() if isinstance(o, layout.ConvertLayoutOp)]:
                if cvt.parent is None:
                    continue
                self.visit(cvt)
            self.changed |= dce.rewrite_module(module)
            for op in [o for o in module.walk() if isinstance(o, scf.ForOp)]:
                self.forward_slots(op)
            for op in [o for o in module.walk() if isinstance(o, scf.WhileOp)]:
                self.forward_while_slots(op)
            for op in [o for o in module.walk() if isinstance(o, scf.IfOp)]:
                self.prune_if(op)
            self.changed |= dce.rewrite_module(module)
            if not self.changed:
                break

    # ------------------------------------------------------------------ per conversion

    def visit(self, cvt: layout.ConvertLayoutOp) -> None:
        """The rewrites of one conversion that need analyses beyond the op (the local
        ones, `LOCAL_PATTERNS`, ran before; a conversion they still apply to waits for
        the next round)."""
        if cvt.source.type == cvt.result.type or _unused(cvt.result) \
                or isinstance(cvt.source.owner, layout.ConvertLayoutOp):
            return
        if self.use_twin_result(cvt):
            return
        if self.hoist_invariant(cvt):
            return
        if self.rematerialize(cvt):
            return
        if self.sink(cvt):
            return
        self.propagate(cvt)

    def propagate(self, cvt: layout.ConvertLayoutOp) -> bool:
        """Make what is computed from the converted value in the source layout instead,
        through uniform branches and loops, converting back where it leaves them (see
        `_forward_plan`), when that costs less."""
        fwd = ForwardPlan(self.model, cvt, self.equiv, self.reassociate)
        if not fwd.analyse():
            return False
        before, after = fwd.cost()
        if not after < before:
            return False
        fwd.build()
        self.changed = True
        return True

    def use_twin_result(self, cvt: layout.ConvertLayoutOp) -> bool:
        """A conversion of an scf.for result whose loop also carries the same value in
        the target layout (a twin slot: equal start, equal yield) is that slot's result."""
        src = cvt.source
        if not (isinstance(src, OpResult) and isinstance(src.op, scf.ForOp)):
            return False
        loop = src.op
        y = loop.body.block.last_op
        i = src.index
        for j, r in enumerate(loop.results):
            if j != i and r.type == cvt.result.type \
                    and self._same_value(y.operands[i], y.operands[j]) \
                    and self._same_value(loop.iter_args[i], loop.iter_args[j]):
                self.replace(cvt, r)
                return True
        return False

    def hoist_invariant(self, cvt: layout.ConvertLayoutOp) -> bool:
        """Move a conversion of a value defined outside the enclosing loops above them."""
        loop = None
        p = cvt.parent_op()
        src_block = block_of(cvt.source)
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
        """Recompute the converted value in the target layout (see `_remat_plan`)."""
        plan = Plan(self.model, {cvt}, self.equiv)
        node = plan.plan(cvt.source, cvt.result.type.encoding)
        if plan.too_big or (node.kind == "convert" and node.value is cvt.source):
            return False
        before = conversion_cost(self.model, cvt.source.type, cvt.result.type).scaled(
            point_weight(self.model, cvt.parent))
        if not plan.cost() < before:
            return False
        new = plan.build(node)
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
        w = point_weight(self.model, cvt.parent)
        before = conversion_cost(self.model, src_t, r.type).scaled(w)
        res = user.results[0]
        if isinstance(user, layout.ReduceOp):
            return self.sink_reduce(cvt, user, before, w)
        if not is_elementwise(user):
            return False
        enc = src_t.encoding
        plan = Plan(self.model, {cvt, user}, self.equiv, redirected={res})
        plan.nodes[(r, enc)] = Node("value", cvt.source)
        node = plan.plan(res, enc)
        if plan.too_big or node.kind != "clone":
            return False
        new_rt = with_encoding(res.type, enc)
        back = conversion_cost(self.model, new_rt, res.type).scaled(self._back_weight(res, plan, enc))
        after = plan.cost() + back + self._fold_gain(res, new_rt).scaled(w)
        ok = after < before or (
            before == after and kind_of(src_t, r.type) == "identity" and after.identities <= 1
        )
        if not ok:
            return False
        new = plan.build(node)
        new_cvt = layout.ConvertLayoutOp(new, res.type)
        Rewriter.insert_op(new_cvt, InsertPoint.after(new.owner))
        copy_loc(cvt, new_cvt)
        res.replace_all_uses_with(new_cvt.result)
        self.erase(user)
        if _unused(cvt.result):
            self.erase(cvt)
        self.changed = True
        return True

    def sink_reduce(self, cvt: layout.ConvertLayoutOp, user: layout.ReduceOp, before: Cost,
                    w: tuple[float, float]) -> bool:
        src_t = cvt.source.type
        res = user.results[0]
        exact = user.kind.data in ("max", "min") or isinstance(src_t.element_type, IntegerType)
        if not (exact or self.reassociate):
            return False  # another layout sums floats in another order
        ax = user.axis.value.data
        new_rt = with_encoding(res.type, SliceLayoutAttr(IntAttr(ax), src_t.encoding))
        after = (conversion_cost(self.model, new_rt, res.type) + self._fold_gain(res, new_rt)).scaled(w)
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

    def _back_weight(self, res: SSAValue, plan: Plan, enc) -> tuple[float, float]:
        """Where the conversion back of a sunk op's result will run: after the loop when
        the result only feeds loop slots whose body arguments die with the rewrite and
        that the plan gives a twin in the new layout (`forward_slots` then moves the
        conversion out), else in place."""
        def twinned(arg: SSAValue) -> bool:
            node = plan.nodes.get((arg, enc))
            return node is not None and node.kind == "arg"

        block = res.owner.parent
        uses = list(res.uses)
        loop = block.parent_op() if block is not None else None
        if not uses or not all(
            isinstance(u.operation, scf.YieldOp) and u.operation.parent is block for u in uses
        ):
            return point_weight(self.model, block)
        if isinstance(loop, scf.ForOp):
            args = [loop.body.block.args[1 + u.index] for u in uses]
            if all(twinned(a) for a in args) and all(plan.dead_use(u) for a in args for u in a.uses):
                return point_weight(self.model, loop.parent)
        if isinstance(loop, scf.WhileOp) and block is loop.after_region.block:
            before, after = loop.before_region.block, loop.after_region.block
            args = [before.args[u.index] for u in uses]
            # each value entering `before` is only forwarded to `after` arguments
            # that the rewrite leaves unread
            if all(twinned(a) for a in args) and all(
                    isinstance(u.operation, scf.ConditionOp) and u.index > 0
                    and twinned(after.args[u.index - 1])
                    and all(plan.dead_use(w) for w in after.args[u.index - 1].uses)
                    for a in args for u in a.uses):
                return point_weight(self.model, loop.parent)
        return point_weight(self.model, block)

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

    def forward_slots(self, loop: scf.ForOp) -> None:
        """Drop the slots of `loop` that its body no longer reads: unused ones, and ones
        that yield a conversion of another slot's yield from an equal start, whose
        result is then that slot's result converted after the loop."""
        body = loop.body.block
        y = body.last_op
        assert isinstance(y, scf.YieldOp)
        drop: list[int] = []
        for i, arg in enumerate(body.args[1:]):
            if is_distributed(arg.type) and _unused(loop.results[i]) and not _unused(arg):
                self._cut_dead_cycle(loop, i)
            if not _unused(arg) or not is_distributed(arg.type):
                continue
            res = loop.results[i]
            if not _unused(res):
                j = self._twin_slot(loop, i)
                if j is None:
                    continue
                c = layout.ConvertLayoutOp(loop.results[j], res.type)
                Rewriter.insert_op(c, InsertPoint.after(loop))
                copy_loc(y.operands[i].owner, c)
                res.replace_all_uses_with(c.result)
            drop.append(i)
            break  # one at a time: the twin's result has a use now
        if drop:
            keep = [i for i in range(len(body.args) - 1) if i not in drop]
            rebuild_for(loop, keep, [])
            self.changed = True

    def _cut_dead_cycle(self, loop: scf.ForOp, i: int) -> None:
        """When slot `i`'s result is unused and its body argument feeds, through pure ops
        of the body, nothing but its own next value (yield operand `i`), erase those ops
        and yield the init (a nested scf.for carrying it starts from the init too and
        loses its slot in turn): the slot is then unread and `forward_slots` drops it (and the
        conversion that initialised it becomes dead)."""
        body = loop.body.block
        y = body.last_op
        arg = body.args[1 + i]

        def edge(use: Use) -> list[SSAValue] | object | None:
            if use.operation is not y:
                return None
            return [] if use.index == i else _STOP

        found = _pure_cone(arg, (body,), edge, arg.type)
        if found is None:
            return
        seen, inner = found
        y.operands[i] = loop.iter_args[i]
        for o, k in inner:
            o.operands[k] = loop.iter_args[i]
        for o in sorted(seen, key=body.get_operation_index, reverse=True):
            Rewriter.erase_op(o)
        self.changed = True

    def forward_while_slots(self, loop: scf.WhileOp) -> None:
        """`forward_slots` for an `scf.while`: drop the distributed values entering
        `before` that it does not read, and the forwarded ones that `after` does not
        read whose result is unused or is another forwarded value's result converted."""
        before, after = loop.before_region.block, loop.after_region.block
        cond = before.last_op
        assert isinstance(cond, scf.ConditionOp)
        for i, arg in enumerate(before.args):
            if is_distributed(arg.type) and not _unused(arg):
                self._cut_dead_while_cycle(loop, i)
        drop_iter = [i for i, a in enumerate(before.args) if is_distributed(a.type) and _unused(a)]
        drop_fwd: list[int] = []
        for j, arg in enumerate(after.args):
            if not is_distributed(arg.type) or not _unused(arg):
                continue
            res = loop.results[j]
            if not _unused(res):
                v = cond.args[j]
                ks = [k for k, w in enumerate(cond.args)
                      if k != j and w is not v and self._same_value(v, w)]
                if not ks:
                    continue
                c = layout.ConvertLayoutOp(loop.results[ks[0]], res.type)
                Rewriter.insert_op(c, InsertPoint.after(loop))
                copy_loc(loop, c)
                res.replace_all_uses_with(c.result)
            drop_fwd.append(j)
            break  # one at a time: the twin's result has a use now
        if drop_iter or drop_fwd:
            rebuild_while(loop, [i for i in range(len(before.args)) if i not in drop_iter], [],
                          [j for j in range(len(after.args)) if j not in drop_fwd], [])
            self.changed = True

    def _cut_dead_while_cycle(self, loop: scf.WhileOp, i: int) -> None:
        """`_cut_dead_cycle` for an `scf.while`: when the value entering `before` at `i`
        feeds, through pure ops of `before` and `after` (or a nested scf.for's slot),
        only values that `scf.condition` forwards to unused results and values that
        `after` yields back into `before`, erase those ops and make every such yield
        the loop's init (each forwarded value: an init of its type); the values are
        then unread and `forward_while_slots` drops them, the conversions that
        initialised them becoming dead."""
        before, after = loop.before_region.block, loop.after_region.block
        cond, y = before.last_op, after.last_op
        iters, fwds = [i], []

        def edge(use: Use) -> list[SSAValue] | object | None:
            o = use.operation
            if o is cond:
                k = use.index - 1
                if k < 0 or not _unused(loop.results[k]):
                    return _STOP
                if k in fwds:
                    return []
                fwds.append(k)
                return [after.args[k]]
            if o is y:
                if use.index in iters:
                    return []
                iters.append(use.index)
                return [before.args[use.index]]
            return None

        found = _pure_cone(before.args[i], (before, after), edge, None)
        if found is None:
            return
        seen, inner = found
        # every cut edge takes an init of its type (defined above the loop)
        inits = {loop.arguments[m].type: loop.arguments[m] for m in sorted(iters, reverse=True)}
        needed = [cond.args[k].type for k in fwds] + [o.operands[j].type for o, j in inner]
        if not all(t in inits for t in needed):
            return
        for m in iters:
            y.operands[m] = loop.arguments[m]
        for k in fwds:
            cond.operands[1 + k] = inits[cond.args[k].type]
        for o, j in inner:
            o.operands[j] = inits[o.operands[j].type]
        for block in (after, before):
            mine = [o for o in seen if o.parent is block]
            for o in sorted(mine, key=block.get_operation_index, reverse=True):
                Rewriter.erase_op(o)
        self.changed = True

    def _twin_slot(self, loop: scf.ForOp, i: int) -> int | None:
        y = loop.body.block.last_op
        yi = y.operands[i]
        for j, yj in enumerate(y.operands):
            if j != i and is_distributed(yj.type) and self._same_value(yi, yj) \
                    and self._same_value(loop.iter_args[i], loop.iter_args[j]):
                return j
        return None

    def _same_value(self, a: SSAValue, b: SSAValue) -> bool:
        """Whether `a` and `b` hold the same elements (in any layouts)."""
        def root(v: SSAValue) -> SSAValue:
            while True:
                if v in self.equiv:
                    v = self.equiv[v]
                elif isinstance(v, OpResult) and isinstance(v.op, layout.ConvertLayoutOp):
                    v = v.op.source
                else:
                    return v
        return root(a) is root(b)

    def prune_if(self, op: scf.IfOp) -> None:
        """Drop the distributed results of an `scf.if` that nothing uses."""
        if not op.false_region.blocks:
            return
        keep = [i for i, r in enumerate(op.results) if not (_unused(r) and is_distributed(r.type))]
        if len(keep) != len(op.results):
            rebuild_if(op, keep, [])
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



# ============================================================================ local rewrites
# Rewrites that look at one op and its operands' producers only, as xDSL patterns; the
# driver applies them with a `PatternRewriteWalker` at the start of each round.


class FoldIdentityConversion(RewritePattern):
    """A conversion to its own type is its source."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: layout.ConvertLayoutOp, rewriter: PatternRewriter) -> None:
        if op.source.type == op.result.type:
            rewriter.replace(op, [], [op.source])


class EraseUnusedConversion(RewritePattern):
    """A conversion whose result nothing uses goes."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: layout.ConvertLayoutOp, rewriter: PatternRewriter) -> None:
        if _unused(op.result):
            rewriter.erase(op)


class FoldConversionChain(RewritePattern):
    """`convert(convert(x))` is one conversion of `x`, or `x` itself."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: layout.ConvertLayoutOp, rewriter: PatternRewriter) -> None:
        inner = op.source.owner
        if not isinstance(inner, layout.ConvertLayoutOp) or _unused(op.result):
            return
        x = inner.source
        if x.type == op.result.type:
            rewriter.replace(op, [], [x])
        else:
            rewriter.replace(op, layout.ConvertLayoutOp(x, op.result.type))


class ForwardEquivalentLayout(RewritePattern):
    """A conversion between layouts that are equal as linear layouts for the tensor's
    shape hands its uses that accept any layout (`layout.store` without a mask,
    `layout.convert_layout`) the source; it goes when no use is left."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: layout.ConvertLayoutOp, rewriter: PatternRewriter) -> None:
        src, dst = op.source.type, op.result.type
        if src == dst or _unused(op.result) or isinstance(op.source.owner, layout.ConvertLayoutOp) \
                or kind_of(src, dst) != "identity":
            return
        rewriter.replace_uses_with_if(
            op.result, op.source, lambda u: isinstance(u.operation, _LAYOUT_FREE_USERS)
            # a masked store's mask is typed in the value's layout: keep it
            and not (isinstance(u.operation, layout.StoreOp) and u.operation.mask is not None)
        )
        if _unused(op.result):
            rewriter.erase(op)


class SinkBranchConversions(RewritePattern):
    """Where both branches of a uniform `scf.if` yield a conversion from one layout,
    the if yields the unconverted values and one conversion follows it (never costs
    more: the two conversions become one)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.IfOp, rewriter: PatternRewriter) -> None:
        if not op.false_region.blocks or not uniform(op):
            return
        yt = op.true_region.block.last_op
        yf = op.false_region.block.last_op
        for i in range(len(op.results)):
            res = op.results[i]
            if not is_distributed(res.type):
                continue
            a, b = yt.operands[i].owner, yf.operands[i].owner
            if not (isinstance(a, layout.ConvertLayoutOp) and isinstance(b, layout.ConvertLayoutOp)
                    and a.source.type == b.source.type):
                continue
            src_t = a.source.type
            yt.operands[i] = a.source
            yf.operands[i] = b.source
            rewriter.notify_op_modified(yt)
            rewriter.notify_op_modified(yf)
            new_res = rewriter.replace_value_with_new_type(res, src_t)
            uses = list(new_res.uses)
            c = layout.ConvertLayoutOp(new_res, res.type)
            copy_loc(a, c)
            rewriter.insert_op(c, InsertPoint.after(op))
            for u in uses:
                u.operation.operands[u.index] = c.result
                rewriter.notify_op_modified(u.operation)


class EraseDeadOp(RewritePattern):
    """A pure op on distributed values whose results nothing uses goes."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if _removable(op) and all(_unused(r) for r in op.results):
            rewriter.erase(op)


LOCAL_PATTERNS = (FoldIdentityConversion(), EraseUnusedConversion(), FoldConversionChain(),
                  ForwardEquivalentLayout(), SinkBranchConversions())
"""The local rewrites, in the order each conversion tried them before."""


def _unused(v: SSAValue) -> bool:
    return v.first_use is None


def _removable(op: Operation) -> bool:
    if not op.results or not any(is_distributed(r.type) for r in op.results):
        return False
    return isinstance(
        op,
        layout.ConvertLayoutOp | layout.SplatOp | layout.ArangeOp | layout.BroadcastOp
        | layout.ExpandDimsOp | layout.ReduceOp | layout.LoadOp | arith.ConstantOp,
    ) or is_elementwise(op)


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


_STOP = object()
"""`_pure_cone`'s `edge` answer for a use that keeps the cone alive."""


def _pure_cone(
    start: SSAValue,
    blocks: tuple[Block, ...],
    edge: Callable[[Use], list[SSAValue] | object | None],
    inner_type: Attribute | None,
) -> tuple[list[Operation], list[tuple[scf.ForOp, int]]] | None:
    """The ops that `start` feeds, closed under their results, when every one is a pure
    op of `blocks` (`_removable`), an edge or a nested `scf.for`'s init: the dead cycle
    the loop-slot cutters erase. `edge(use)` classifies each use first: None (not an
    edge: walk on), `_STOP` (a live use: no cone) or the values that continue the walk
    across the edge (a loop's next iteration). A nested scf.for started from a walked
    value (of type `inner_type`, when given) is followed through its result: its slot
    is cut in turn. Returns (the pure ops, the (scf.for, operand index) inits) or None."""
    seen: list[Operation] = []
    inner: list[tuple[scf.ForOp, int]] = []
    work = [start]
    while work:
        v = work.pop()
        for use in list(v.uses):
            step = edge(use)
            if step is _STOP:
                return None
            if step is not None:
                work.extend(step)  # type: ignore[arg-type]
                continue
            o = use.operation
            if not any(o.parent is b for b in blocks):
                return None
            if isinstance(o, scf.ForOp) and use.index >= 3 and inner_type in (None, v.type):
                if (o, use.index) not in inner:
                    inner.append((o, use.index))
                    work.append(o.results[use.index - 3])
                continue
            if not _removable(o):
                return None
            if o not in seen:
                seen.append(o)
                work.extend(o.results)
    return seen, inner
