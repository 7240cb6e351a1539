"""The `sink-reductions` pass: a loop that folds a reduction into an accumulator each trip carries the unreduced values instead and reduces once after the loop."""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tilec.dialects.encoding import DistributedEncoding
from tilec.dialects.layout import ReduceOp, SplatOp
from tilec.support.locations import copy_loc

from ._scf_slots import rebuild_for

SINKABLE = {
    ("add", True): arith.AddfOp, ("add", False): arith.AddiOp,
    ("max", True): arith.MaximumfOp, ("max", False): arith.MaxSIOp,
    ("min", True): arith.MinimumfOp, ("min", False): arith.MinSIOp,
}
"""The reduce kinds the pass sinks, for float (True) or integer elements, and the
elementwise op that is the kind's own combiner (the one `layout.reduce` lowers to)."""

EXACT = {("max", True), ("max", False), ("min", True), ("min", False), ("add", False)}
"""The sinkable kinds whose result does not depend on the order of combination: max and
min (IEEE 754-2019 maximum/minimum: associative, commutative, NaN-propagating), integer
add (modular). Float add is associative only up to rounding."""

HEIGHT_SLACK = 10
"""The additions a reduction's tree has past a thread's own elements and the trips: at
most 5 across the lanes of a warp, 4 across 16 warps, 1 to fold the initial value."""


def sum_reorder_bound(trips: int, per_thread: int, abs_sum: float, unit_roundoff: float = 2.0 ** -24) -> float:
    """A bound on |sunk - unsunk| for a float add reduction sunk out of a loop of `trips`
    trips whose reduced tensor holds `per_thread` elements a thread, `abs_sum` being
    the sum of |x| over every element reduced (all trips) and the initial value's |.|.

    Any order of summing n terms in floating point is a binary tree; with height h (the
    most additions on a path from a term to the result) the computed sum s' satisfies
    |s' - s| <= gamma_h * sum |x_i|, gamma_h = h u / (1 - h u) (Higham, Accuracy and
    Stability of Numerical Algorithms, 2nd ed., eq. 4.3 and its tree form). Unsunk, a
    term meets at most per_thread - 1 additions in its thread, the lane and warp steps,
    then one per later trip into the accumulator; sunk, at most one per trip into the
    carried element, then per_thread - 1, the same steps and one to fold the initial
    value. Both heights are at most h = trips + per_thread + HEIGHT_SLACK, so the two
    results differ by at most 2 gamma_h sum |x_i|. For RMSNorm at N = 50257 (13 trips,
    8 elements a thread) h = 31: 2 gamma_31 = 3.7e-6 of sum x^2, i.e. relative 3.7e-6
    on the mean square and 1.9e-6 on its rsqrt: below f32's tolerance of 1e-5."""
    h = trips + per_thread + HEIGHT_SLACK
    return 2 * h * unit_roundoff / (1 - h * unit_roundoff) * abs_sum


@dataclass(frozen=True)
class SinkReductionsPass(ModulePass):
    """Carry the unreduced tensor through a loop whose accumulator folds in one reduction a trip, and reduce it once after the loop.

    Matches an `scf.for` slot whose body argument `acc` has one use, `n = OP(acc, r)`
    (or `OP(r, acc)`), the slot's yielded value, with `r = layout.reduce %y {kind}`
    in the loop's own block, `r` used only by `n`, and OP the kind's own elementwise
    combiner (`SINKABLE`: addf / addi for add, maximumf / maxsi for max, minimumf /
    minsi for min). The accumulator is read by nothing else in the loop, so each trip
    only combines its reduction into it: the slot carries instead `P` of `%y`'s type,
    starting at the splat of the kind's identity (-0.0 for a float add, so that a sum
    of -0.0 stays -0.0; -inf / +inf; 0, the least and the greatest integer), each trip
    `P' = OP(P, y)` elementwise, and after the loop the result is `OP(init, reduce(P))`
    with the reduce's axis and kind (the loop's result's uses take it). A zero-trip loop
    gives `OP(init, identity) = init`, as before.

    What it saves: a reduce across the threads is shuffles and, across warps, a round
    through shared memory with barriers (passes/lower_to_gpu/reduce.py); per trip it
    becomes one elementwise op a register, and the steps across lanes and warps happen
    once (RMSNorm's first loop over chunks: no barrier a trip for the reduction).
    The carried tensor costs its elements a thread in registers: the pass sinks only
    where that is at most `max_per_thread` (the tensor's elements over its layout's
    threads).

    Max and min are exact in any order (`EXACT`), so the results are bit for bit those
    of the loop as written; integer add too. Float add is reordered: the result is
    within `sum_reorder_bound` of the loop as written (2 gamma_h sum |x|, h the trips
    plus the elements a thread plus 10), the test's tolerance.

    Options:
      max_per_thread   the most elements a thread of the carried tensor (default 32;
                       0 sinks nothing).
      exact            sink only the exact kinds (`EXACT`): float adds stay in the loop
                       (default false).
    """

    name = "sink-reductions"

    max_per_thread: int = 32
    exact: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.max_per_thread <= 0:
            return
        for loop in [o for o in op.walk() if isinstance(o, scf.ForOp)]:
            i = 0
            while i < len(loop.iter_args):
                match = self._match(loop, i)
                if match is None:
                    i += 1
                    continue
                loop = _sink(loop, i, *match)

    def _match(self, loop: scf.ForOp, i: int) -> tuple[Operation, ReduceOp] | None:
        """(n, r) where slot `i` of `loop` is an accumulator of one reduction a trip."""
        body = loop.body.block
        acc = body.args[1 + i]
        y = body.last_op
        assert isinstance(y, scf.YieldOp)
        n = y.operands[i].owner
        if acc.uses.get_length() != 1 or not isinstance(n, Operation) or n.parent is not body:
            return None
        if n.results[0].uses.get_length() != 1 or len(n.operands) != 2 or acc not in n.operands:
            return None
        r = n.operands[1] if n.operands[0] is acc else n.operands[0]
        red = r.owner
        if not isinstance(red, ReduceOp) or red.parent is not body or r.uses.get_length() != 1 or r is acc:
            return None
        src: TensorType = red.source.type
        key = (red.kind.data, not isinstance(src.element_type, IntegerType))
        if SINKABLE.get(key) is not type(n) or (self.exact and key not in EXACT):
            return None
        if red.result.type != acc.type:
            return None
        enc = src.encoding
        if not isinstance(enc, DistributedEncoding):
            return None
        per_thread = -(-prod(src.get_shape()) // enc.thread_count())
        if per_thread > self.max_per_thread:
            return None
        return n, red


def identity(kind: str, t: TensorType):
    """The scalar identity of reduce `kind` on `t`'s element type (an attribute)."""
    el = t.element_type
    if isinstance(el, IntegerType):
        w = el.width.data
        v = {"add": 0, "max": -(1 << (w - 1)), "min": (1 << (w - 1)) - 1}[kind]
        return IntegerAttr(v, el)
    return FloatAttr({"add": -0.0, "max": float("-inf"), "min": float("inf")}[kind], el)


def _sink(loop: scf.ForOp, i: int, n: Operation, red: ReduceOp) -> scf.ForOp:
    """Slot `i` of `loop` (its accumulator folded by `n` with `red`'s result) carried
    unreduced; returns the rebuilt loop."""
    body = loop.body.block
    y = body.last_op
    assert isinstance(y, scf.YieldOp)
    acc = body.args[1 + i]
    acc_first = n.operands[0] is acc
    init = loop.iter_args[i]
    src = red.source
    st: TensorType = src.type
    # the identity tensor the new slot starts from, before the loop
    c = arith.ConstantOp(identity(red.kind.data, st), st.element_type)
    splat = SplatOp.create(operands=[c.result], result_types=[st])
    Rewriter.insert_op([c, splat], InsertPoint.before(loop))
    copy_loc(loop, c)
    copy_loc(loop, splat)
    splat.results[0].name_hint = "part0"
    # the old slot's uses after the loop, handed to the folded result below
    uses = [(u.operation, u.index) for u in loop.results[i].uses]
    for o, k in uses:
        o.operands = [*o.operands[:k], init, *o.operands[k + 1:]]
    y.operands = [*y.operands[:i], acc, *y.operands[i + 1:]]
    props, n_type = dict(n.properties), type(n)
    Rewriter.erase_op(n)
    Rewriter.erase_op(red)
    keep = [k for k in range(len(loop.iter_args)) if k != i]
    new = rebuild_for(loop, keep, [splat.results[0]])
    nb = new.body.block
    part = nb.args[-1]
    step = n_type.create(operands=[part, src], result_types=[st], properties=dict(props))
    ny = nb.last_op
    Rewriter.insert_op(step, InsertPoint.before(ny))
    copy_loc(ny, step)
    ny.operands = [*ny.operands[:-1], step.results[0]]
    part.name_hint, step.results[0].name_hint = "part", "part_next"
    # after the loop: one reduce of the carried tensor, folded into the initial value
    after = ReduceOp.create(operands=[new.results[-1]], result_types=[red.result.type],
                            properties=dict(red.properties))
    pair = [init, after.results[0]] if acc_first else [after.results[0], init]
    fold = n_type.create(operands=pair, result_types=[init.type], properties=dict(props))
    Rewriter.insert_op([after, fold], InsertPoint.after(new))
    copy_loc(new, after)
    copy_loc(new, fold)
    folded: SSAValue = fold.results[0]
    after.results[0].name_hint = "sunk"
    for o, k in uses:
        o.operands = [*o.operands[:k], folded, *o.operands[k + 1:]]
    return new
