"""`layout.load` / `layout.store` of distributed tensors: one SSA value per register of
the linear layout, coordinates from the XORs of its bases, vector accesses where the
op's `vector` says so, masked reads and writes."""


from __future__ import annotations

from xdsl.dialects import scf, vector
from xdsl.dialects.builtin import (
    TensorType,
    VectorType,
)
from xdsl.ir import Block, Operation, Region, SSAValue

from tilec.dialects import layout
from tilec.dialects.errors import LayoutError
from tilec.dialects.layout_attrs import (
    to_linear,
)

from .._gpu_builder import V, Val
from .base import (
    KernelBase,
    _fail,
    lowers,
    read_in_groups,
)
from .view_values import (
    View,
    _eval_coords,
    _flat_linear,
)


class LoadStoreLowering(KernelBase):
    # -------------------------------------------------------------- distributed values
    def linear(self, t: TensorType, op: Operation):
        try:
            return to_linear(t.encoding, list(t.get_shape()))
        except LayoutError as e:
            raise _fail(op, f"cannot make a linear layout of {t}: {e}") from None

    def thread_coords(self, ll, op) -> list[Val]:
        """Per tensor dim, the thread's part of the coordinate (lane and warp bits)."""
        lanes, warps = ll.get_bases("lane"), ll.get_bases("warp")
        if warps and len(lanes) != 5:
            raise _fail(op, "distributed layouts must have 32 lanes per warp")
        if ll.get_bases("block"):
            raise _fail(op, "distributed layouts over several blocks are not supported")
        bits = [(i, bs) for i, bs in enumerate(lanes)] + [(5 + i, bs) for i, bs in enumerate(warps)]
        return [self.tid_linear([(i, bs[d]) for i, bs in bits if bs[d]]) for d in range(ll.rank)]

    def tid_linear(self, pieces: list[tuple[int, int]]) -> Val:
        """XOR, over the pairs (i, v) of `pieces` whose thread-id bit i is set, of v: the
        value of a linear (GF(2)) function of the thread id. Runs of consecutive tid bits
        that land on consecutive bits become one shift-and-mask."""
        b = self.b
        pieces = [(i, v) for i, v in pieces if v]
        single = sorted((i, v.bit_length() - 1) for i, v in pieces if v & (v - 1) == 0)
        multi = [(i, v) for i, v in pieces if v & (v - 1)]
        acc: Val = 0
        used = 0
        disjoint = True
        # merge runs of consecutive tid bits onto consecutive coordinate bits
        k = 0
        while k < len(single):
            i0, c0 = single[k]
            n = 1
            while k + n < len(single) and single[k + n] == (i0 + n, c0 + n):
                n += 1
            piece = b.shl_(b.and_(b.shr_(self.tid, i0), (1 << n) - 1), c0)
            m = ((1 << n) - 1) << c0
            if used & m:
                disjoint = False
            used |= m
            acc = b.or_(acc, piece) if disjoint else b.xor_(acc, piece)
            k += n
        for i, v in multi:
            bit = b.and_(b.shr_(self.tid, i), 1)
            acc = b.xor_(acc, b.mul_(bit, v))
        return acc

    @staticmethod
    def thread_mask(ll) -> list[int]:
        m = [0] * ll.rank
        for bs in (*ll.get_bases("lane"), *ll.get_bases("warp")):
            for d, x in enumerate(bs):
                m[d] |= x
        return m  # XORs of the bases only set bits that some basis sets

    @staticmethod
    def reg_coords(ll) -> list[tuple[int, ...]]:
        return [ll.apply(register=r) for r in range(ll.num_registers)]

    def element_offsets(self, v: View, ll, op):
        """Functions giving (storage index, validity) of register r's element of this
        thread; computed on demand (only for the registers actually accessed)."""
        b = self.b
        if len(v.layout) != ll.rank:
            raise _fail(op, "view rank and tensor rank differ")
        tco = self.thread_coords(ll, op)
        tmask = self.thread_mask(ll)
        regs = self.reg_coords(ll)
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

        def off(r: int) -> Val:
            rc = regs[r]
            if tbase is not None:
                return b.add_(tbase, _eval_coords(b, v.layout, list(rc)))
            if all_disjoint:
                return self._offset(v, b.add_(toff, _eval_coords(b, v.layout, list(rc))))
            cs = [b.xor_(t, x) for t, x in zip(tco, rc)]
            return self._offset(v, _eval_coords(b, v.layout, cs))

        def valid(r: int) -> Val:
            if not mks:
                return True
            rc = regs[r]
            if troots is not None:
                ok: Val = True
                for mk, troot in zip(mks, troots):
                    for k in range(len(rc)):
                        if mk.bound[k] is None:
                            continue
                        ok = b.land(ok, b.lt_(b.add_(troot[k], mk.scale[k] * rc[k]), mk.bound[k]))
                return ok
            return self._valid(v, [b.xor_(t, x) for t, x in zip(tco, rc)])

        return off, valid

    @lowers(layout.LoadOp)
    def op_layout_load(self, op: layout.LoadOp):
        self.smem_conversion_comment(op)
        if self.lower_matrix_load(op):  # ldmatrix (matrix_moves.py)
            return
        v: View = self.get(op.view)
        rt: TensorType = op.result.type
        ll = self.linear(rt, op)
        offs, valid = self.element_offsets(v, ll, op)
        valid = self._with_mask(op, valid)
        regs = self.reg_coords(ll)
        vec = op.vector.value.data if op.vector is not None else self.shared_vector(op, rt)
        lanes = _lane_validity(op)
        other = self.ssa(op.other) if op.other is not None else None
        elem = rt.element_type

        def emit(masked: bool) -> list:
            ok = valid if masked else (lambda r: True)

            def read(group: list[int]) -> list:
                g = group[0]
                return self.masked_read(v, offs(g), lanes(ok, group), lambda r0: offs(g + r0), vec, elem, other)

            return read_in_groups(regs, vec, read)

        self.vals[op.result] = self._fast_path([v], emit) if op.mask is None else emit(True)

    def _with_mask(self, op: layout.LoadOp | layout.StoreOp, valid):
        """The validity of register r's element conjoined with register r of the op's
        computed `mask` (a tensor of i1 in the value's layout), when it has one; the
        masked path is then always taken (the fast path's bounds test cannot know it)."""
        if op.mask is None:
            return valid
        bits = self.get(op.mask)
        b = self.b
        return lambda r: b.land(valid(r), V(b, bits[r]))

    def masked_read(self, v: View, off0: Val, valid: list, offs: list, n: int, elem, other) -> list:
        """Read n elements (a vector at off0 when n > 1) guarded by per-lane validity."""
        b = self.b

        def plain():
            if n == 1:
                return [self.load_scalar(v, off0)]
            x = self.load_vec(v, off0, n)
            return [self.extract(x, j) for j in range(n)]

        if all(c is True for c in valid):
            return plain()
        fill = other if other is not None else self.zero(elem)
        same = all(b.ssa(c) is b.ssa(valid[0]) if not isinstance(c, bool) and not isinstance(valid[0], bool) else c is valid[0] for c in valid)
        if same and n > 1:
            x = self.guarded_read(valid[0], lambda: self.load_vec(v, off0, n),
                                  lambda: b.add(vector.BroadcastOp(fill, VectorType(elem, [n]))).results[0])
            return [self.extract(x, j) for j in range(n)]
        if n > 1 and not any(c is False for c in valid):
            # lanes that may differ: the vector where all hold, else lane by lane
            return self._read_all_or_lanes(v, [off0] + [offs(j) for j in range(1, n)], valid, elem, fill)
        # one element, or lanes some of which never hold: scalar guarded loads
        outs = []
        for j, c in enumerate(valid):
            o = off0 if n == 1 else offs(j)  # computed before the scf.if, as used after it
            outs.append(self.guarded_read(c, lambda o=o: self.load_scalar(v, o), lambda: fill))
        return outs

    def guarded_read(self, cond: Val, read, fill) -> SSAValue:
        """read() where cond holds, else fill(): an scf.if yielding the value (the read
        alone when cond is True)."""
        b = self.b
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

    def masked_write(self, v: View, xs: list, off0: Val, valid: list, offs: list, pre_vec: SSAValue | None = None):
        b = self.b
        n = len(xs)

        def plain(guard_lanes: bool):
            if n == 1 and not guard_lanes:
                self.store_scalar(v, xs[0], off0)
            elif not guard_lanes:
                self.store_vec(v, pre_vec if pre_vec is not None else self.pack(xs, v.elem), off0)
            else:
                for j, (x, c) in enumerate(zip(xs, valid)):
                    o = offs(j)
                    if c is True:
                        self.store_scalar(v, x, o)
                    elif c is not False:
                        _, tb, _ = self._if(c)
                        with b.at(tb):
                            self.store_scalar(v, x, o)
                            b.add(scf.YieldOp())

        if all(c is True for c in valid):
            plain(False)
            return
        same = all((not isinstance(c, bool)) and (not isinstance(valid[0], bool)) and b.ssa(c) is b.ssa(valid[0]) for c in valid)
        if same or n == 1:
            _, tb, _ = self._if(valid[0])
            with b.at(tb):
                plain(False)
                b.add(scf.YieldOp())
            return
        if not any(c is False for c in valid):
            # lanes that may differ: the vector where all hold, else lane by lane
            self._write_all_or_lanes(v, xs, [off0] + [offs(j) for j in range(1, n)], valid)
            return
        plain(True)

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
        self.comment("convert_layout via smem: " + ", ".join(parts))

    def store_owner(self, ll) -> Val:
        """Whether this thread stores the elements a layout broadcasts over lanes or
        warps: only the owner whose redundant thread-id bits are 0 does."""
        redundant = 0
        for i, bs in enumerate(ll.get_bases("lane")):
            if not any(bs):
                redundant |= 1 << i
        for i, bs in enumerate(ll.get_bases("warp")):
            if not any(bs):
                redundant |= 1 << (5 + i)
        return True if not redundant else self.b.eq0(self.b.and_(self.tid, redundant))

    @lowers(layout.StoreOp)
    def op_layout_store(self, op: layout.StoreOp):
        b = self.b
        self.smem_conversion_comment(op)
        if self.lower_matrix_store(op):  # stmatrix (matrix_moves.py)
            return
        v: View = self.get(op.view)
        t: TensorType = op.value.type
        xs = self.get(op.value)
        ll = self.linear(t, op)
        offs, valid = self.element_offsets(v, ll, op)
        valid = self._with_mask(op, valid)
        regs = self.reg_coords(ll)
        vec = op.vector.value.data if op.vector is not None else self.shared_vector(op, t)
        lanes = _lane_validity(op)
        owner = self.store_owner(ll)

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
                self.masked_write(v, [xs[r] for r in group], offs(g), vs, lambda j, g=g: offs(g + j))
            return []

        if op.mask is None:
            self._fast_path([v], emit)
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
