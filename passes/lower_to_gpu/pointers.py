"""Pointer tensors (`dialects/layout_ptr.py`): `layout.splat` of a pointer,
`layout.addptr`, `layout.ptr_load`, `layout.ptr_store`.

A pointer is lowered to a `Ptr`: the memref of its argument (a `View` of it, for the
access helpers) and an element offset into it, an index `Val` for a scalar pointer, one
per register for a pointer tensor. Accesses move `vector` consecutive registers at
once (`vectorize-pointers` proved them contiguous and aligned); a mask guards each
vector with one predicate when `uniform_mask` says it is the same over the vector, and
otherwise with the conjunction of its lanes, falling back to per-lane accesses where
they disagree."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, TensorType, VectorType
from xdsl.ir import Block, Region, SSAValue

from tilec.dialects import layout
from tilec.dialects import layout_ptr as lp
from tilec.dialects.layout_attrs import PtrType

from .._gpu_builder import V, Val
from .base import KernelBase, _fail, lowers
from .view_values import View


@dataclass
class Ptr:
    view: View
    offs: Val | list


class PointerLowering(KernelBase):
    def pointer(self, v: SSAValue, op) -> Ptr:
        x = self.get(v)
        if isinstance(x, Ptr):
            return x
        t = v.type
        if isinstance(t, PtrType) and isinstance(x, SSAValue):
            return Ptr(View(x, 0, [], None, None, "gmem", t.element_type, t.alignment), 0)
        raise _fail(
            op, f"'{op.name}': pointer tensors are made by layout.splat of a pointer argument and layout.addptr"
        )

    def splat_pointer(self, op: layout.SplatOp):
        p = self.pointer(op.value, op)
        if isinstance(p.offs, list):
            raise _fail(op, "splat of a pointer tensor")
        n = self.linear(op.result.type, op).num_registers
        self.vals[op.result] = Ptr(p.view, [p.offs] * n)

    def _index(self, x: SSAValue | Val) -> Val:
        if isinstance(x, int | V):
            return x
        if isinstance(x.type, IndexType):
            return V(self.b, x)
        key = ("index_cast", x)
        if key not in self.b.memo:
            self.b.memo[key] = self.b.add(arith.IndexCastOp(x, IndexType())).results[0]
        return V(self.b, self.b.memo[key])

    @lowers(lp.AddPtrOp)
    def op_addptr(self, op: lp.AddPtrOp):
        p = self.pointer(op.ptr, op)
        b = self.b
        off = self.get(op.offset)
        if isinstance(p.offs, list):
            self.vals[op.result] = Ptr(p.view, [b.add_(o, self._index(x)) for o, x in zip(p.offs, off)])
        else:
            self.vals[op.result] = Ptr(p.view, b.add_(p.offs, self._index(off)))

    def _tensor_ptr(self, op) -> tuple[Ptr, TensorType, list]:
        """The pointers of a ptr_load / ptr_store, their type, and each register's
        coordinate."""
        p = self.pointer(op.ptrs, op)
        if not isinstance(p.offs, list):
            raise _fail(op, "expected a tensor of pointers")
        t: TensorType = op.ptrs.type
        return p, t, self.reg_coords(self.linear(t, op))

    def _lane_masks(self, op, group: list[int]) -> list[Val]:
        if op.mask is None:
            return [True] * len(group)
        bits = self.get(op.mask)
        if op.uniform_mask is not None:
            return [V(self.b, bits[group[0]])] * len(group)
        return [V(self.b, bits[r]) for r in group]

    def _all_or_lanes(self, masks: list[Val], whole, lanes, result_types=()):
        """whole() where every lane's mask holds, else lanes(): an scf.if on their
        conjunction (either body returns the values to yield)."""
        b = self.b
        cond: Val = True
        for m in masks:
            cond = b.land(cond, m)
        tb, eb = Block(), Block()
        with b.at(tb):
            b.add(scf.YieldOp(*whole()))
        with b.at(eb):
            b.add(scf.YieldOp(*lanes()))
        return b.add(scf.IfOp(b.ssa(cond), list(result_types), Region(tb), Region(eb))).results

    @lowers(lp.PtrLoadOp)
    def op_ptr_load(self, op: lp.PtrLoadOp):
        b = self.b
        p, t, regs = self._tensor_ptr(op)
        vec = op.vector.value.data if op.vector is not None else 1
        elem = lp.pointee(t)
        other = self.ssa(op.other) if op.other is not None else None
        fill = other if other is not None else self.zero(elem)
        out: list = [None] * len(regs)
        first: dict = {}
        for g in range(0, len(regs), vec):
            group = list(range(g, g + vec))
            if all(regs[r] in first for r in group):
                for r in group:
                    out[r] = out[first[regs[r]]]
                continue
            masks = self._lane_masks(op, group)
            offs = [p.offs[r] for r in group]
            distinct = vec > 1 and len({id(b.ssa(m)) for m in masks if not isinstance(m, bool)}) > 1
            if not distinct:
                vals = self.masked_read(p.view, offs[0], masks, offs.__getitem__, vec, elem, other)
            else:
                vals = self._read_all_or_lanes(p.view, offs, masks, elem, fill)
            for r, x in zip(group, vals):
                out[r] = x
                first.setdefault(regs[r], r)
        self.vals[op.result] = out

    def _read_all_or_lanes(self, view: View, offs: list, masks: list, elem, fill) -> list:
        """A vector whose lanes' masks may disagree: one vector read where all hold,
        per-lane guarded reads otherwise."""
        for o in offs:
            self.b.ssa(o)  # computed before the scf.if, as used in both branches

        def lanes():
            reads = [
                self.guarded_read(m, lambda o=o: self.load_scalar(view, o), lambda: fill) for m, o in zip(masks, offs)
            ]
            return [self.pack(reads, elem)]

        n = len(offs)
        x = self._all_or_lanes(masks, lambda: [self.load_vec(view, offs[0], n)], lanes, [VectorType(elem, [n])])[0]
        return [self.extract(x, j) for j in range(n)]

    @lowers(lp.PtrStoreOp)
    def op_ptr_store(self, op: lp.PtrStoreOp):
        b = self.b
        p, t, regs = self._tensor_ptr(op)
        ll = self.linear(t, op)
        vec = op.vector.value.data if op.vector is not None else 1
        xs = self.get(op.value)
        owner = self.store_owner(ll)
        seen: set = set()
        for g in range(0, len(regs), vec):
            if regs[g] in seen:
                continue
            group = list(range(g, g + vec))
            seen.update(regs[r] for r in group)
            masks = [b.land(owner, m) for m in self._lane_masks(op, group)]
            offs = [p.offs[r] for r in group]
            vals = [xs[r] for r in group]
            distinct = vec > 1 and len({id(b.ssa(m)) for m in masks if not isinstance(m, bool)}) > 1
            if not distinct:
                self.masked_write(p.view, vals, offs[0], masks, lambda j, offs=offs: offs[j])
                continue
            for o in offs:
                b.ssa(o)
            packed = self.pack(vals, p.view.elem)

            def lanes(vals=vals, masks=masks, offs=offs):
                for x, m, o in zip(vals, masks, offs):
                    _, tb, _ = self._if(m)
                    with b.at(tb):
                        self.store_scalar(p.view, x, o)
                        b.add(scf.YieldOp())
                return []

            self._all_or_lanes(
                masks, lambda packed=packed, offs=offs: (self.store_vec(p.view, packed, offs[0]), [])[1], lanes
            )
