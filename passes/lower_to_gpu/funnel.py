"""`lower-to-gpu` for `layout.funnel_shift` (dialects/layout_funnel.py).

Each thread holds whole rows (the verifier checked that the last dimension lies in
registers and that the result's rows are held as the operands'), so a row's result
is computed from its own registers. Rows whose bytes are whole 32-bit words (at most
16 bytes, one C vector), of integers or of one element size (floats' bits move as
they are), are taken as words (a `vector.bitcast` unless they are
words): with the byte shift `s` (the shift times the result's element bytes), word
`q = s / 4` and bit shift `r = 8 * (s % 4)`, output word k is
`trunc(((u64)w[k+q+1] << 32 | w[k+q]) >> r)` (ptxas's funnel shift `SHF.R`; `w[k+q]`
alone for results of 4- or 8-byte elements), the words `w[k+q]` picked by selects on
`q` (chains of selects on q's values, or with the op's `bits` attribute selects on each
bit of q in turn, `_pick_bits`); the output words are taken as the result's elements. Other rows (one element
type, not whole words) pick each output element by selects on the shift."""

from __future__ import annotations

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import IntegerAttr, IntegerType, TensorType, VectorType, i32, i64

from tilec.dialects import layout_funnel as lf

from . import access, registers
from .base import lowers
from .context import OpFamily


def _const(b, value: int, t) -> object:
    return b.add(arith.ConstantOp(IntegerAttr(value, t))).results[0]


def _shift_i32(b, x):
    w = x.type.width.data
    if w == 32:
        return x
    if w > 32:
        return b.add(arith.TruncIOp(x, i32)).results[0]
    return b.add(arith.ExtUIOp(x, i32)).results[0]


def _pick(b, eqs: list, xs: list, k: int):
    """xs[k + q] where eqs[a] says q == a (a = 1..): a chain of selects."""
    got = xs[k]
    for a, eq in enumerate(eqs, 1):
        if k + a < len(xs):
            got = b.add(arith.SelectOp(eq, xs[k + a], got)).results[0]
    return got


def _pick_bits(b, q, xs: list, n: int) -> list:
    """xs[k + q] for k = 0..n (q < n, n a power of two): selects on each bit of q in turn,
    level l moving by 2**l, so that the picks of funnel shifts over consecutive vectors
    with one shift are the same selects of the shared vector's words (CSE: about two
    selects a word, where `_pick`'s chains take n - 1 a word)."""
    cur = list(xs)
    step = 1
    while step < n:
        bit = b.add(arith.CmpiOp(b.add(arith.AndIOp(q, _const(b, step, i32))).results[0], _const(b, 0, i32), "ne")).results[0]
        cur = [b.add(arith.SelectOp(bit, cur[m + step], cur[m])).results[0] for m in range(len(cur) - step)]
        step *= 2
    return cur[: n + 1]


def _words(ctx, regs: list, elem) -> list:
    """A row's registers as 32-bit words (a `vector.bitcast` unless they are words)."""
    b = ctx.b
    if elem == i32:
        return list(regs)
    nbytes = len(regs) * _bits(elem) // 8
    vec = access.pack(ctx.b, regs, elem)
    w = b.add(vector.BitcastOp(vec, VectorType(i32, [nbytes // 4]))).results[0]
    return [access.extract(ctx.b, w, j) for j in range(nbytes // 4)]


def _from_words(ctx, words: list, elem) -> list:
    """Words as registers of `elem` (a `vector.bitcast` unless they are words)."""
    b = ctx.b
    if elem == i32:
        return words
    n = len(words) * 32 // _bits(elem)
    back = b.add(vector.BitcastOp(access.pack(ctx.b, words, i32), VectorType(elem, [n]))).results[0]
    return [access.extract(ctx.b, back, j) for j in range(n)]


def _bits(elem) -> int:
    return elem.width.data if isinstance(elem, IntegerType) else elem.bitwidth  # type: ignore[attr-defined]


def _funnel_words(ctx, lo: list, hi: list, elem, out_elem, shift, bits: bool = False) -> list:
    b = ctx.b
    ws = _words(ctx, lo, elem) + _words(ctx, hi, elem)
    words = len(ws) // 2
    nbytes = _bits(out_elem) // 8
    sb = b.add(arith.MuliOp(shift, _const(b, nbytes, i32))).results[0] if nbytes > 1 else shift
    q = b.add(arith.ShRUIOp(sb, _const(b, 2, i32))).results[0]
    r = b.add(arith.ShLIOp(b.add(arith.AndIOp(sb, _const(b, 3, i32))).results[0], _const(b, 3, i32))).results[0]
    if bits and words & (words - 1) == 0:
        picked = _pick_bits(b, q, ws, words)
    else:
        eqs = [b.add(arith.CmpiOp(q, _const(b, a, i32), "eq")).results[0] for a in range(1, words)]
        picked = [_pick(b, eqs, ws, k) for k in range(words + 1)]
    out = []
    if nbytes % 4 == 0:  # whole words: no bit shift
        out = picked[:words]
    else:
        r64 = b.add(arith.ExtUIOp(r, i64)).results[0]
        c32 = _const(b, 32, i64)
        for k in range(words):
            low = b.add(arith.ExtUIOp(picked[k], i64)).results[0]
            high = b.add(arith.ShLIOp(b.add(arith.ExtUIOp(picked[k + 1], i64)).results[0], c32)).results[0]
            both = b.add(arith.OrIOp(high, low)).results[0]
            shifted = b.add(arith.ShRUIOp(both, r64)).results[0]
            out.append(b.add(arith.TruncIOp(shifted, i32)).results[0])
    return _from_words(ctx, out, out_elem)


def _funnel_elements(ctx, lo: list, hi: list, shift) -> list:
    b = ctx.b
    v = len(lo)
    eqs = [b.add(arith.CmpiOp(shift, _const(b, a, i32), "eq")).results[0] for a in range(1, v)]
    window = lo + hi
    return [_pick(b, eqs, window, j) for j in range(v)]


def _rows(ll) -> dict[tuple, list[int]]:
    """Per row (the coordinates but the last), its registers in the row's order."""
    rows: dict[tuple, dict[int, int]] = {}
    for k in range(ll.num_registers):
        c = tuple(ll.apply(register=k))
        rows.setdefault(c[:-1], {}).setdefault(c[-1], k)
    return {row: [regs[j] for j in sorted(regs)] for row, regs in rows.items()}


class FunnelLowering(OpFamily):
    """`layout.funnel_shift` (module doc)."""

    @lowers(lf.FunnelShiftOp)
    def lower_funnel_shift(self, op: lf.FunnelShiftOp) -> None:
        """Per row of each thread: its result registers from its window registers and its
        shift register (module doc)."""
        ctx = self.ctx
        t: TensorType = op.lo.type  # type: ignore[assignment]
        rt: TensorType = op.result.type  # type: ignore[assignment]
        ll, rl, sl = registers.linear(t, op), registers.linear(rt, op), registers.linear(op.shift.type, op)
        in_rows, out_rows = _rows(ll), _rows(rl)
        shift_reg: dict[tuple, int] = {}
        for k in range(sl.num_registers):
            shift_reg.setdefault(tuple(sl.apply(register=k)), k)
        los, his, shs = ctx.values.registers(op.lo), ctx.values.registers(op.hi), ctx.values.registers(op.shift)
        elem, out_elem = t.element_type, rt.element_type
        row_bytes = t.get_shape()[-1] * _bits(elem) // 8
        by_words = row_bytes % 4 == 0 and row_bytes <= 16 and (
            all(isinstance(x, IntegerType) for x in (elem, out_elem)) or _bits(elem) == _bits(out_elem))
        out: list = [None] * rl.num_registers
        for row, regs in out_rows.items():
            lo, hi = [los[k] for k in in_rows[row]], [his[k] for k in in_rows[row]]
            shift = _shift_i32(ctx.b, shs[shift_reg[row]])
            got = (_funnel_words(ctx, lo, hi, elem, out_elem, shift, "bits" in op.attributes) if by_words
                   else _funnel_elements(ctx, lo, hi, shift))
            for k, x in zip(regs, got):
                out[k] = x
        ctx.values.set_registers(op.result, out)
