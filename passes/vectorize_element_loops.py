"""The `vectorize-element-loops` pass: an element loop over a thread's fragment becomes
a loop over vectors where the elements are contiguous."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from tilec.dialects import layout, views
from tilec.dialects import layout_access as la
from tilec.dialects import layout_ptr as lp
from tilec.dialects.layout_attrs import TensorViewType, element_bytes
from tilec.support.diagnostics import TilecError
from tilec.support.locations import copy_loc

ELEMENTWISE = (
    arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp, arith.MaximumfOp, arith.MinimumfOp, arith.NegfOp,
    arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.DivSIOp, arith.DivUIOp, arith.RemSIOp, arith.RemUIOp,
    arith.AndIOp, arith.OrIOp, arith.XOrIOp, arith.ShLIOp, arith.ShRSIOp, arith.ShRUIOp, arith.MaxSIOp,
    arith.MinSIOp, arith.MaxUIOp, arith.MinUIOp, arith.FloorDivSIOp, arith.CeilDivSIOp, arith.CeilDivUIOp,
)
"""The `arith` ops whose vector form is the same op on vectors of their type (lowered
lane by lane, tests/unit/test_vector_arith_cuda.py)."""


def _const_index(v: SSAValue) -> int | None:
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr) and isinstance(op.value.type, IndexType):
        return op.value.value.data
    return None


def _root(v: SSAValue) -> SSAValue:
    """The value a view's chain of view ops starts from (a pointer, an allocation)."""
    while isinstance(v.owner, layout.DERIVED_VIEW_OPS) or (
        isinstance(v.owner, layout.ViewOp) and isinstance(v.owner.source.type, TensorViewType)
    ):
        v = v.owner.source  # type: ignore[union-attr]
    return v


def _inside(v: SSAValue, loop: scf.ForOp) -> bool:
    owner = v.owner
    op = owner.parent_op() if isinstance(owner, Block) else owner
    while op is not None:
        if op is loop:
            return True
        op = op.parent_op()
    return False


@dataclass
class _Access:
    op: la.ReadOp | la.WriteOp
    coords: list  # the coordinate, one index per mode, the iterated one None


class _NotVectorizable(Exception):
    pass


def _access(op: la.ReadOp | la.WriteOp, iv: SSAValue, loop: scf.ForOp) -> _Access:
    """The access's coordinate with the iterated mode marked, where `iv` indexes the
    view's one contiguous mode (flat, stride 1) and every other index is the same in
    every iteration: one index per mode, or one for the whole view where every other
    mode has extent 1 (CuTe's `frag(i)`)."""
    t: TensorViewType = op.view.type  # type: ignore[assignment]
    if t.vec_layout is not None or t.is_masked or la.width_of(op) is not None or op.profile is not None:
        raise _NotVectorizable
    if _inside(op.view, loop) or isinstance(t.element_type, VectorType):
        raise _NotVectorizable
    try:
        k = la.contiguous_mode(t.cute_layout)
    except VerifyException:
        raise _NotVectorizable from None
    ms = views.modes(t.cute_layout)
    coords = list(op.coords)
    if len(coords) == len(ms):
        if coords[k] is not iv or any(c is iv or _inside(c, loop) for j, c in enumerate(coords) if j != k):
            raise _NotVectorizable
        return _Access(op, [None if j == k else c for j, c in enumerate(coords)])
    if len(coords) == 1 and coords[0] is iv and all(m.size() == 1 for j, m in enumerate(ms) if j != k):
        return _Access(op, [None if j == k else 0 for j in range(len(ms))])
    raise _NotVectorizable


def _plan(loop: scf.ForOp, max_bytes: int) -> tuple[int, list[Operation]] | None:
    """(the vector width, the body's ops) of a loop this pass rewrites, else None."""
    if loop.iter_args or loop.results:
        return None
    lb, ub, step = (_const_index(x) for x in (loop.lb, loop.ub, loop.step))
    if lb is None or ub is None or step != 1 or ub <= lb:
        return None
    iv = loop.body.block.args[0]
    body = [o for o in loop.body.block.ops if not isinstance(o, scf.YieldOp)]
    widest = 0
    by_root: dict[SSAValue, set] = {}
    try:
        for o in body:
            if isinstance(o, la.ReadOp | la.WriteOp):
                a = _access(o, iv, loop)
                t: TensorViewType = o.view.type  # type: ignore[assignment]
                widest = max(widest, element_bytes(t.element_type))
                key = (o.view, tuple(id(c) if isinstance(c, SSAValue) else c for c in a.coords))
                by_root.setdefault(_root(o.view), set()).add(key)
                if isinstance(o, la.WriteOp) and not (_inside(o.value, loop) or _scalar_constant(o.value)):
                    raise _NotVectorizable
            elif isinstance(o, arith.ConstantOp) and _scalar_constant(o.result):
                continue
            elif isinstance(o, ELEMENTWISE):
                r = o.results[0].type
                if any(x.type != r for x in o.operands) or isinstance(r, VectorType | IndexType):
                    raise _NotVectorizable
                if any(not _inside(x, loop) and not _scalar_constant(x) for x in o.operands):
                    raise _NotVectorizable
                widest = max(widest, element_bytes(r))
            else:
                raise _NotVectorizable
    except (_NotVectorizable, VerifyException):
        return None
    # an element's accesses are reordered only among themselves: the views of one
    # storage must be one view at one coordinate (else a write may reach another
    # iteration's element before that iteration reads it)
    if any(len(keys) > 1 for keys in by_root.values()) or not by_root:
        return None
    v = max_bytes // max(widest, 1)
    while v > 1 and ((ub - lb) % v or lb % v):
        v //= 2
    return (v, body) if v > 1 else None


def _scalar_constant(v: SSAValue) -> bool:
    op = v.owner
    return isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr | FloatAttr) \
        and not isinstance(op.value.type, IndexType)


def _rewrite(loop: scf.ForOp, v: int, body: list[Operation]) -> None:
    """The loop again with step v: each access of `width = v` at the index stated a
    multiple of v (`layout.multiple_of`, which the lowering reads to make one aligned
    vector access where the base is aligned too), the arith on vectors."""
    before = InsertPoint.before(loop)
    step = arith.ConstantOp(IntegerAttr(v, IndexType()))
    Rewriter.insert_op(step, before)
    new_body = Block(arg_types=[IndexType()])
    iv = new_body.args[0]
    if loop.body.block.args[0].name_hint:
        iv.name_hint = loop.body.block.args[0].name_hint
    aligned = lp.MultipleOfOp(iv, v)
    new_body.add_op(aligned)
    mapped: dict[SSAValue, SSAValue] = {}
    splats: dict[SSAValue, SSAValue] = {}
    zero: list[SSAValue] = []

    def vec(x: SSAValue) -> SSAValue:
        if x in mapped:
            return mapped[x]
        if x not in splats:  # a scalar constant: its splat, made once before the loop
            c: arith.ConstantOp = x.owner  # type: ignore[assignment]
            vt = VectorType(x.type, [v])
            s = arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(vt, [c.value.value.data] * v))
            copy_loc(c, s)
            Rewriter.insert_op(s, before)
            splats[x] = s.result
        return splats[x]

    def coords(o, iv_value) -> list:
        a = _access(o, loop.body.block.args[0], loop)
        out = []
        for c in a.coords:
            if c is None:
                out.append(iv_value)
            elif isinstance(c, int):  # 0: a mode of extent 1
                if not zero:
                    z = arith.ConstantOp(IntegerAttr(0, IndexType()))
                    Rewriter.insert_op(z, before)
                    zero.append(z.result)
                out.append(zero[0])
            else:
                out.append(c)
        return out

    for o in body:
        if isinstance(o, arith.ConstantOp):  # splat before the loop where used
            continue
        if isinstance(o, la.ReadOp):
            n = la.ReadOp(o.view, coords(o, aligned.result), width=v)
            mapped[o.result] = n.result
        elif isinstance(o, la.WriteOp):
            n = la.WriteOp(vec(o.value), o.view, coords(o, aligned.result), width=v)
        else:
            n = type(o).create(operands=[vec(x) for x in o.operands],
                               result_types=[VectorType(o.results[0].type, [v])],
                               properties=dict(o.properties), attributes=dict(o.attributes))
            mapped[o.results[0]] = n.results[0]
        copy_loc(o, n)
        for old, new in zip(o.results, n.results):
            if old.name_hint:
                new.name_hint = old.name_hint
        new_body.add_op(n)
    new_body.add_op(scf.YieldOp())
    new = scf.ForOp(loop.lb, loop.ub, step.result, [], Region(new_body))
    copy_loc(loop, new)
    Rewriter.replace_op(loop, new)


@dataclass(frozen=True)
class VectorizeElementLoopsPass(ModulePass):
    """Make a loop over the elements of a thread's fragment a loop over vectors where they are contiguous.

    CuTe's `for (i = 0; i < size(frag); ++i) rmem(i) = gmem(i) * 2` and Mojo's element
    loops: an `scf.for` in a `layout.launch` from a constant lower bound to a constant
    upper bound by step 1, without results, whose body only reads and writes elements
    (`layout.read` / `layout.write`) and computes on them (elementwise `arith` of one
    type on the elements read, and scalar constants, splat), becomes the same loop by step v
    over `width = v` accesses (Mojo's `load[v]`) and the arith on `vector<v x T>`, where:

      * every access indexes its view's one contiguous mode (flat, stride 1) by the
        loop's index, and every other mode by an index the same in every iteration
        (or the whole view by the loop's index where the other modes have extent 1);
        the view is neither vectorized nor masked, and made outside the loop;
      * the views of one storage (one pointer, one allocation) are one view at one
        coordinate, so that reordering the accesses within a vector keeps each
        element's reads and writes in order (pointer arguments do not alias);
      * v is the widest power of two with v * E <= max-bytes (E the widest element)
        that divides the trip count and the lower bound.

    The new loop states its index a multiple of v (`layout.multiple_of`): the lowering
    makes each access one vector access where the view's base is aligned too, and one
    access per lane otherwise (dialects/layout_access.py), so the rewrite is correct
    whatever the alignment. Any other loop is left as it is.

    Options:
      max-bytes=B   widest vector in bytes, a power of two in [1, 16] (default 16).
    """

    name = "vectorize-element-loops"

    max_bytes: int = 16

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        b = self.max_bytes
        if b <= 0 or b & (b - 1) or b > 16:
            raise TilecError(f"vectorize-element-loops: max-bytes={b} must be a power of two in [1, 16]")
        loops = [o for o in op.walk() if isinstance(o, scf.ForOp) and layout.enclosing_launch(o) is not None]
        for loop in loops:
            plan = _plan(loop, b)
            if plan is not None:
                _rewrite(loop, *plan)


