"""`layout.load` from / `layout.store` to shared memory as `ldmatrix` / `stmatrix`
(`cuda.ldmatrix`, `cuda.stmatrix`) when the register layout and the shared view allow
it (`passes/_matrix_plan.py` decides, from the linear layout of the value and the
view's offsets); the loads and stores of `load_store.py` otherwise.

Conditions besides the plan's: 16-bit elements, a shared view that is static (its
layout and swizzle; the base may be dynamic but must be a known multiple of 8
elements, in a buffer aligned to 16 bytes), no mask, the value's layout spread over
all the threads of the launch, and for `stmatrix` a target that has it (sm_90) and a
layout that holds each element once (no lane or warp broadcasts). The CUDA says what
was chosen: `// layout.load 128x32xbf16 from smem: 4 ldmatrix.x4 per thread`, or why
not for a tensor-core layout (`#layout.nvidia_mma`, `#layout.dot_op`). Such a layout
that cannot use them still moves the widest vectors its registers allow (the op's
`vector` from `vectorize`, or `shared_vector` where it has none: IR lowered without
`vectorize`, or a view `vectorize` does not analyse): `// ...: no ldmatrix (why);
ld.shared of 2 elements`."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from tilec.dialects import cuda, layout
from tilec.dialects.layout_attrs import element_bytes
from tilec.dialects.mma_layouts import DotOperandLayoutAttr, NvidiaMmaLayoutAttr
from tilec.support.target import target_of

from .. import _matrix_plan
from .._gpu_builder import IndexValue
from . import access, registers
from .context import LoweringContext, OpFamily
from .view_values import View, _eval_coords, _flat_linear


class MatrixMoves(OpFamily):
    """The ldmatrix / stmatrix lowering of the load/store family (load_store.py), with
    its per-kernel memo of shared-view offsets; it lowers no op of its own."""

    def __init__(self, ctx: LoweringContext):
        super().__init__(ctx)
        self._offsets_memo: dict = {}

    def load(self, op: layout.LoadOp) -> bool:
        """Lower `op` with `ldmatrix` when it can be; False (nothing emitted but, for a
        tensor-core layout, a comment saying why not) otherwise."""
        if op.mask is not None or op.other is not None:
            return False
        return self._matrix_move(op, op.view, op.result.type, None)

    def store(self, op: layout.StoreOp) -> bool:
        """Lower `op` with `stmatrix` when it can be (see `load`)."""
        if op.mask is not None:
            return False
        return self._matrix_move(op, op.view, op.value.type, self.values.registers(op.value))

    def _matrix_move(self, op, view: SSAValue, t: TensorType, values: list | None) -> bool:
        v: View = self.values.view(view)
        tensor_core = isinstance(t.encoding, NvidiaMmaLayoutAttr | DotOperandLayoutAttr)
        if v.space != "smem" or ("bank_conflicts" in op.attributes and not tensor_core):
            # lower-convert-layout's round trips between other layouts keep the accesses
            # its cost estimate counted
            return False
        verb = "layout.load" if values is None else "layout.store"
        what = f"{verb} {'x'.join(map(str, t.get_shape()))}x{t.element_type} {'from' if values is None else 'to'} smem"
        plan, why = self._plan(op, v, t, values is not None)
        if plan is None:
            if why and tensor_core:
                n = op.vector.value.data if op.vector is not None else self.shared_vector(op, t)
                access = "ld.shared" if values is None else "st.shared"
                self.ctx.comment(
                    f"{what}: no {'ldmatrix' if values is None else 'stmatrix'} ({why}); "
                    f"{access} of {n} element{'s' if n > 1 else ''}"
                )
            return False
        ll = registers.linear(t, op)
        name = "ldmatrix" if values is None else "stmatrix"
        self.ctx.comment(f"{what}: {plan.instructions} {name}.{plan.name} per thread")
        addrs = self._row_addresses(v, ll, plan)
        b = self.b
        if values is None:
            out: list = [None] * ll.num_registers
            for i, addr in enumerate(addrs):
                mv = b.add(cuda.LdmatrixOp(v.mem, b.ssa(addr), plan.num, plan.variant.trans))
                for k, x in enumerate(mv.results):
                    out[2 * plan.num * i + k] = x
            self.values.set_registers(op.result, out)
        else:
            n = 2 * plan.num
            for i, addr in enumerate(addrs):
                b.add(cuda.StmatrixOp(v.mem, b.ssa(addr), values[n * i : n * (i + 1)], plan.num, plan.variant.trans))
        return True

    def shared_vector(self, op, t: TensorType) -> int:
        """For a load/store without a `vector` width of a tensor-core layout from/to a
        static shared view: the widest v (at most 16 bytes) such that every group of v
        consecutive registers is v consecutive, v-aligned elements (kWidth pairs of
        bf16 over rows that ldmatrix cannot take: 2); 1 otherwise."""
        if not isinstance(t.encoding, NvidiaMmaLayoutAttr | DotOperandLayoutAttr):
            return 1
        v: View = self.values.view(op.view)
        if v.space != "smem" or v.vec is not None or v.mask is not None or getattr(op, "mask", None) is not None:
            return 1
        if not all(isinstance(s, int) and isinstance(d, int) for m in v.layout for s, d in m):
            return 1
        ll = registers.linear(t, op)
        if ll.get_bases("block"):
            return 1
        eb = element_bytes(t.element_type)
        off = self._offsets(ll, v)
        regs = off.shape[0]

        def fits(n: int) -> bool:
            if regs % n or (self.b.div_of(v.base) * eb) % (n * eb) or v.align % (n * eb):
                return False
            groups = off.reshape(regs // n, n, *off.shape[1:])
            return bool(
                np.all(groups[:, 0] % n == 0) and np.all(groups - groups[:, :1] == np.arange(n)[None, :, None, None])
            )

        n = 1
        while n * 2 * eb <= 16 and fits(n * 2):
            n *= 2
        return n

    def _offsets(self, ll, v: View):
        """`_matrix_plan.offsets` of a static view, memoized per kernel (the same tile
        is loaded at every step of a loop)."""
        key = (repr(ll), repr(v.layout), repr(v.swizzle), v.swz_off)
        memo = self._offsets_memo
        if key not in memo:
            memo[key] = _matrix_plan.offsets(ll, v.layout, v.swizzle, v.swz_off)
        return memo[key]

    def _plan(self, op, v: View, t: TensorType, store: bool):
        """(plan, "") or (None, why not; "" when the access is not a candidate)."""
        if element_bytes(t.element_type) != 2 or v.vec is not None or v.mask is not None:
            return None, ""
        tgt = target_of(op)
        if not tgt.has("stmatrix" if store else "ldmatrix"):
            return None, f"{tgt.arch} has no {'stmatrix' if store else 'ldmatrix'}"
        if not all(isinstance(s, int) and isinstance(d, int) for m in v.layout for s, d in m):
            return None, "the shared view is dynamic"
        if not isinstance(v.swz_off, int):
            return None, "the swizzled view's offset depends on the thread"
        if self.b.div_of(v.base) % 8 or v.align % 16:
            return None, "the shared view's base is not known to be 16-byte aligned"
        ll = registers.linear(t, op)
        lanes, warps = ll.get_bases("lane"), ll.get_bases("warp")
        if ll.get_bases("block") or 32 << len(warps) != self.ctx.nthreads:
            return None, "the layout does not spread over the block's threads"
        if store and not all(any(bs) for bs in (*lanes, *warps)):
            return None, "the layout holds elements in several threads"
        return _matrix_plan.plan(self._offsets(ll, v))

    def _row_addresses(self, v: View, ll, plan: _matrix_plan.MatrixPlan) -> list[IndexValue]:
        """Per instruction, the element index whose row this thread gives: the offset
        of `ll(register, lane, warp)` for the (register, lane) of
        `plan.thread_inputs(lane)`, a GF(2)-linear function of the thread id XORed
        with the instruction's register bits."""
        b = self.b
        regs, lanes, warps = ll.get_bases("register"), ll.get_bases("lane"), ll.get_bases("warp")
        rank = ll.rank
        pieces: list[list[tuple[int, int]]] = [[] for _ in range(rank)]

        def put(bit: int, basis) -> None:
            for d in range(rank):
                pieces[d].append((bit, basis[d]))

        for k, (kind, bit) in enumerate(plan.variant.rows):
            put(k, regs[bit] if kind == "register" else lanes[bit])
        for j in range(plan.num.bit_length() - 1):
            put(3 + j, regs[1 + j])
        for j, bs in enumerate(warps):
            put(5 + j, bs)
        tco = [registers.tid_linear(self.ctx, p) for p in pieces]
        tmask = [0] * rank
        for d, p in enumerate(pieces):
            for _, x in p:
                tmask[d] |= x
        linear = v.swizzle is None and all(_flat_linear(m) for m in v.layout)
        consts = []
        for i in range(plan.instructions):
            c = [0] * rank
            r = 2 * plan.num * i
            for k, bs in enumerate(regs):
                if r >> k & 1:
                    c = [x ^ y for x, y in zip(c, bs)]
            consts.append(c)
        disjoint = all(c[d] & tmask[d] == 0 for c in consts for d in range(rank))
        if linear and disjoint:
            tbase = b.add_(v.base, b.add_(_eval_coords(b, v.layout, tco), v.swz_off))
            return [b.add_(tbase, _eval_coords(b, v.layout, c)) for c in consts]
        out = []
        for c in consts:
            coords = [b.add_(t, x) if disjoint else b.xor_(t, x) for t, x in zip(tco, c)]
            out.append(access.offset(self.b, v, _eval_coords(b, v.layout, coords)))
        return out
