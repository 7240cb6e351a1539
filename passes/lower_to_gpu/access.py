"""Element access through run-time views, shared by the op families of `lower-to-gpu`:
storage offsets (swizzle applied), bounds and mask checks, guarded fast paths, scalar
and vector loads and stores, packing, masked reads and writes, and `scf.if` guards.

Functions of the builder `b` they emit with (`_gpu_builder.IndexBuilder`) and of
`View`s (view_values.py); they hold no state of their own."""


from __future__ import annotations

from math import gcd

from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import (
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    VectorType,
)
from xdsl.ir import Block, Operation, Region, SSAValue

from tilec.dialects.layout_attrs import element_bytes

from .._gpu_builder import IndexBuilder, IndexValue
from .view_values import (
    View,
    _eval_coords,
    _lane_coords,
    _mode_size,
)


def offset(b: IndexBuilder, v: View, inner: IndexValue) -> IndexValue:
    """Storage index of layout offset `inner` (base added, swizzle applied)."""
    if v.swizzle is None:
        return b.add_(v.base, b.add_(inner, v.swz_off))
    x = b.add_(inner, v.swz_off)
    sw = v.swizzle
    y = b.and_(x, sw.yyy_msk)
    y = b.shr_(y, sw.shift) if sw.shift >= 0 else b.shl_(y, -sw.shift)
    return b.add_(v.base, b.xor_(x, y))


def valid(b: IndexBuilder, v: View, coords: list, lanes: list | None = None) -> IndexValue:
    if v.mask is None:
        return True
    ok: IndexValue = True
    for mk in v.mask.chain():
        for k, x in enumerate(coords):
            if mk.bound[k] is None:
                continue
            r = b.add_(mk.off[k], b.mul_(mk.scale[k], x))
            if lanes is not None:
                r = b.add_(r, b.mul_(mk.lscale[k], lanes[k]))
            c = b.lt_(r, mk.bound[k])
            ok = b.land(ok, c)
    return ok


def in_bounds(b: IndexBuilder, v: View) -> IndexValue:
    """Whether every element of view v (this thread's part) lies inside its tensor:
    per masked mode k, the largest root coordinate touched,
    off + scale * (n - 1) + lscale * (lanes - 1), is < bound (False: unknown)."""
    if v.mask is None:
        return True
    ok: IndexValue = True
    for mk in v.mask.chain():
        if len(mk.off) != len(v.layout) or (v.vec is not None and len(v.vec) != len(v.layout)):
            return False
        for k, m in enumerate(v.layout):
            if mk.bound[k] is None:
                continue
            top = b.add_(mk.off[k], b.mul_(mk.scale[k], b.sub_(_mode_size(b, m), 1)))
            if v.vec is not None:
                top = b.add_(top, b.mul_(mk.lscale[k], b.sub_(_mode_size(b, v.vec[k]), 1)))
            ok = b.land(ok, b.lt_(top, mk.bound[k]))
    return ok


def fast_path(b: IndexBuilder, views: list, emit) -> list:
    """emit(masked) -> list of result values. When the masked views may be fully in
    bounds, one scf.if on that: unmasked code in the then branch, the per-element
    masked code in the else branch; the results are yielded from the scf.if."""
    cond = all_true(b, [in_bounds(b, v) for v in views])
    if cond is True or cond is False or all(v.mask is None for v in views):
        return emit(True)
    tb, eb = Block(), Block()
    with b.at(tb):
        rt = list(emit(False) or [])
    with b.at(eb):
        re_ = list(emit(True) or [])
    with b.at(tb):
        b.add(scf.YieldOp(*rt))
    with b.at(eb):
        b.add(scf.YieldOp(*re_))
    ifop = b.add(scf.IfOp(b.ssa(cond), [x.type for x in rt], Region(tb), Region(eb)))
    return list(ifop.results)


def if_op(b: IndexBuilder, cond: IndexValue, result_types=()):
    """scf.if on cond; returns (op, then_block, else_block)."""
    c = b.ssa(cond)
    tb, eb = Block(), Block()
    op = scf.IfOp(c, list(result_types), Region(tb), Region(eb) if result_types else Region())
    b.add(op)
    return op, tb, eb


CACHE_ATTR = "cache"
"""The attribute of a global `memref.load` / `memref.store` / `vector.load` /
`vector.store` that names its L2 eviction priority (a `layout.load`'s or
`layout.store`'s `cache`, dialects/layout.py `CACHE_HINTS`); the CUDA printer emits the
access with that hint."""


def _hinted(b: IndexBuilder, v: View, op: Operation) -> Operation:
    """`op` (an access of view v) with the builder's `cache_hint` where v is global memory."""
    if b.cache_hint is not None and v.space == "gmem":
        op.attributes[CACHE_ATTR] = StringAttr(b.cache_hint)
    return op


def load_scalar(b: IndexBuilder, v: View, off: IndexValue) -> SSAValue:
    return b.add(_hinted(b, v, memref.LoadOp.get(v.mem, [b.ssa(off)]))).results[0]


def store_scalar(b: IndexBuilder, v: View, x: SSAValue, off: IndexValue):
    b.add(_hinted(b, v, memref.StoreOp.get(x, v.mem, [b.ssa(off)])))


def load_vec(b: IndexBuilder, v: View, off: IndexValue, n: int) -> SSAValue:
    vt = VectorType(v.elem, [n])
    return b.add(_hinted(b, v, vector.LoadOp(v.mem, [b.ssa(off)], vt))).results[0]


def store_vec(b: IndexBuilder, v: View, x: SSAValue, off: IndexValue):
    b.add(_hinted(b, v, vector.StoreOp(x, v.mem, [b.ssa(off)])))


def extract(b: IndexBuilder, x: SSAValue, j: int) -> SSAValue:
    return b.add(vector.ExtractOp(x, [j], x.type.element_type)).results[0]


def pack(b: IndexBuilder, xs: list, elem) -> SSAValue:
    # the registers of one loaded vector, in order: store that vector again
    src = None
    for j, x in enumerate(xs):
        o = x.owner
        if not (isinstance(o, vector.ExtractOp) and len(o.static_position.get_values()) == 1
                and o.static_position.get_values()[0] == j and not o.dynamic_position):
            break
        if src is None:
            src = o.vector
        elif o.vector is not src:
            break
    else:
        if src is not None and src.type == VectorType(elem, [len(xs)]):
            return src
    vt = VectorType(elem, [len(xs)])
    acc = b.add(vector.BroadcastOp(xs[0], vt)).results[0]
    for j, x in enumerate(xs[1:], 1):
        acc = b.add(vector.InsertOp(x, acc, [j])).results[0]
    return acc


def zero(b: IndexBuilder, elem) -> SSAValue:
    attr = IntegerAttr(0, elem) if isinstance(elem, IntegerType) else FloatAttr(0.0, elem)
    key = ("zero", elem)
    if key not in b.memo:
        op = arith.ConstantOp(attr)
        e = b.entry
        e.insert_op_before(op, e.first_op) if e.first_op else e.add_op(op)
        b.memo[key] = op.result
    return b.memo[key]


def vec_info(b: IndexBuilder, v: View, order: tuple[int, ...] | None = None) -> tuple[int, int]:
    """(lanes, run): `run` is the widest access (a power of two) that every vector of
    the view is made of: its lanes come in aligned groups of `run` contiguous
    elements (a 2x2 vector of a row-major tile is two runs of 2). Lanes 0 (dynamic
    vector layouts) and run 1 when nothing wider is safe."""
    if v.vec is None:
        return 1, 1
    n = 1
    for m in v.vec:
        for s, _ in m:
            if not isinstance(s, int):
                return 0, 1
            n *= s
    offs = []
    for j in range(n):
        o = _eval_coords(b, v.vec, _lane_coords(b, v.vec, j, order))
        if not isinstance(o, int):
            return n, 1
        offs.append(o)
    eb = element_bytes(v.elem)
    g = b.div_of(v.base) if not isinstance(v.base, int) else (v.base or 1 << 30)
    for m in v.layout:
        for _, d in m:
            g = gcd(g, d if isinstance(d, int) else b.div_of(d))
    g = gcd(g, (v.swz_off or 1 << 30) if isinstance(v.swz_off, int) else b.div_of(v.swz_off))
    # a swizzle moves offset bits >= its base M: an aligned run of at most 2**M
    # elements stays contiguous and aligned
    unit = 1 << 30 if v.swizzle is None else 1 << v.swizzle.base

    def fits(k: int) -> bool:
        if n % k or k * eb > 16 or g % k or k > unit or (v.space == "gmem" and v.align % (k * eb)):
            return False
        return all(
            offs[q] % k == 0 and offs[q:q + k] == list(range(offs[q], offs[q] + k))
            for q in range(0, n, k)
        )

    run = 1
    while fits(run * 2):
        run *= 2
    return n, run


def masked_read(b: IndexBuilder, v: View, off0: IndexValue, valid: list, offs: list, n: int, elem, other) -> list:
    """Read n elements (a vector at off0 when n > 1) guarded by per-lane validity."""

    def plain():
        if n == 1:
            return [load_scalar(b, v, off0)]
        x = load_vec(b, v, off0, n)
        return [extract(b, x, j) for j in range(n)]

    if all(c is True for c in valid):
        return plain()
    fill = other if other is not None else zero(b, elem)
    same = all(b.ssa(c) is b.ssa(valid[0]) if not isinstance(c, bool) and not isinstance(valid[0], bool) else c is valid[0] for c in valid)
    if same and n > 1:
        x = guarded_read(b, valid[0], lambda: load_vec(b, v, off0, n),
                              lambda: b.add(vector.BroadcastOp(fill, VectorType(elem, [n]))).results[0])
        return [extract(b, x, j) for j in range(n)]
    if n > 1 and not any(c is False for c in valid):
        # lanes that may differ: the vector where all hold, else lane by lane
        return read_all_or_lanes(b, v, [off0] + [offs(j) for j in range(1, n)], valid, elem, fill)
    # one element, or lanes some of which never hold: scalar guarded loads
    outs = []
    for j, c in enumerate(valid):
        o = off0 if n == 1 else offs(j)  # computed before the scf.if, as used after it
        outs.append(guarded_read(b, c, lambda o=o: load_scalar(b, v, o), lambda: fill))
    return outs


def guarded_read(b: IndexBuilder, cond: IndexValue, read, fill) -> SSAValue:
    """read() where cond holds, else fill(): an scf.if yielding the value (the read
    alone when cond is True)."""
    if cond is True:
        return read()
    x = None

    def then():
        nonlocal x
        x = read()
        return x

    tb, eb = Block(), Block()
    with b.at(tb):
        b.add(scf.YieldOp(then()))
    with b.at(eb):
        b.add(scf.YieldOp(fill()))
    return b.add(scf.IfOp(b.ssa(cond), [x.type], Region(tb), Region(eb))).results[0]


def masked_write(b: IndexBuilder, v: View, xs: list, off0: IndexValue, valid: list, offs: list, pre_vec: SSAValue | None = None):
    n = len(xs)

    def plain(guard_lanes: bool):
        if n == 1 and not guard_lanes:
            store_scalar(b, v, xs[0], off0)
        elif not guard_lanes:
            store_vec(b, v, pre_vec if pre_vec is not None else pack(b, xs, v.elem), off0)
        else:
            for j, (x, c) in enumerate(zip(xs, valid)):
                o = offs(j)
                if c is True:
                    store_scalar(b, v, x, o)
                elif c is not False:
                    _, tb, _ = if_op(b, c)
                    with b.at(tb):
                        store_scalar(b, v, x, o)
                        b.add(scf.YieldOp())

    if all(c is True for c in valid):
        plain(False)
        return
    same = all((not isinstance(c, bool)) and (not isinstance(valid[0], bool)) and b.ssa(c) is b.ssa(valid[0]) for c in valid)
    if same or n == 1:
        _, tb, _ = if_op(b, valid[0])
        with b.at(tb):
            plain(False)
            b.add(scf.YieldOp())
        return
    if not any(c is False for c in valid):
        # lanes that may differ: the vector where all hold, else lane by lane
        write_all_or_lanes(b, v, xs, [off0] + [offs(j) for j in range(1, n)], valid)
        return
    plain(True)


def all_or_lanes(b: IndexBuilder, masks: list[IndexValue], whole, lanes, result_types=()):
    """whole() where every lane's mask holds, else lanes(): an scf.if on their
    conjunction (either body returns the values to yield)."""
    tb, eb = Block(), Block()
    with b.at(tb):
        b.add(scf.YieldOp(*whole()))
    with b.at(eb):
        b.add(scf.YieldOp(*lanes()))
    return b.add(scf.IfOp(b.ssa(all_true(b, masks)), list(result_types), Region(tb), Region(eb))).results


def read_all_or_lanes(b: IndexBuilder, view: View, offs: list, masks: list, elem, fill) -> list:
    """A vector whose lanes' masks may disagree: one vector read where all hold,
    per-lane guarded reads otherwise."""
    for o in offs:
        b.ssa(o)  # computed before the scf.if, as used in both branches

    def lanes():
        reads = [guarded_read(b, m, lambda o=o: load_scalar(b, view, o), lambda: fill) for m, o in zip(masks, offs)]
        return [pack(b, reads, elem)]

    n = len(offs)
    x = all_or_lanes(b, masks, lambda: [load_vec(b, view, offs[0], n)], lanes, [VectorType(elem, [n])])[0]
    return [extract(b, x, j) for j in range(n)]


def write_all_or_lanes(b: IndexBuilder, view: View, vals: list, offs: list, masks: list) -> None:
    """A vector whose lanes' masks may disagree: one vector write where all hold,
    per-lane guarded writes otherwise."""
    for o in offs:
        b.ssa(o)  # computed before the scf.if, as used in both branches
    packed = pack(b, vals, view.elem)

    def whole():
        store_vec(b, view, packed, offs[0])
        return []

    def lanes():
        for x, m, o in zip(vals, masks, offs):
            _, tb, _ = if_op(b, m)
            with b.at(tb):
                store_scalar(b, view, x, o)
                b.add(scf.YieldOp())
        return []

    all_or_lanes(b, masks, whole, lanes)


def all_true(b: IndexBuilder, cs: list) -> IndexValue:
    acc: IndexValue = True
    for c in cs:
        acc = b.land(acc, c)
    return acc


def same_condition(b: IndexBuilder, cs: list) -> bool:
    if any(isinstance(c, bool) for c in cs):
        return all(c is True for c in cs)
    return all(b.ssa(c) is b.ssa(cs[0]) for c in cs)


def guarded(b: IndexBuilder, cond: IndexValue, emit):
    if cond is True:
        emit()
        return
    if cond is False:
        return
    _, tb, _ = if_op(b, cond)
    with b.at(tb):
        emit()
        b.add(scf.YieldOp())
