"""`lower-to-gpu` for `layout.funnel_shift` (dialects/layout_funnel.py).

Each thread holds whole rows (the verifier checked that the last dimension lies in
registers), so a row's result is computed from its own registers. Rows of 1- or
2-byte elements that fill 32-bit words (and at most 16 bytes, one C vector) are
reinterpreted as words (`vector.bitcast`): with the byte shift `s`, word `q = s / 4`
and bit shift `r = 8 * (s % 4)`, output word k is
`trunc(((u64)w[k+q+1] << 32 | w[k+q]) >> r)` (ptxas's funnel shift `SHF.R`), the
words `w[k+q]` picked by selects on `q`; the output words are reinterpreted back.
Other rows (4- and 8-byte elements, rows that do not fill words) pick each output
element by selects on the shift."""

from __future__ import annotations

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import IntegerAttr, IntegerType, TensorType, VectorType, i32, i64

from tilec.dialects import layout_funnel as lf

from .base import lowers


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


def _words(kl, regs: list, elem, words: int) -> list:
    b = kl.b
    vec = kl.pack(regs, elem)
    w = b.add(vector.BitcastOp(vec, VectorType(i32, [words]))).results[0]
    return [kl.extract(w, j) for j in range(words)]


def _funnel_words(kl, lo: list, hi: list, elem, shift) -> list:
    b = kl.b
    v = len(lo)
    nbytes = elem.width.data // 8
    words = v * nbytes // 4
    ws = _words(kl, lo, elem, words) + _words(kl, hi, elem, words)
    sb = b.add(arith.MuliOp(shift, _const(b, nbytes, i32))).results[0] if nbytes > 1 else shift
    q = b.add(arith.ShRUIOp(sb, _const(b, 2, i32))).results[0]
    r = b.add(arith.ShLIOp(b.add(arith.AndIOp(sb, _const(b, 3, i32))).results[0], _const(b, 3, i32))).results[0]
    r64 = b.add(arith.ExtUIOp(r, i64)).results[0]
    eqs = [b.add(arith.CmpiOp(q, _const(b, a, i32), "eq")).results[0] for a in range(1, words)]
    picked = [_pick(b, eqs, ws, k) for k in range(words + 1)]
    c32 = _const(b, 32, i64)
    out = []
    for k in range(words):
        low = b.add(arith.ExtUIOp(picked[k], i64)).results[0]
        high = b.add(arith.ShLIOp(b.add(arith.ExtUIOp(picked[k + 1], i64)).results[0], c32)).results[0]
        both = b.add(arith.OrIOp(high, low)).results[0]
        shifted = b.add(arith.ShRUIOp(both, r64)).results[0]
        out.append(b.add(arith.TruncIOp(shifted, i32)).results[0])
    packed = kl.pack(out, i32)
    back = b.add(vector.BitcastOp(packed, VectorType(elem, [v]))).results[0]
    return [kl.extract(back, j) for j in range(v)]


def _funnel_elements(kl, lo: list, hi: list, shift) -> list:
    b = kl.b
    v = len(lo)
    eqs = [b.add(arith.CmpiOp(shift, _const(b, a, i32), "eq")).results[0] for a in range(1, v)]
    window = lo + hi
    return [_pick(b, eqs, window, j) for j in range(v)]


@lowers(lf.FunnelShiftOp)
def lower_funnel_shift(kl, op: lf.FunnelShiftOp) -> None:
    """Per row of each thread: its V result registers from its 2V window registers and
    its shift register (module doc)."""
    t: TensorType = op.lo.type  # type: ignore[assignment]
    ll, sl = kl.linear(t, op), kl.linear(op.shift.type, op)
    rows: dict[tuple, dict[int, int]] = {}
    for k in range(ll.num_registers):
        c = tuple(ll.apply(register=k))
        rows.setdefault(c[:-1], {}).setdefault(c[-1], k)
    shift_reg: dict[tuple, int] = {}
    for k in range(sl.num_registers):
        shift_reg.setdefault(tuple(sl.apply(register=k)), k)
    los, his, shs = kl.get(op.lo), kl.get(op.hi), kl.get(op.shift)
    elem = t.element_type
    v = t.get_shape()[-1]
    bits = elem.width.data if isinstance(elem, IntegerType) else elem.bitwidth  # type: ignore[attr-defined]
    by_words = bits in (8, 16) and (v * bits) % 32 == 0 and v * bits <= 128 and isinstance(elem, IntegerType)
    out: list = [None] * ll.num_registers
    for row, regs in rows.items():
        order = [regs[j] for j in range(v)]
        lo, hi = [los[k] for k in order], [his[k] for k in order]
        shift = _shift_i32(kl.b, shs[shift_reg[row]])
        got = _funnel_words(kl, lo, hi, elem, shift) if by_words else _funnel_elements(kl, lo, hi, shift)
        for k, x in zip(order, got):
            out[k] = x
    kl.vals[op.result] = out
