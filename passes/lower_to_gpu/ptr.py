"""Pointer tensors (`dialects/layout_ptr.py`): `layout.splat` of a pointer,
`layout.addptr`, `layout.ptr_load`, `layout.ptr_store`.

A pointer is lowered to the element offsets into the argument it points into
(`layout_ptr.pointer_root`, known from the IR): an index `IndexValue` for a moved scalar
pointer, one index SSA value per register for a pointer tensor, so that shape ops,
`select`, `convert_layout` and loops move them as any register. An access reads the
argument's memref at those offsets. Accesses move `vector` consecutive registers at
once (`vectorize-pointers` proved them contiguous and aligned); a mask guards each
vector with one predicate when `uniform_mask` says it is the same over the vector, and
otherwise with the conjunction of its lanes, falling back to per-lane accesses where
they disagree."""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.ir import SSAValue

from tilec.dialects import layout
from tilec.dialects import layout_ptr as lp
from tilec.dialects.layout_attrs import PtrType

from .._gpu_builder import DynamicIndex, IndexValue
from . import access, registers
from .base import _fail, lowers
from .context import LoweringContext, OpFamily
from .lowered_values import LoweredScalar, RegisterTensor
from .view_values import View


def offsets_of(ctx: LoweringContext, v: SSAValue) -> IndexValue | tuple[SSAValue, ...]:
    """The element offsets a pointer value carries: 0 for the argument itself, an
    index for a moved scalar pointer, one index SSA value per register for a
    pointer tensor."""
    if isinstance(v.type, PtrType) and v is lp.pointer_root(v):
        return 0
    x = ctx.values.get(v)
    return x.registers if isinstance(x, RegisterTensor) else ctx.values.index(v)


def splat_pointer(ctx: LoweringContext, op: layout.SplatOp) -> None:
    """`layout.splat` of a pointer: its offsets in every register (arith_ops.py's splat)."""
    off = ctx.b.ssa(offsets_of(ctx, op.value))
    ctx.values.set_registers(op.result, [off] * registers.linear(op.result.type, op).num_registers)


class PointerLowering(OpFamily):
    def root_view(self, op) -> View:
        """The argument a pointer tensor points into, as a view for the access helpers."""
        root = lp.pointer_root(op.ptrs)
        t: PtrType = root.type  # type: ignore[assignment]
        mem = self.values.get(root)
        if not isinstance(mem, LoweredScalar):
            raise _fail(op, f"'{op.name}': the pointers must point into a pointer argument")
        return View(mem.value, 0, [], None, None, "gmem", t.element_type, t.alignment)

    def _index(self, x: SSAValue | IndexValue) -> IndexValue:
        if isinstance(x, int | DynamicIndex):
            return x
        if isinstance(x.type, IndexType):
            return DynamicIndex(self.b, x)
        key = ("index_cast", x)
        if key not in self.b.memo:
            self.b.memo[key] = self.b.add(arith.IndexCastOp(x, IndexType())).results[0]
        return DynamicIndex(self.b, self.b.memo[key])

    @lowers(lp.AddPtrOp)
    def op_addptr(self, op: lp.AddPtrOp):
        b = self.b
        p = offsets_of(self.ctx, op.ptr)
        if isinstance(p, tuple):
            off = self.values.registers(op.offset)
            self.values.set_registers(op.result, [b.ssa(b.add_(self._index(o), self._index(x))) for o, x in zip(p, off)])
        else:
            off = self.values.scalar_or_index(op.offset)
            self.values.set_index(op.result, b.add_(self._index(p), self._index(off)))

    def _tensor_ptr(self, op) -> tuple[View, list, TensorType, list]:
        """The view of the argument a ptr_load / ptr_store points into, each
        register's offset, the pointers' type and each register's coordinate."""
        view = self.root_view(op)
        offs = [self._index(o) for o in self.values.registers(op.ptrs)]
        t: TensorType = op.ptrs.type
        return view, offs, t, registers.reg_coords(registers.linear(t, op))

    def _lane_masks(self, op, group: list[int]) -> list[IndexValue]:
        if op.mask is None:
            return [True] * len(group)
        bits = self.values.registers(op.mask)
        if op.uniform_mask is not None:
            return [DynamicIndex(self.b, bits[group[0]])] * len(group)
        return [DynamicIndex(self.b, bits[r]) for r in group]

    @lowers(lp.PtrLoadOp)
    def op_ptr_load(self, op: lp.PtrLoadOp):
        b = self.b
        view, poffs, t, regs = self._tensor_ptr(op)
        vec = op.vector.value.data if op.vector is not None else 1
        elem = lp.pointee(t)
        other = self.ctx.ssa(op.other) if op.other is not None else None
        fill = other if other is not None else access.zero(self.b, elem)

        def read(group: list[int]) -> list:
            masks = self._lane_masks(op, group)
            offs = [poffs[r] for r in group]
            distinct = vec > 1 and len({id(b.ssa(m)) for m in masks if not isinstance(m, bool)}) > 1
            if not distinct:
                return access.masked_read(self.b, view, offs[0], masks, offs.__getitem__, vec, elem, other)
            return access.read_all_or_lanes(self.b, view, offs, masks, elem, fill)

        self.values.set_registers(op.result, registers.read_in_groups(regs, vec, read))

    @lowers(lp.PtrStoreOp)
    def op_ptr_store(self, op: lp.PtrStoreOp):
        b = self.b
        view, poffs, t, regs = self._tensor_ptr(op)
        ll = registers.linear(t, op)
        vec = op.vector.value.data if op.vector is not None else 1
        xs = self.values.registers(op.value)
        owner = registers.store_owner(self.ctx, ll)
        seen: set = set()
        for g in range(0, len(regs), vec):
            if regs[g] in seen:
                continue
            group = list(range(g, g + vec))
            seen.update(regs[r] for r in group)
            masks = [b.land(owner, m) for m in self._lane_masks(op, group)]
            offs = [poffs[r] for r in group]
            vals = [xs[r] for r in group]
            distinct = vec > 1 and len({id(b.ssa(m)) for m in masks if not isinstance(m, bool)}) > 1
            if not distinct:
                access.masked_write(self.b, view, vals, offs[0], masks, lambda j, offs=offs: offs[j])
                continue
            access.write_all_or_lanes(self.b, view, vals, offs, masks)

    @lowers(lp.PtrPrefetchOp)
    def op_ptr_prefetch(self, op: lp.PtrPrefetchOp):
        """One `cuda.prefetch_global_l2` per distinct register of the thread's pointers,
        each under its mask bit (an `scf.if`) where there is a mask; `bulk`, `edge` and `row` passed on."""
        from tilec.dialects import cuda

        b = self.b
        view, poffs, _, regs = self._tensor_ptr(op)
        bits = self.values.registers(op.mask) if op.mask is not None else None
        edge = op.edge.value.data if op.edge is not None else None
        row = b.ssa(self._index(self.values.scalar_or_index(op.row))) if op.row is not None else None
        seen: set = set()
        for r, coord in enumerate(regs):
            if coord in seen:
                continue
            seen.add(coord)
            if bits is None:
                b.add(cuda.PrefetchGlobalL2Op(view.mem, b.ssa(poffs[r]), op.bulk is not None, edge, row))
                continue
            _, tb, _ = access.if_op(b, DynamicIndex(b, bits[r]))
            with b.at(tb):
                b.add(cuda.PrefetchGlobalL2Op(view.mem, b.ssa(poffs[r]), op.bulk is not None, edge, row))
                b.add(scf.YieldOp())

    @lowers(lp.MultipleOfOp)
    def op_multiple_of(self, op: lp.MultipleOfOp):
        self.values.set(op.result, self.values.get(op.value))  # a promise for the analysis only
