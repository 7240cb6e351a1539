"""`layout.read` / `layout.write` (dialects/layout_access.py): the element at a
coordinate: one vector access where every element of a vectorized view is an aligned
run of contiguous lanes of at most 16 bytes (Mojo's `load[4](x, y)`), else one scalar
access per lane (packed into, or extracted from, the vector), guarded by the view's mask where it has one
(a read outside the tensor gives 0, a write there does nothing)."""

from __future__ import annotations

from math import gcd

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, VectorType
from xdsl.ir import SSAValue

from tilec.dialects import cuda
from tilec.dialects import layout_access as la
from tilec.dialects import layout_ptr as lp
from tilec.dialects import views

from tilec.dialects.layout_attrs import element_bytes

from .._gpu_builder import IndexValue
from . import access
from .base import lowers
from .context import OpFamily
from .view_values import View, _eval_coords, _mode_coords, _mode_size


def _divisor(v: SSAValue) -> int:
    """A known divisor of the index value `v` from how it is computed (constants,
    products, sums, casts, `layout.multiple_of`); 1 when nothing is known."""
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return abs(op.value.value.data) or 1 << 30
    if isinstance(op, arith.MuliOp):
        return _divisor(op.lhs) * _divisor(op.rhs)
    if isinstance(op, arith.AddiOp | arith.SubiOp):
        return gcd(_divisor(op.lhs), _divisor(op.rhs))
    if isinstance(op, arith.IndexCastOp):
        return _divisor(op.input)
    if isinstance(op, lp.MultipleOfOp):
        return max(op.divisor.value.data, _divisor(op.value))
    return 1


class ElementAccessLowering(OpFamily):
    def element_address(self, op, v: View, coords: list, vt=None) -> tuple[list[IndexValue], IndexValue]:
        """(the storage index of each lane of the element at `coords`, whether the
        element lies inside its tensor); `vt` the view's type (default: the op's
        `view`'s)."""
        b = self.b
        vt = vt if vt is not None else op.view.type
        profile = la.profile_of(op)
        form = "nested" if profile else la.coordinate_form(vt.cute_layout, len(coords))
        if form == "nested":
            idx = []
            for terms in la.nested_mode_terms(vt.cute_layout, profile):
                i = 0
                for k, w in terms:
                    i = b.add_(i, b.mul_(coords[k], w))
                idx.append(i)
        elif form == "modes":
            idx = coords
        elif form == "linear":
            idx = _mode_coords(b, v.layout, coords[0])
        else:
            idx, k = [], 0
            for ws in la.leaf_multipliers(vt.cute_layout):
                i: IndexValue = 0
                for j, w in enumerate(ws):
                    i = b.add_(i, b.mul_(coords[k + j], w))
                idx.append(i)
                k += len(ws)
        inner = _eval_coords(b, v.layout, idx)
        width = la.width_of(op)
        if width is not None:  # contiguous elements along a mode of stride 1; no mask
            return [access.offset(self.b, v, b.add_(inner, j)) for j in range(width)], True
        if v.vec is None:
            return [access.offset(self.b, v, inner)], access.valid(self.b, v, idx)
        n = vt.vector_size
        offs, valid = [], True
        for j in range(n):
            lanes = _mode_coords(b, v.vec, j)
            offs.append(access.offset(self.b, v, b.add_(inner, _eval_coords(b, v.vec, lanes))))
            valid = b.land(valid, access.valid(self.b, v, idx, lanes))
        return offs, valid

    def whole_vector(self, v: View) -> bool:
        """Whether every element of the vectorized view `v` is one aligned run of
        contiguous lanes (one vector access of at most 16 bytes)."""
        lanes, run = access.vec_info(self.b, v)
        return v.vec is not None and lanes > 1 and run == lanes

    def contiguous_vector(self, op, v: View, coords=None) -> bool:
        """Whether the `width` contiguous elements at the op's coordinate (`coords`,
        default the op's) are one aligned vector access of at most 16 bytes: the first
        element's storage index, the view's base plus each index times its mode's
        stride, is known a multiple of `width` (`_divisor` of the index values) and the
        buffer aligned to the vector."""
        width = la.width_of(op)
        if width is None or width < 2 or v.swizzle is not None:
            return False
        size = width * element_bytes(v.elem)
        if size > 16 or size & (size - 1):
            return False
        if v.space == "gmem" and v.align % size:
            return False
        g = self.b.div_of(v.base)
        for m, c in zip(v.layout, op.coords if coords is None else coords):
            if len(m) != 1:
                return False
            _, d = m[0]
            g = gcd(g, _divisor(c) * (d if isinstance(d, int) else self.b.div_of(d)))
        return g % width == 0

    @lowers(la.ReadOp)
    def op_layout_read(self, op: la.ReadOp):
        v: View = self.values.view(op.view)
        offs, valid = self.element_address(op, v, [self.values.index(c) for c in op.coords])

        def read():
            if self.contiguous_vector(op, v):
                return access.load_vec(self.b, v, offs[0], len(offs))
            if self.whole_vector(v):
                return access.load_vec(self.b, v, offs[0], len(offs))
            xs = [access.load_scalar(self.b, v, o) for o in offs]
            return access.pack(self.b, xs, v.elem) if isinstance(op.result.type, VectorType) else xs[0]

        def fill():
            z = access.zero(self.b, v.elem)
            return access.pack(self.b, [z] * len(offs), v.elem) if isinstance(op.result.type, VectorType) else z

        self.values.set_scalar(op.result, access.guarded_read(self.b, valid, read, fill))

    @lowers(la.WriteOp)
    def op_layout_write(self, op: la.WriteOp):
        v: View = self.values.view(op.view)
        offs, valid = self.element_address(op, v, [self.values.index(c) for c in op.coords])
        x = self.ctx.ssa(op.value)

        def write():
            if self.contiguous_vector(op, v):
                access.store_vec(self.b, v, x, offs[0])
                return
            if self.whole_vector(v):
                access.store_vec(self.b, v, x, offs[0])
            elif isinstance(op.value.type, VectorType):
                for j, o in enumerate(offs):
                    access.store_scalar(self.b, v, access.extract(self.b, x, j), o)
            else:
                access.store_scalar(self.b, v, x, offs[0])

        access.guarded(self.b, valid, write)

    @lowers(la.CopyChunkAsyncOp)
    def op_layout_copy_chunk_async(self, op: la.CopyChunkAsyncOp):
        """One `cuda.cp_async` of the chunk where both first elements are known aligned
        to it (`contiguous_vector`; its `prefetch` size and `l1` with it) or the chunk is one
        element of a `cp.async` size (4 or 8 bytes: an element is aligned to itself where its
        global buffer is; an 8-byte `box<tiles>` phase-1 chunk of f64), else its elements copied one at a time
        (through a register, done when issued); then `cuda.cp_async_commit` (the op
        commits one group) unless `uncommitted`."""
        s: View = self.values.view(op.source)
        d: View = self.values.view(op.dest)
        soffs, _ = self.element_address(op, s, [self.values.index(c) for c in op.src_coords], op.source.type)
        doffs, _ = self.element_address(op, d, [self.values.index(c) for c in op.dst_coords], op.dest.type)
        size = element_bytes(s.elem)
        one = (len(soffs) == 1 and s.elem == d.elem and s.swizzle is None and d.swizzle is None
               and size in la.CHUNK_ASYNC_BYTES and size < 16 and all(v.space != "gmem" or v.align % size == 0
                                                                     for v in (s, d)))
        if one or (self.contiguous_vector(op, s, op.src_coords) and self.contiguous_vector(op, d, op.dst_coords)):
            nbytes = len(soffs) * element_bytes(s.elem)
            prefetch = None if op.prefetch is None or nbytes != 16 else op.prefetch.value.data
            self.b.add(cuda.CpAsyncOp(d.mem, self.b.ssa(doffs[0]), s.mem, self.b.ssa(soffs[0]), nbytes,
                                      prefetch=prefetch, l1=op.l1 is not None and nbytes == 16))
        else:
            for so, do in zip(soffs, doffs):
                access.store_scalar(self.b, d, access.load_scalar(self.b, s, so), do)
        if op.uncommitted is None:
            self.b.add(cuda.CpAsyncCommitOp())

    @lowers(la.DimOp)
    def op_layout_dim(self, op: la.DimOp):
        v: View = self.values.view(op.view)
        size = _mode_size(self.b, v.layout[op.axis])
        self.values.set_index(op.result, views.valid_extent(size, v.mask, op.axis, self.b.arith))
