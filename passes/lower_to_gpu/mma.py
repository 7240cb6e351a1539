"""`lower-to-gpu` for `layout.mma` (dialects/layout_mma.py): `cuda.mma_sync`, one
`mma.sync.aligned.m16n8kK.row.col` per 16 x 8 tile of the accumulator and K-deep step
that the thread's warp computes (bf16/f16: m16n8k16 into f32; f32 as tf32: m16n8k8
into f32; i8: m16n8k32 into s32).

The operands are already where the instruction reads them: with `kWidth` 2 (16-bit), 1
(tf32) or 4 (s8), the dot-operand layouts of a version-2 `#layout.nvidia_mma` give each
lane, register for register, the PTX ISA's fragments. With a multiple of those (Triton's
kWidth 4 or 8 for 16-bit operands), a lane holds other K than the fragment's, the same
in A and B: the fragment's K slots are renamed alike on both sides (`_k_renaming`). Which registers form one instruction's fragments
follows from the linear layouts alone: for lane 0 of warp 0 the coordinate of register
`r` is the register part of the layout, `L(r)`; the lane and warp parts are added (XOR,
on disjoint bits) alike to every register, and equal the PTX fragment's lane offsets
and the warp's tile origin. So the fragment `q` of the tile at origin `T` is the
register whose `L(r)` is `T + ptx(lane 0, q)`, the same for every thread. Tiles: the
origins `(m, n)` of the accumulator's registers (multiples of 16 x 8), and for each,
the K origins of A's registers, in increasing K (the sums run k = 0, K, 2K, ...).
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from tilec.support.diagnostics import TilecError
from tilec.dialects import cuda
from tilec.dialects.layout_mma import MmaOp, MmaWaitOp
from tilec.dialects.mma_layouts import NvidiaMmaLayoutAttr

from . import registers
from .base import lowers
from .context import LoweringContext, OpFamily
from .wgmma import WgmmaLowering

KWIDTH = {"bf16": 2, "f16": 2, "f32": 1, "i8": 4}
"""The kWidth whose operand layouts are the PTX fragments of each instruction."""


def lane0_fragments(kind: str) -> tuple[tuple, tuple, tuple]:
    """Lane 0's fragment coordinates of A, B and C (`cuda.mma_sync_fragment`)."""
    k = cuda.MMA_SYNC_KINDS[kind]
    return tuple(
        tuple(cuda.mma_sync_fragment(kind, which, 0, i) for i in range(n))
        for which, n in (("a", k.a), ("b", k.b), ("c", 4))
    )


def _k_renaming(table, frag, step: int, k_total: int, axis: int, what: str, op) -> dict[int, int]:
    """K coordinate of the PTX fragment -> K coordinate lane 0 holds there: the i-th K
    of lane 0's fragments over all K steps (in increasing K) is the i-th K lane 0
    holds in the operand's first row (A) or column (B). The identity for the native
    kWidth."""
    native = sorted({t + d[axis] for t in range(0, k_total, step) for d in frag})
    held = sorted({c[axis] for c in table if c[1 - axis] == 0})
    if len(native) != len(held):
        raise TilecError(f"lower-to-gpu: the {what} layout gives lane 0 {len(held)} K values per row, "
                         f"the mma.sync fragments {len(native)}", op=op)
    return dict(zip(native, held))


class MmaLowering(OpFamily):
    def __init__(self, ctx: LoweringContext):
        super().__init__(ctx)
        self.wgmma = WgmmaLowering(ctx)
        """`layout.mma` of a version-3 accumulator (wgmma.py)."""

    @lowers(MmaWaitOp)
    def lower_mma_wait(self, op: MmaWaitOp) -> None:
        """`layout.mma_wait` of async version-3 accumulators (wgmma.py)."""
        self.wgmma.lower_wait(op)

    @lowers(MmaOp)
    def lower_mma(self, op: MmaOp) -> None:
        at, bt, ct = op.a.type, op.b.type, op.acc.type
        if isinstance(ct.encoding, NvidiaMmaLayoutAttr) and ct.encoding.data.version == 3:
            return self.wgmma.lower(op)
        kind = self._check_supported(op, at, bt, ct)
        a_frag, b_frag, c_frag = lane0_fragments(kind)
        step = cuda.MMA_SYNC_KINDS[kind].k
        la, lb, lc = (registers.linear(t, op) for t in (at, bt, ct))
        ra, rb, rc = (registers.registers_by_coordinate(ll) for ll in (la, lb, lc))
        a, b, acc = self.values.registers(op.a), self.values.registers(op.b), self.values.registers(op.acc)
        out = list(acc)

        def regs(table, origin, fragment, what):
            found = []
            for dr, dc in fragment:
                where = (origin[0] + dr, origin[1] + dc)
                if where not in table:
                    raise TilecError(
                        f"lower-to-gpu: the {what} layout does not give each lane the "
                        f"mma.sync fragment at {where}", op=op)
                found.append(table[where])
            return found

        c_tiles = sorted({(m - m % 16, n - n % 8) for m, n in rc})
        k_total = at.get_shape()[1]
        k_tiles = range(0, k_total, step)
        # kWidth above the instruction's: lane 0 holds other K than the PTX fragment's;
        # A and B hold the same K per lane class, so the fragment's K slots are renamed
        # alike on both sides (the sum over K is the same; inside one instruction the
        # tensor core's order of additions is not specified anyway).
        ka = _k_renaming(ra, a_frag, step, k_total, axis=1, what="A operand", op=op)
        kb = _k_renaming(rb, b_frag, step, k_total, axis=0, what="B operand", op=op)
        if ka != kb:
            raise TilecError("lower-to-gpu: the A and B operand layouts give lane 0 different K", op=op)
        a_frag_k = [(dr, dc) for dr, dc in a_frag]
        b_frag_k = [(dr, dc) for dr, dc in b_frag]

        def at_k(origin, frag, axis):
            """The fragment of the tile at `origin`, K renamed."""
            out = []
            for d in frag:
                c = [origin[0] + d[0], origin[1] + d[1]]
                c[axis] = ka[c[axis]]
                out.append((c[0] - origin[0], c[1] - origin[1]))
            return out

        count = 0
        for tm, tn in c_tiles:
            c_regs = regs(rc, (tm, tn), c_frag, "accumulator")
            c_vals = [out[rs[0]] for rs in c_regs]
            for tk in k_tiles:
                a_vals = [a[rs[0]] for rs in regs(ra, (tm, tk), at_k((tm, tk), a_frag_k, 1), "A operand")]
                b_vals = [b[rs[0]] for rs in regs(rb, (tk, tn), at_k((tk, tn), b_frag_k, 0), "B operand")]
                mma = self.b.add(cuda.MmaSyncOp(a_vals, b_vals, c_vals))
                c_vals = list(mma.results)
                count += 1
            for rs, v in zip(c_regs, c_vals):
                for r in rs:
                    out[r] = v
        self.b.add(cuda.CommentOp(
            f"layout.mma {at.get_shape()[0]}x{bt.get_shape()[1]}x{at.get_shape()[1]}: "
            f"{count} mma.sync.m16n8k{step} per warp ({len(c_tiles)} tile(s) of 16x8, "
            f"{len(k_tiles)} step(s) of K = {step})"))
        self.values.set_registers(op.result, out)

    def _check_supported(self, op: Operation, at: TensorType, bt: TensorType, ct: TensorType) -> str:
        """The `cuda.MMA_SYNC_KINDS` key of what `cuda.mma_sync` issues for `op`: a
        version-2 accumulator, operands with the kWidth of the instruction's fragments
        (2 for bf16/f16, 1 for tf32, 4 for i8), M, N and K multiples of 16, 8 and the
        instruction's K; else a located error."""
        enc = ct.encoding
        kind = cuda.mma_sync_kind_name(at.element_type)
        why = None
        if not isinstance(enc, NvidiaMmaLayoutAttr) or enc.data.version != 2:
            why = "a version-2 #layout.nvidia_mma accumulator"
        elif kind is None:
            why = "bf16, f16, f32 (tf32) or i8 operands"
        elif at.encoding.data.k_width % KWIDTH[kind]:
            why = (f"kWidth a multiple of {KWIDTH[kind]} for {kind} operands "
                   f"(got kWidth = {at.encoding.data.k_width})")
        else:
            step = cuda.MMA_SYNC_KINDS[kind].k
            (m, k), n = at.get_shape(), bt.get_shape()[1]
            if m % 16 or n % 8 or k % step:
                why = f"M, N and K multiples of 16, 8 and {step} (got {m}, {n} and {k})"
        if why is not None:
            raise TilecError(f"lower-to-gpu lowers layout.mma to mma.sync with {why}", op=op)
        return kind  # type: ignore[return-value]
