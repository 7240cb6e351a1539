"""The gather strategy's fill form (the passes' option `gather_fill=N`): a broadcast along
the outermost mode into a compact destination written as a periodic fill.

    if fill_fits(facts, target):
        ops = fill_launch(copy, facts, target, bits, threads, per_sm)   # replaces the copy

Where the source's outermost mode has stride 0 and the destination is compact, the
destination repeats one period of `P = n_1 ... n_(r-1)` elements `n_0` times, and its
16-byte vectors (`V` elements) repeat every `L = lcm(P, V)` elements: `U = L / V = P /
gcd(P, V)` distinct vectors. Thread `t` of `NT = m U` (`m = max(1, min(per_sm * SMs / U,
ceil(N / U)))`: about `per_sm` threads a multiprocessor, fewer for a short copy) computes vector `t mod U` once (each element `e =
u V + j`: its place in the period `e mod P` decomposed over the inner modes, its source
loaded alone) and stores it at vectors `t, t + NT, t + 2 NT, ...` below `N = floor(total /
V)` (`NT` is a multiple of `U`, so every one of them holds the same elements): a warp's
store is 32 consecutive vectors, the loop body an add, a compare and a store, and the
source (at most `L` elements of it) is read `n_0 / m` times less often than by the gather.
The destination's last, partial vector (`total mod V` elements) is stored by the thread
owning its place (`N mod NT`), element by element. Elements past the end are never
stored; every load is in bounds (a place in the period).

The content is computed in 64 bits (`u V + j` may pass 2**31 where `P V` does), the
stores with the kernel's offsets (`bits`). A run-time divisor (`U`, `P`, an inner extent)
is a multiplication by its magic multiplier computed on the host (`fast_divisor`).
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerType, TensorType
from xdsl.ir import Block, Operation, SSAValue

from tilec.dialects import layout_compute as lc
from tilec.dialects.layout import CopyOp, LaunchOp
from tilec.dialects.layout_attrs import PtrType
from tilec.dialects.layout_ptr import AddPtrOp, PtrLoadOp, PtrStoreOp
from tilec.support.target import Target

from ._convert_ops import conversion_ops
from ._copy_cost import CopyFacts, Value, _static
from ._gather_tile import _Body, fast_divisor

index = IndexType()
i64 = IntegerType(64)

GATHER_FILL = 0
"""The default of the `copy-strategy` and `tile` passes' option `gather_fill=N`: threads a
multiprocessor the fill form aims at, 0 none (a program asks for it). H200, the strided
set's broadcasts in turns against `tilec.copy_`'s kernels (benchmarks/NOTES.md, p3248): 32
x1.003 at 2048, 38 x0.971, 02 x0.913, 44 / 14 / 20 x0.87-0.92 (the 16 loaded bytes re-packed
into words before every store), the canonical row broadcast x0.929: off."""

FILL_RULE = 0
"""N of `tilec.copy_`'s rule (`fill_rule`): the fill form at N threads a multiprocessor for
the copies it fits whose distinct vectors are each stored at least `FILL_MIN_REPEATS`
times; 0: the rule off."""

FILL_MIN_REPEATS = 8
"""The least stores a distinct vector gets (`N / U`) for `fill_rule` to take a copy: fewer
and the content's divisions (once a thread) are not amortised."""


def fill_rule(ns, eb: int, vector_bytes: int = 16) -> int:
    """`FILL_RULE` where the fill form fits a copy of extents `ns` (merged; the src
    broadcast along the first into a compact dst of `eb`-byte elements: the caller's
    test) and its distinct vectors are stored at least `FILL_MIN_REPEATS` times each;
    else 0."""
    if not FILL_RULE:
        return 0
    period = 1
    for n in ns[1:]:
        period *= n
    v = max(1, vector_bytes // eb)
    u = period // min(period & -period, v) if period else 1
    return FILL_RULE if ns[0] * period // v >= FILL_MIN_REPEATS * u else 0


def fill_fits(facts: CopyFacts, target: Target) -> bool:
    """Whether the fill form can take the copy: two modes or more, the source's outermost
    stride known 0, the destination compact, no extent known 0."""
    return (facts.rank >= 2 and _static(facts.modes[0].src_stride) == 0 and facts.dst_compact
            and not any(_static(m.extent) == 0 for m in facts.modes))


def fill_vector(facts: CopyFacts, target: Target) -> int:
    """`V`: elements of a widest-vector store of the destination."""
    return max(1, target.vector_bytes // facts.dst_bytes)


def fill_launch(copy: CopyOp, facts: CopyFacts, target: Target, bits: int, threads: int,
                per_sm: int) -> list[Operation]:
    """The host ops and the `layout.launch` of the fill form of `copy` (module doc), with
    `bits`-bit offsets for the stores, `threads` per block (a power of two, at least a
    warp), about `per_sm` threads a multiprocessor; the caller puts them in the copy's
    place. `fill_fits` must hold."""
    rank = facts.rank
    v = fill_vector(facts, target)
    host: list[Operation] = []

    def h(op: Operation) -> SSAValue:
        host.append(op)
        return op.results[0]

    def hconst(x: int) -> SSAValue:
        return h(arith.ConstantOp.from_int_and_width(x, index))

    def hval(x: Value) -> SSAValue:
        return hconst(x) if isinstance(x, int) else x

    ext = [m.bound if m.exact and m.bound is not None else m.extent for m in facts.modes]
    statics = [_static(x) for x in ext]
    target_threads = max(threads, per_sm * max(1, target.multiprocessors))
    if None not in statics:
        period = 1
        for n in statics[1:]:
            period *= n  # type: ignore[operator]
        total_n = statics[0] * period  # type: ignore[operator]
        low = period & -period
        u_n = period // min(low, v)
        full_n = total_n // v
        m = max(1, min(target_threads // u_n, -(-full_n // u_n)))
        nt_n = m * u_n
        p_v, u_v, nt_v, full_v = hconst(period), hconst(u_n), hconst(nt_n), hconst(full_n)
        total_v = hconst(total_n)
        trips = hconst(-(-full_n // nt_n))
        tail_t = hconst(full_n % nt_n)
        grid = hconst(max(1, -(-nt_n // threads)))
        whole = total_n % v == 0
    else:
        p_v = hval(ext[1])
        for x in ext[2:]:
            p_v = h(arith.MuliOp(p_v, hval(x)))
        p_v = h(arith.MaxUIOp(p_v, hconst(1)))
        total_v = h(arith.MuliOp(hval(ext[0]), p_v))
        low = h(arith.AndIOp(p_v, h(arith.SubiOp(hconst(0), p_v))))
        u_v = h(arith.DivUIOp(p_v, h(arith.MinUIOp(low, hconst(v)))))
        full_v = h(arith.DivUIOp(total_v, hconst(v)))
        m_v = h(arith.MinUIOp(h(arith.DivUIOp(hconst(target_threads), u_v)), h(arith.CeilDivUIOp(full_v, u_v))))
        m_v = h(arith.MaxUIOp(m_v, hconst(1)))
        nt_v = h(arith.MuliOp(m_v, u_v))
        trips = h(arith.CeilDivUIOp(full_v, nt_v))
        tail_t = h(arith.RemUIOp(full_v, nt_v))
        grid = h(arith.MaxUIOp(h(arith.CeilDivUIOp(nt_v, hconst(threads))), hconst(1)))
        whole = False
    # a run-time divisor of the content's 64-bit ids: its magic multiplier (`fast_divisor`)
    magic: dict[int, SSAValue | None] = {}
    for k in range(2, rank):
        magic[k] = None if statics[k] is not None else fast_divisor(host, hval(ext[k]))
    magic_p = None if _static(p_v) is not None else fast_divisor(host, p_v)
    magic_u = None if _static(u_v) is not None else fast_divisor(host, u_v)
    one = hconst(1)
    launch = LaunchOp([grid, one, one], threads)
    pid = launch.block_ids[0]

    b = _Body(IntegerType(bits), threads, v, threads)
    w = _Body(i64, threads, v, threads)
    w.ops = b.ops  # one op list: the content's 64-bit ops among the rest, in order
    t = b.addi(b.arange(threads, b.R), b.splat(b.muli(b.add(arith.IndexCastOp(pid, b.it)), b.const(threads))))
    t64 = t if bits == 64 else w.add(lc.ExtUIOp(t, w.R))
    # the content: vector u = t mod U, element e = u V + j at place e mod P of the period
    u, _ = w.divmod(t64, w.scalar(u_v), magic_u)
    e = w.addi(w.full(w.muli(u, w.splat(w.const(v))), 1), w.full(w.arange(v, w.J), 0))
    rest, _ = w.divmod(e, w.scalar(p_v), magic_p)
    soff = w.splat(w.const(0), w.T)
    for k in range(rank - 1, 0, -1):
        if k > 1:
            c, rest = w.divmod(rest, w.scalar(ext[k]), magic[k])
        else:
            c = rest  # below n_1: the place is below P
        s = facts.modes[k].src_stride
        if _static(s) == 0:
            continue
        soff = w.addi(soff, c if _static(s) == 1 else w.muli(c, w.splat(w.scalar(s), w.T)))
    if bits != 64:
        soff = b.add(lc.TruncIOp(soff, b.T))
    st_elem = facts.src_ptr.type.element_type  # type: ignore[union-attr]
    dt_elem = facts.dst_ptr.type.element_type  # type: ignore[union-attr]
    sptrs = b.add(AddPtrOp(b.splat(facts.src_ptr, TensorType(PtrType(st_elem), [threads, v], b.l)), soff))
    val = b.add(PtrLoadOp(sptrs, None, None))
    if copy.convert is not None:
        ops, val = conversion_ops(val, copy.convert.data)
        b.ops += ops
    dptr = b.splat(facts.dst_ptr, TensorType(PtrType(dt_elem), [threads, v], b.l))
    jj = b.full(b.arange(v, b.J), 0)
    vv = b.splat(b.const(v))
    nt = b.scalar(nt_v)
    full = b.splat(b.scalar(full_v))
    lb, step = b.add(arith.ConstantOp.from_int_and_width(0, index)), b.add(arith.ConstantOp.from_int_and_width(1, index))

    # the stores: vector t + k NT for k < ceil(N / NT), those below N
    body = Block(arg_types=[index])
    outer, outer_consts = b.ops, dict(b._consts)
    b.ops, b._consts = [], {}
    k_it = b.add(arith.IndexCastOp(body.args[0], b.it))
    vid = b.addi(t, b.splat(b.muli(k_it, nt)))
    mask = b.full(b.cmp("slt", vid, full), 1)
    dptrs = b.add(AddPtrOp(dptr, b.addi(b.full(b.muli(vid, vv), 1), jj)))
    b.ops.append(PtrStoreOp(val, dptrs, mask))
    b.ops.append(scf.YieldOp())
    body.add_ops(b.ops)
    b.ops, b._consts = outer, outer_consts
    b.ops.append(scf.ForOp(lb, trips, step, [], body))
    if not whole:
        # the last, partial vector: the thread owning its place (N mod NT), element-wise
        mine = b.full(b.cmp("eq", t, b.splat(b.scalar(tail_t))), 1)
        flat = b.addi(b.full(b.muli(full, vv), 1), jj)
        inside = b.cmp("slt", flat, b.splat(b.scalar(total_v), b.T))
        tptrs = b.add(AddPtrOp(dptr, flat))
        b.ops.append(PtrStoreOp(val, tptrs, b.add(arith.AndIOp(mine, inside))))
    launch.body.block.add_ops(b.ops)
    host.append(launch)
    return host
