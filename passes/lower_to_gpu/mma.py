"""`lower-to-gpu` for `layout.mma` (dialects/layout_mma.py): `cuda.mma_sync`, one
`mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}` per 16 x 8 tile of the accumulator and
16-deep step of K that the thread's warp computes.

The operands are already where the instruction reads them: with `kWidth = 2`, the
dot-operand layouts of a version-2 `#layout.nvidia_mma` give each lane, register for
register, the PTX ISA's fragments. Which registers form one instruction's fragments
follows from the linear layouts alone: for lane 0 of warp 0 the coordinate of register
`r` is the register part of the layout, `L(r)`; the lane and warp parts are added (XOR,
on disjoint bits) alike to every register, and equal the PTX fragment's lane offsets
and the warp's tile origin. So the fragment `q` of the tile at origin `T` is the
register whose `L(r)` is `T + ptx(lane 0, q)`, the same for every thread. Tiles: the
origins `(m, n)` of the accumulator's registers (multiples of 16 x 8), and for each,
the K origins of A's registers, in increasing K (the sums run k = 0, 16, 32, ...).
"""

from __future__ import annotations

from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, TensorType
from xdsl.ir import Operation

from tilec.support.diagnostics import TilecError
from tilec.dialects import cuda
from tilec.dialects.layout_mma import MmaOp
from tilec.dialects.mma_layouts import NvidiaMmaLayoutAttr

from .base import KernelBase, lowers

# lane 0's fragment coordinates (groupID = 0, threadID_in_group = 0): PTX ISA,
# "Matrix Fragments for mma.m16n8k16 with floating point type"
A_FRAGMENT = tuple((8 * ((i // 2) % 2), i % 2 + 8 * (i // 4)) for i in range(8))
B_FRAGMENT = tuple((i % 2 + 8 * (i // 2), 0) for i in range(4))
C_FRAGMENT = tuple((8 * (i // 2), i % 2) for i in range(4))


def _registers_by_coordinate(ll) -> dict[tuple[int, int], list[int]]:
    """Lane 0 of warp 0: coordinate -> the registers that hold it."""
    out: dict[tuple[int, int], list[int]] = {}
    for r in range(ll.num_registers):
        out.setdefault(ll.apply(register=r, lane=0, warp=0, block=0), []).append(r)
    return out


class MmaLowering(KernelBase):
    @lowers(MmaOp)
    def lower_mma(self, op: MmaOp) -> None:
        at, bt, ct = op.a.type, op.b.type, op.acc.type
        self._check_supported(op, at, bt, ct)
        la, lb, lc = (self.linear(t, op) for t in (at, bt, ct))
        ra, rb, rc = (_registers_by_coordinate(ll) for ll in (la, lb, lc))
        a, b, acc = self.get(op.a), self.get(op.b), self.get(op.acc)
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
        k_tiles = sorted({k - k % 16 for _, k in ra})
        count = 0
        for tm, tn in c_tiles:
            c_regs = regs(rc, (tm, tn), C_FRAGMENT, "accumulator")
            c_vals = [out[rs[0]] for rs in c_regs]
            for tk in k_tiles:
                a_vals = [a[rs[0]] for rs in regs(ra, (tm, tk), A_FRAGMENT, "A operand")]
                b_vals = [b[rs[0]] for rs in regs(rb, (tk, tn), B_FRAGMENT, "B operand")]
                mma = self.b.add(cuda.MmaSyncOp(a_vals, b_vals, c_vals))
                c_vals = list(mma.results)
                count += 1
            for rs, v in zip(c_regs, c_vals):
                for r in rs:
                    out[r] = v
        self.b.add(cuda.CommentOp(
            f"layout.mma {at.get_shape()[0]}x{bt.get_shape()[1]}x{at.get_shape()[1]}: "
            f"{count} mma.sync.m16n8k16 per warp ({len(c_tiles)} tile(s) of 16x8, "
            f"{len(k_tiles)} step(s) of K = 16)"))
        self.vals[op.result] = out

    def _check_supported(self, op: Operation, at: TensorType, bt: TensorType, ct: TensorType) -> None:
        """Only what `cuda.mma_sync` issues: version 2, bf16/f16 operands with kWidth 2,
        f32 accumulators, M, N and K multiples of 16, 8 and 16; else a located error."""
        enc = ct.encoding
        et = at.element_type
        why = None
        if not isinstance(enc, NvidiaMmaLayoutAttr) or enc.data.version != 2:
            why = "a version-2 #layout.nvidia_mma accumulator (wgmma is not lowered yet)"
        elif not isinstance(et, BFloat16Type | Float16Type) or not isinstance(ct.element_type, Float32Type):
            why = "bf16 or f16 operands and an f32 accumulator (tf32 and i8 are not lowered yet)"
        elif at.encoding.data.k_width != 2:
            why = f"kWidth = 2 operands (got kWidth = {at.encoding.data.k_width})"
        else:
            (m, k), n = at.get_shape(), bt.get_shape()[1]
            if m % 16 or n % 8 or k % 16:
                why = f"M, N and K multiples of 16, 8 and 16 (got {m}, {n} and {k})"
        if why is not None:
            raise TilecError(f"lower-to-gpu lowers layout.mma to mma.sync.m16n8k16 with {why}", op=op)
