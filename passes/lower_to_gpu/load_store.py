"""`layout.load` / `layout.store` of distributed tensors: one SSA value per register of
the linear layout, coordinates from the XORs of its bases, vector accesses where the
op's `vector` says so, masked reads and writes; `layout.prefetch` (one thread asks L2 for a row); `layout.prefetch_l1` (each thread asks L1
for its elements)."""


from __future__ import annotations

from xdsl.dialects import scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Region

from tilec.dialects import cuda, layout
from tilec.dialects.layout_attrs import element_bytes
from tilec.support.target import target_of

from .._gpu_builder import DynamicIndex, IndexValue
from . import access, registers
from .base import (
    _fail,
    lowers,
)
from .context import LoweringContext, OpFamily
from .matrix_moves import MatrixMoves
from .view_values import (
    View,
    _eval_coords,
    _flat_linear,
)


class LoadStoreLowering(OpFamily):
    def __init__(self, ctx: LoweringContext):
        super().__init__(ctx)
        self.matrix = MatrixMoves(ctx)
        """ldmatrix / stmatrix where they can be (matrix_moves.py)."""

    def element_offsets(self, v: View, ll, op):
        """Functions giving (storage index, validity) of register r's element of this
        thread; computed on demand (only for the registers actually accessed)."""
        b = self.b
        if len(v.layout) != ll.rank:
            raise _fail(op, "view rank and tensor rank differ")
        tco = registers.thread_coords(self.ctx, ll, op)
        tmask = registers.thread_mask(ll)
        regs = registers.reg_coords(ll)
        linear = [
            all(isinstance(s, int) for s, _ in m) and _flat_linear(m) for m in v.layout
        ]
        all_disjoint = all(
            linear[d] and all((rc[d] & tmask[d]) == 0 for rc in regs) for d in range(ll.rank)
        )
        toff = _eval_coords(b, v.layout, tco) if all_disjoint else None
        mks = v.mask.chain() if v.mask is not None else []
        troots = None
        if mks and all_disjoint:
            troots = [[b.add_(o, b.mul_(s, t)) for o, s, t in zip(m.off, m.scale, tco)] for m in mks]

        tbase = None
        if all_disjoint and v.swizzle is None:
            tbase = b.add_(v.base, b.add_(toff, v.swz_off))

        def off(r: int) -> IndexValue:
            rc = regs[r]
            if tbase is not None:
                return b.add_(tbase, _eval_coords(b, v.layout, list(rc)))
            if all_disjoint:
                return access.offset(self.b, v, b.add_(toff, _eval_coords(b, v.layout, list(rc))))
            cs = [b.xor_(t, x) for t, x in zip(tco, rc)]
            return access.offset(self.b, v, _eval_coords(b, v.layout, cs))

        def valid(r: int) -> IndexValue:
            if not mks:
                return True
            rc = regs[r]
            if troots is not None:
                ok: IndexValue = True
                for mk, troot in zip(mks, troots):
                    for k in range(len(rc)):
                        if mk.bound[k] is None:
                            continue
                        ok = b.land(ok, b.lt_(b.add_(troot[k], mk.scale[k] * rc[k]), mk.bound[k]))
                return ok
            return access.valid(self.b, v, [b.xor_(t, x) for t, x in zip(tco, rc)])

        return off, valid

    @lowers(layout.LoadOp)
    def op_layout_load(self, op: layout.LoadOp):
        self.smem_conversion_comment(op)
        if self.matrix.load(op):  # ldmatrix (matrix_moves.py)
            return
        v: View = self.values.view(op.view)
        rt: TensorType = op.result.type
        _, offs, valid, regs, vec, lanes = self._register_accesses(op, v, rt)
        other = self.ctx.ssa(op.other) if op.other is not None else None
        elem = rt.element_type

        def emit(masked: bool) -> list:
            ok = valid if masked else (lambda r: True)

            def read(group: list[int]) -> list:
                g = group[0]
                return access.masked_read(self.b, v, offs(g), lanes(ok, group), lambda r0: offs(g + r0), vec, elem, other)

            return registers.read_in_groups(regs, vec, read)

        with self.b.hinting(op.cache.data if op.cache is not None else None):
            regs_out = access.fast_path(self.b, [v], emit) if op.mask is None else emit(True)
        self.values.set_registers(op.result, regs_out)

    def _register_accesses(self, op: layout.LoadOp | layout.StoreOp, v: View, t: TensorType):
        """How a load or store of the distributed `t` through view `v` touches memory:
        the linear layout of `t`; register r's element offset and validity (with the
        op's computed mask); the registers' coordinates; the vector width (the op's, or
        the one a shared-memory access allows); and which lanes of a group take part."""
        ll = registers.linear(t, op)
        offs, valid = self.element_offsets(v, ll, op)
        valid = self._with_mask(op, valid)
        regs = registers.reg_coords(ll)
        vec = op.vector.value.data if op.vector is not None else self.matrix.shared_vector(op, t)
        return ll, offs, valid, regs, vec, _lane_validity(op)

    def _with_mask(self, op: layout.LoadOp | layout.StoreOp, valid):
        """The validity of register r's element conjoined with register r of the op's
        computed `mask` (a tensor of i1 in the value's layout), when it has one; the
        masked path is then always taken (the fast path's bounds test cannot know it)."""
        if op.mask is None:
            return valid
        bits = self.values.registers(op.mask)
        b = self.b
        return lambda r: b.land(valid(r), DynamicIndex(b, bits[r]))

    def smem_conversion_comment(self, op: layout.StoreOp | layout.LoadOp):
        """The `cuda.comment` for a shared-memory round trip of `lower-convert-layout`:
        its store and load carry `bank_conflicts` (worst ways - 1 of the access) and
        `vector`; stated once, at the store (at the load when it has no such store)."""
        if "bank_conflicts" not in op.attributes:
            return
        partner_cls = layout.LoadOp if isinstance(op, layout.StoreOp) else layout.StoreOp
        partners = [u.operation for u in op.view.uses
                    if isinstance(u.operation, partner_cls) and "bank_conflicts" in u.operation.attributes]
        if isinstance(op, layout.LoadOp) and partners:
            return  # said at the store
        sides = [op] + partners[:1]
        write = next((x for x in sides if isinstance(x, layout.StoreOp)), None)
        read = next((x for x in sides if isinstance(x, layout.LoadOp)), None)

        def info(x):
            return x.attributes["bank_conflicts"].value.data, x.vector.value.data if x.vector is not None else 1

        parts = []
        if write is not None:
            parts.append(f"{info(write)[0]} bank conflicts per write")
        if read is not None:
            parts.append(f"{info(read)[0]}{' bank conflicts' if write is None else ''} per read")
        vectors = sorted({info(x)[1] for x in (write, read) if x is not None})
        if len(vectors) == 1:
            parts.append(f"vector {vectors[0]}")
        else:
            parts.append(f"vectors of {info(write)[1]} (write) and {info(read)[1]} (read)")
        self.ctx.comment("convert_layout via smem: " + ", ".join(parts))

    @lowers(layout.PrefetchOp)
    def op_layout_prefetch(self, op: layout.PrefetchOp):
        """Thread 0 asks L2 for the view's bytes (one `cuda.prefetch_l2` from its first
        element's offset) where the view lies wholly inside its tensor; nothing on a
        target without bulk copies (TMA), nor where that cannot be known."""
        if not target_of(op).has("tma"):
            return
        b = self.b
        v: View = self.values.view(op.view)
        inside = access.in_bounds(b, v)
        if inside is False:
            return
        vt = op.view.type
        nbytes = vt.cute_layout.size() * element_bytes(vt.element_type)
        start = b.ssa(access.offset(b, v, 0))
        tb = Block()
        b.add(scf.IfOp(b.ssa(b.land(inside, b.eq0(self.ctx.tid))), [], Region(tb), Region()))
        with b.at(tb):
            b.add(cuda.PrefetchL2Op(v.mem, start, nbytes, op.cache.data if op.cache is not None else None))
            b.add(scf.YieldOp())

    @lowers(layout.PrefetchL1Op)
    def op_layout_prefetch_l1(self, op: layout.PrefetchL1Op):
        """Each thread asks L1 for the element of each register of `like` (one
        `cuda.prefetch_l1` per distinct coordinate, at the offset a `layout.load` would
        read), each guarded by its validity where the view is masked (a fast path
        without the guards where the thread's part lies inside its tensor)."""
        b = self.b
        v: View = self.values.view(op.view)
        ll = registers.linear(op.like, op)
        offs, valid = self.element_offsets(v, ll, op)
        regs = registers.reg_coords(ll)

        def emit(masked: bool) -> list:
            seen = set()
            for r, rc in enumerate(regs):
                if rc in seen:
                    continue
                seen.add(rc)
                ok = valid(r) if masked else True
                if ok is False:
                    continue
                if ok is True:
                    b.add(cuda.PrefetchL1Op(v.mem, b.ssa(offs(r))))
                    continue
                o = offs(r)  # computed before the scf.if
                tb = Block()
                b.add(scf.IfOp(b.ssa(ok), [], Region(tb), Region()))
                with b.at(tb):
                    b.add(cuda.PrefetchL1Op(v.mem, b.ssa(o)))
                    b.add(scf.YieldOp())
            return []

        access.fast_path(b, [v], emit)

    @lowers(layout.StoreOp)
    def op_layout_store(self, op: layout.StoreOp):
        b = self.b
        self.smem_conversion_comment(op)
        if self.matrix.store(op):  # stmatrix (matrix_moves.py)
            return
        v: View = self.values.view(op.view)
        t: TensorType = op.value.type
        xs = self.values.registers(op.value)
        ll, offs, valid, regs, vec, lanes = self._register_accesses(op, v, t)
        owner = registers.store_owner(self.ctx, ll)

        def emit(masked: bool) -> list:
            ok = valid if masked else (lambda r: True)
            seen = set()
            for g in range(0, len(regs), vec):
                if regs[g] in seen:
                    continue
                group = list(range(g, g + vec))
                for r in group:
                    seen.add(regs[r])
                vs = [b.land(owner, c) for c in lanes(ok, group)]
                access.masked_write(self.b, v, [xs[r] for r in group], offs(g), vs, lambda j, g=g: offs(g + j))
            return []

        with b.hinting(op.cache.data if op.cache is not None else None):
            if op.mask is None:
                access.fast_path(self.b, [v], emit)
            else:
                emit(True)


def _lane_validity(op: layout.LoadOp | layout.StoreOp):
    """lanes(ok, group): the validity of each register of a vector group. With
    `uniform_mask` (`vectorize` proved the masks the same over each vector of its
    `vector`; a pass that drops the `vector`, as a reload in another layout does,
    drops the claim) the first register's stands for all, so one predicate guards the
    whole vector."""
    if op.uniform_mask is not None and op.vector is not None:
        return lambda ok, group: [ok(group[0])] * len(group)
    return lambda ok, group: [ok(r) for r in group]
