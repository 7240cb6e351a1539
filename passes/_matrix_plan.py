"""When a shared-memory load or store of a distributed tensor can be `ldmatrix` /
`stmatrix`, decided from linear layouts (the approach of the linear-layouts paper,
arXiv 2505.23819, section 5.4). Pure: reads layouts, builds nothing.

`ldmatrix.m8n8` moves 8x8 matrices of 16-bit elements whose rows are 16 contiguous,
16-byte-aligned bytes of shared memory. Lane `l` gets, in one 32-bit register per
matrix, the elements (row l/4, columns 2*(l%4) and +1) (`.trans`: the transposed
pair). Read as a linear layout over the 6 bits (register bit 0, lane bits 0-4) of one
matrix, that is: three bits pick the element within a row, so they must step the
shared-memory offset by exactly 1, 2 and 4 elements (the *column* bits: register 0,
lanes 0 and 1; `.trans`: lanes 2, 3 and 4), and the three others pick the row (any
16-byte-aligned offset). The remaining register bits pick the matrix.

So for a register layout `L` (register, lane, warp -> tensor coordinate) and the
shared view's offset function `S` (coordinate -> element offset), the move is an
`ldmatrix` of that variant exactly when `S o L` maps the column bits to offsets
1, 2, 4 added to the rest and maps everything else to multiples of 8 (the paper
requires the same of `S^-1 o L`'s bases; enumerating `S o L` over every register,
lane and warp also covers padded shared layouts, which are not linear over GF(2)).
`x4` moves 4 matrices per instruction when the thread holds a multiple of 4 of them,
else `x2` or `x1`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tilec.dialects import views

ROW_BITS = 3
"""log2 of the 8 rows (and 8 elements per row) of an `ldmatrix` matrix."""


@dataclass(frozen=True)
class Variant:
    """Which of (register bit 0, lane bits 0-4) select the column and the row of the
    matrix element a lane holds: ("register", 0) or ("lane", k)."""

    trans: bool
    cols: tuple[tuple[str, int], ...]
    rows: tuple[tuple[str, int], ...]


PLAIN = Variant(False, (("register", 0), ("lane", 0), ("lane", 1)), (("lane", 2), ("lane", 3), ("lane", 4)))
TRANS = Variant(True, (("lane", 2), ("lane", 3), ("lane", 4)), (("register", 0), ("lane", 0), ("lane", 1)))


@dataclass(frozen=True)
class MatrixPlan:
    """`instructions` moves of `num` matrices each (`.trans` if `variant.trans`).
    Instruction `i`, matrix `q` holds registers `2*(num*i + q)` and `+1` of each lane
    (element 0 and 1 of its 32-bit register). Lane `t` of a warp gives the address of
    row `t % 8` of matrix `(t / 8) % num`: the offset of the coordinate
    `L(register = 2*(num*i + q) + r0, lane = l0, warp)` where the row bits `t % 8`
    are spread over `variant.rows` (r0: register bit 0, l0: lane bits)."""

    variant: Variant
    num: int
    instructions: int

    @property
    def name(self) -> str:
        return f"x{self.num}{'.trans' if self.variant.trans else ''}"

    def thread_inputs(self, t: int, i: int) -> tuple[int, int]:
        """(register, lane) whose element's row lane `t` gives the address of, in
        instruction `i`."""
        rho, q = t % 8, (t // 8) % self.num
        reg, lane = 2 * (self.num * i + q), 0
        for k, (kind, bit) in enumerate(self.variant.rows):
            if rho >> k & 1:
                if kind == "register":
                    reg |= 1 << bit
                else:
                    lane |= 1 << bit
        return reg, lane


def offsets(ll, view_layout, swizzle, swz_off: int) -> np.ndarray:
    """The element offset (inside the swizzle, the view's base left out) of each
    (register, lane, warp) of the linear layout `ll` over a static view: modes of
    (extent, stride) leaves (`view_values.ValueLayout` with int entries), an optional
    `Swizzle` applied to offset + `swz_off`. Shape [registers, lanes, warps]."""

    def table(bases, n):
        out = np.zeros((n, ll.rank), np.int64)
        for i, bs in enumerate(bases):
            out[1 << i : 2 << i] = out[: 1 << i] ^ np.asarray(bs, np.int64)
        return out

    regs = table(ll.get_bases("register"), ll.num_registers)
    lanes = table(ll.get_bases("lane"), 1 << len(ll.get_bases("lane")))
    warps = table(ll.get_bases("warp"), 1 << len(ll.get_bases("warp")))
    off = np.full((len(regs), len(lanes), len(warps)), swz_off, np.int64)
    for d, mode in enumerate(view_layout):
        c = regs[:, None, None, d] ^ lanes[None, :, None, d] ^ warps[None, None, :, d]
        off = off + views.leaves_offset(mode, c)
    if swizzle is not None:
        y = off & swizzle.yyy_msk
        off = off ^ (y >> swizzle.shift if swizzle.shift >= 0 else y << -swizzle.shift)
    return off


def plan(off: np.ndarray) -> tuple[MatrixPlan | None, str]:
    """The `ldmatrix`/`stmatrix` plan of a register layout over a shared view, given
    the element offset of each (register, lane, warp) (`offsets`), or (None, why not).
    The caller checks the element width (16 bits) and the alignment of the view's
    dynamic base (a multiple of 8 elements)."""
    num_registers, lanes, _ = off.shape
    if lanes != 32:
        return None, "the layout does not span the 32 lanes of a warp"
    if num_registers < 2 or num_registers & (num_registers - 1):
        return None, f"{num_registers} register(s) per thread, not a power of two >= 2"
    why = "no variant fits"
    for variant in (PLAIN, TRANS):
        ok, why_v = _fits(variant, off)
        if ok:
            matrices = num_registers // 2
            num = 4 if matrices % 4 == 0 else 2 if matrices % 2 == 0 else 1
            return MatrixPlan(variant, num, matrices // num), ""
        if variant is PLAIN:
            why = why_v
    return None, why


def _fits(variant: Variant, off: np.ndarray) -> tuple[bool, str]:
    r = np.arange(off.shape[0])[:, None, None]
    lane = np.arange(32)[None, :, None]
    col_reg = sum(1 << b for k, b in variant.cols if k == "register")
    col_lane = sum(1 << b for k, b in variant.cols if k == "lane")
    base = off[r & ~col_reg, lane & ~col_lane, np.arange(off.shape[2])[None, None, :]]
    if np.any(base % 8):
        return False, "rows do not start on 16-byte boundaries"
    step = np.zeros(off.shape[:2] + (1,), np.int64)
    for k, (kind, bit) in enumerate(variant.cols):
        step = step | (((r if kind == "register" else lane) >> bit & 1) << k)
    if np.any(off != base + step):
        return False, "the 8 elements of a matrix row are not contiguous in shared memory"
    return True, ""
