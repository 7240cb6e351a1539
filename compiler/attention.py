"""Flash-attention forward on Hopper, written with `tilec.Program`: the kernel builder
`attention_fwd` (docs/attention.md).

    O = softmax(scale * Q K^T) V,   LSE = log(sum_j exp(scale * (Q K^T)_ij)) per row

Q, O: (B, H, Sq, D); K, V: (B, Hkv, Skv, D) with H a multiple of Hkv (GQA / MQA: query
head h reads kv head h / (H / Hkv)); any strides whose last is 1 and whose others are
multiples of 16 bytes (the TMA's); LSE: f32 (B, H, Sq), contiguous. B, H, Hkv, Sq, Skv
and the strides are run-time index arguments: one compiled kernel serves every
sequence length. The program is compiled per (head dim, dtype, causal, GQA ratio,
scale).

Per block (grid `(ceil(Sq / bm), H, B)`), one `bm`-row tile of Q of one (batch, head);
persistent (`attention_fwd(persistent=P)`), min(P, tiles) blocks each looping over
such tiles; `pingpong`: the consumer warpgroups take turns issuing their wgmma
(`attention_fwd`'s docstring).
`warp_specialized` (the default): `layout.warp_specialize` gives `bm / 64` consumer
warpgroups the math (`setmaxnreg inc consumer_regs`) and one producer warpgroup the
TMA loads (`setmaxnreg dec producer_regs`); each stage has, for its K tile and for
its V tile, a "full" mbarrier (the tile landed) and an "empty" one, as
gemm_hopper_ws's ring: every consumer warpgroup arrives on K's ("kempty") once the
stage's Q K^T is waited for and on V's ("empty") once its P V is (the producer
refills K and V each when its own is free, so
K of a stage is refilled while its V is still read: the overlapped loop issues the
next Q K^T before the P V of the stage before), and nothing in the KV loop waits
for the whole block. Otherwise every thread is a consumer and refills the
stage `stages - 1` steps ahead after a block barrier (gemm_hopper's ring).

- Q's tile is loaded once by the TMA into 128-byte-swizzled shared memory (a rank-4
  shared view `(1, 1, bm, D)` of the rank-4 global view, sliced to `(bm, D)`: the
  slice keeps the swizzle);
- K and V come through a ring of `stages` shared stages (K as K^T, `(D, bn)`,
  D contiguous: wgmma's K-major B; V as `(bn, D)`: MN-major B), each tile completing
  on its own mbarrier of the stage (Q K^T and the softmax need only K); the KV
  loop is unrolled by the stages, so each stage and barrier is static; its steps are rounded up to a multiple of `stages`, the
  steps past the last KV block reloading it and masked out wholly;
- S = Q K^T by wgmma (A and B in shared memory) into a version-3 accumulator;
  columns past Skv (and, causal, above the diagonal: column > row, PyTorch's
  top-left `is_causal`) are set to -inf, in the blocks that can hold such a column
  only (a uniform branch per KV step: the last block, the diagonal's, the steps
  past the last); causal blocks stop at the diagonal block;
- the online softmax runs on the accumulator's layout: the row max is a
  `layout.reduce` along the columns (each row lives in one quad of lanes), the
  exponentials `exp2(fma(S, c, -m * c))` (`fastmath<afn>`: `ex2.approx`) with
  c = scale * log2(e) folded in, O and the
  row sum rescaled by `exp2((m_old - m_new) * c)`; the row sum is kept as per-thread
  partials reduced across the quad in the epilogue (`deferred_sum`);
- P, rounded to the input type, is wgmma's A operand from registers for O += P V:
  `convert_layout` from the accumulator layout to `#dot_op<opIdx = 0, kWidth = 2>`
  of O's accumulator, which the linear layouts prove to be the identity (every
  thread holds the same elements in the same registers), so no data moves;
- the epilogue divides O by the row sum, rounds it, writes it to swizzled shared
  memory and stores it with the TMA (rows past Sq clipped); LSE = scale * m + ln(l)
  per row, stored by the threads holding the row where the row is below Sq.
"""

from __future__ import annotations

import math
from contextlib import contextmanager

from tilec.compiler.attention_tiles import consumer_registers, fits_blocks, overlap_registers_needed, tile_config

HEAD_DIMS = (64, 128, 256)
DTYPES = ("bf16", "f16")
LOG2E = 1.4426950408889634


def _smem(rows: int, cols: int, transposed: bool):
    """The NVMMA shared layout of a `rows x cols` tile (128-byte swizzle; `transposed`:
    dim 0 contiguous), as a rank-4 layout `(1, 1, rows, cols)` (one mode per mode of
    the rank-4 global views, as the TMA needs)."""
    from tilec.dialects import cute
    from tilec.dialects.mma import NvmmaSharedLayout
    from tilec.dialects.swizzle import ComposedLayout

    c = NvmmaSharedLayout(128, 16, transposed).composed([rows, cols])
    lay = c.layout
    return ComposedLayout(c.swizzle, 0, cute.make_layout((1, 1, *lay.shape), (0, 0, *lay.stride)))


def _lane_field(lay, shape: list[int], axis: int) -> tuple[int, int]:
    """The bits [lo, hi) of dimension `axis` that `lay` (a distributed layout, on
    `shape`) maps to lanes, warps or blocks: every other bit of it is a register bit. A
    ValueError where those bits are not one contiguous field (then the thread's
    elements along `axis` are not a (high, low) pair of register fields)."""
    lin = lay.to_linear(shape)
    bits = set()
    for name in ("lane", "warp", "block"):
        for b in lin.get_bases(name) if name in lin.in_dims else ():
            if b[axis]:
                bits.add(b[axis].bit_length() - 1)
    lo, hi = (min(bits), max(bits) + 1) if bits else (0, 0)
    if bits != set(range(lo, hi)):
        raise ValueError(f"the thread bits of dimension {axis} of {lin} are not contiguous")
    return lo, hi


def partials_layouts(lay, rows: int, cols: int):
    """The layouts `thread_partials` passes a `(rows, cols)` tensor in `lay` through,
    each a `#layout.linear` mapping every basis of `lay` alike (each thread keeps its
    elements, no data moves), with the columns c split at the thread field [lo, hi)
    (`_lane_field`): `(rows, c >> hi, thread field, c mod 2^lo)`; the same with the two
    middle dimensions swapped; `(rows, thread field, the register bits of c)`. Returns
    the three and the field's width."""
    from tilec.dialects.layout_attrs import LinearBases, LinearLayoutAttr

    lo, hi = _lane_field(lay, [rows, cols], 1)
    lin = lay.to_linear([rows, cols])
    field, low = (1 << (hi - lo)) - 1, (1 << lo) - 1

    def attr(split):
        g = {n: tuple(split(*b) for b in (lin.get_bases(n) if n in lin.in_dims else ()))
             for n in ("register", "lane", "warp", "block")}
        return LinearLayoutAttr(LinearBases(g["register"], g["lane"], g["warp"], g["block"]))

    split = attr(lambda r, c: (r, c >> hi, (c >> lo) & field, c & low))
    swapped = attr(lambda r, c: (r, (c >> lo) & field, c >> hi, c & low))
    merged = attr(lambda r, c: (r, (c >> lo) & field, ((c >> hi) << lo) | (c & low)))
    return split, swapped, merged, hi - lo


def partials_result_layout(lay, rows: int, cols: int):
    """The layout of `thread_partials`' result: the slice of the last of
    `partials_layouts` along its register dimension."""
    return slice_attr(2, partials_layouts(lay, rows, cols)[2])


def thread_partials(p, x, lay, kind: str):
    """`x` (rank 2, layout `lay`) reduced with `kind` along its columns within each
    thread only: `(rows, 2^(hi - lo))` in `partials_result_layout`, one partial per row
    and per value of the columns' thread bits [lo, hi) (`_lane_field`): no value crosses
    a thread (no shuffle), and `p.reduce(partials, 1, kind)` is the full reduction. As
    IR (`partials_layouts`): `layout.reshape` splitting the columns at the thread field,
    `layout.permute` putting the thread field first, `layout.reshape` merging the
    register bits into one dimension, `layout.reduce` over it (one running value per
    row and thread field: few live registers)."""
    rows, cols = x.type.get_shape()
    split, swapped, merged, bits = partials_layouts(lay, rows, cols)
    n = 1 << bits
    regs = cols // n
    low = 1 << _lane_field(lay, [rows, cols], 1)[0]
    x4 = p.reshape(x, [rows, regs // low, n, low], split)
    xs = p.permute(x4, [0, 2, 1, 3], swapped)
    return p.reduce(p.reshape(xs, [rows, n, regs], merged), 2, kind)


def slice_attr(dim: int, parent):
    """`#layout.slice<{dim, parent}>` of a layout attribute (`SliceLayout` takes layout objects only)."""
    from xdsl.dialects.builtin import IntAttr

    from tilec.dialects.layout_attrs import SliceLayoutAttr

    return SliceLayoutAttr(IntAttr(dim), parent)


def check_config(head_dim: int, dtype: str, group: int, bm: int, bn: int, stages: int) -> None:
    """What `attention_fwd` builds: a ValueError naming what is not."""
    if head_dim not in HEAD_DIMS:
        raise ValueError(f"attention: head dim {head_dim} is not one of {HEAD_DIMS}")
    if dtype not in DTYPES:
        raise ValueError(f"attention: dtype {dtype!r} is not one of {DTYPES}")
    if group < 1:
        raise ValueError(f"attention: the GQA ratio (query heads per kv head) is >= 1, got {group}")
    if bm % 64 or bm < 64 or bn not in (64, 128, 256) or stages < 2:
        raise ValueError(f"attention: bm a multiple of 64, bn 64, 128 or 256, stages >= 2 (got {bm}, {bn}, {stages})")


def attention_fwd(
    head_dim: int,
    dtype: str = "bf16",
    causal: bool = False,
    group: int = 1,
    scale: float | None = None,
    bm: int | None = None,
    bn: int | None = None,
    stages: int | None = None,
    warp_specialized: bool = True,
    overlap: bool | None = None,
    consumer_regs: int | None = None,
    producer_regs: int = 24,
    persistent: int = 0,
    pingpong: bool = False,
    deferred_sum: bool = True,
    min_blocks: int | None = None,
):
    """The flash-attention forward program (the module docstring) as a `tilec.Program`
(`warp_specialized`: a producer warpgroup and `bm / 64` consumer warpgroups whose
registers `setmaxnreg` sets to `producer_regs` and `consumer_regs`). `bm`, `bn`,
`stages` left None: compiler/attention_tiles.py's `tile_config(head_dim, dtype)`,
the rule from the shared-memory and register budgets (bm = 128, bn = 64, two blocks
per multiprocessor at D = 64; bm = bn = 128 at D = 128; bm = bn = 64, one consumer
warpgroup, at D = 256).

`overlap` (warp-specialised only): FlashAttention-3's intra-warpgroup overlap at
every KV step (`pp_overlapped_loop`, with the pingpong's turns or without): the
tile's first Q K^T is waited for and its softmax run before the KV loop, which
carries P_j and O's factor alpha_j (O complete). Step j issues S_j+1 = Q K^T, rescales
O, issues P_j V (`layout.mma {async}`), waits for S_j+1 alone (`layout.mma_wait
{pending = 1}`) and runs softmax_j+1 while P_j V runs on; then it waits for O
`after` softmax_j+1's row sums (without that order ptxas issues the wait ahead of the
softmax, serialising it after P_j V) and rounds P_j+1 into wgmma's A registers
(P_j V reads P_j's until then). The tile's last step (a round's last where the tile
has no further round: an `scf.if`) issues P_j V alone; no wgmma is in flight across
the loop's back edge or an `scf.if` (an accumulator in flight across them makes ptxas
serialise the wgmma, C7515). Live at the peak: O and P_j in flight, S_j+1 becoming
P_j+1's exponentials: at bn = 128 it compiles without spills in the consumers' 240
registers (D 64 and 128, with the pingpong or without). Default: on at D >= 128 and
at bn = 64, off at D = 64, bn = 128, and off wherever its registers
(attention_tiles.overlap_registers_needed) exceed the consumers' (at D = 64's two
blocks per multiprocessor: 120 of 104) (the rule of the H200 measurements, session 31:
at D = 128 the overlapped loop timed 0-6 % faster than the plain one at the issue's
three D = 128 shapes, most where causal; at D = 64 10-20 % slower, its P V being half
as long as at D = 128 while the softmax it would hide is as long and the loop runs
more instructions: docs/attention.md).

`persistent` = P > 0 (warp-specialised only): a grid of min(P min_blocks, tiles) blocks
(P: the GPU's multiprocessors), block `pid` taking the tiles pid, pid + nprog, ... of the
`ceil(Sq / bm) * H * B` (q-block, head, batch) tiles, q-block fastest (the blocks
running together read the K and V of a few heads: L2 serves them). Causal tiles
differ in work (a q-block reads the KV blocks up to its diagonal): their q-blocks
run in reverse order, the longest first (FlashAttention-3's order: the short tiles
fill the tail), and the rounds alternate direction (a snake: in odd rounds block
pid takes the round's tiles from the far end, so a block with a long tile in one
round gets a short one in the next; at 32 q-blocks x 128 heads on 132 blocks the
longest block does 3 % more than the mean, 12.5 % in plain round robin). The
regions loop over the block's tiles; the K / V ring and its phases run on across
tiles (the block's KV step count carried), so the producer loads
the next tile's first stage under the current tile's last step, and its Q once
every consumer warpgroup has run the tile's last Q K^T (a "Q empty" mbarrier, one
arrival per consumer warpgroup; the Q barriers' phases are the block's tile count
mod 2): the next tile's loads run under the last step's P V and the epilogue. The
epilogue waits for the previous tile's TMA store to have read O's buffer before
writing it.

`pingpong` (warp-specialised, bm >= 128): FlashAttention-3's
inter-warpgroup pingpong (docs/attention.md). Each consumer warpgroup is a
warp_specialize region of its own over its 64 rows (its own Q and O buffers, 64-row
TMA tiles); the regions take turns through named barriers `wgs + 2 + w` (w's own:
`bar.sync`; the next warpgroup's: `bar.arrive`, 256 threads each), warpgroup 0 taking
the first turn. Without `overlap`, in its turn a warpgroup issues P_j V and the next block's Q K^T
(both async), hands the turn on, waits for both and runs the next softmax while the
other warpgroup's turn runs; S is carried across the KV loop's iterations, the tile's
first Q K^T is a turn of its own and its last P V is issued alone. With `overlap`
too (the default at D >= 128 and at bn = 64), the intra-warpgroup overlap as well (above): the turn
of step j issues S_j+1, rescales O and issues P_j V (FlashAttention-3's order), and
softmax_j+1 runs under P_j V and the other warpgroup's turn.

`min_blocks` (None: the rule's, `tile_config`, where the tiles and the schedule are
the rule's (warp-specialised, no pingpong), else 1: 2 at D = 64): the blocks resident per
multiprocessor the kernel is compiled for (`__launch_bounds__(threads, min_blocks)`,
stated at 1 too: without it ptxas may not know the registers at entry and drop the
`setmaxnreg`, C7508, serialising the wgmma, C7520); the consumers' `setmaxnreg inc`
(`consumer_regs` None) is the block's share of the register file less the producer's
(attention_tiles.consumer_registers: 240 for one block of two consumer warpgroups,
232 for two blocks of one); persistent, the grid is min(P min_blocks, tiles). A
ValueError where `min_blocks` blocks' shared memory does not fit a multiprocessor.

`deferred_sum` (default: on): the row sum l of the
online softmax kept as per-thread partials (`thread_partials`: each thread's sum of
its exponentials of the row, in registers only), rescaled each KV step by the same
alpha = exp2((m_old - m_new) c) as O (the sum is linear in the exponentials, so
sum_t alpha l_t = alpha sum_t l_t), and reduced across the quad once, in the epilogue
(FlashAttention-3's), where otherwise each KV step shuffles and adds across the quad.
Every schedule (plain, `overlap`, `pingpong`, both; D 64, 128, 256; bn 64, 128;
persistent or not) compiles with it without spills (tests/unit/test_attention.py).

    Arguments, in order: pointers `q`, `k`, `v`, `o` (`dtype`), `lse` (f32); index
    arguments `B`, `H`, `Hkv`, `Sq`, `Skv`, then the strides (in elements) of batch,
    head and sequence of q, k, v and o (`qsb, qsh, qss, ksb, ...`). `group` is H / Hkv;
    `scale` defaults to 1 / sqrt(head_dim).

        p = attention_fwd(64, "bf16", causal=True)
        kernel = tilec.compile(p.module)
    """
    from tilec.compiler.builder import Program
    from tilec.compiler.kernel_builder import Value
    from tilec.dialects.distributed import SliceLayout
    from tilec.dialects.mma import DotOperandLayout, NvidiaMmaLayout

    D = head_dim
    tiles = tile_config(D, dtype)  # the defaults: the budgets' rule (compiler/attention_tiles.py)
    bm = tiles.bm if bm is None else bm
    bn = tiles.bn if bn is None else bn
    stages = tiles.stages if stages is None else stages
    if min_blocks is None:  # the rule's blocks go with the rule's tiles and its schedule (warp-specialised, no pingpong)
        rules = (bm, bn, stages) == (tiles.bm, tiles.bn, tiles.stages) and warp_specialized and not pingpong
        min_blocks = tiles.blocks if rules else 1
    check_config(D, dtype, group, bm, bn, stages)
    if consumer_regs is None:  # the block's share of the register file, less the producer's
        consumer_regs = consumer_registers(max(1, bm // 64), min_blocks, producer_regs)
    if min_blocks < 1 or (min_blocks > 1 and not fits_blocks(D, dtype, bm, bn, stages, min_blocks)):
        raise ValueError(f"attention: {min_blocks} blocks of {bm} x {bn} tiles, {stages} stages, do not fit a "
                         f"multiprocessor's shared memory at head dim {D}")
    if persistent < 0 or (persistent and not warp_specialized):
        raise ValueError(f"attention: persistent ({persistent}) >= 0, and only with warp_specialized")
    if pingpong and (not warp_specialized or bm < 128):
        raise ValueError(
            f"attention: pingpong needs warp_specialized and bm >= 128 (two consumer warpgroups or more) "
            f"(got warp_specialized={warp_specialized}, bm={bm})"
        )
    if overlap is None:  # where it has been measured faster than the plain loop and its registers fit (docstring)
        overlap = (bn <= 64 or D >= 128) and overlap_registers_needed(D, bn) <= consumer_regs
    overlap = overlap and warp_specialized  # the synchronous ring refills the next stage after each step
    scale = 1.0 / math.sqrt(D) if scale is None else float(scale)
    c = scale * LOG2E
    cw = 64 if pingpong else bm  # the rows of one consumer region: its warpgroup's, or all of them
    warps = cw // 16
    mma_s = NvidiaMmaLayout(3, [warps, 1], [64, bn, 16])
    mma_o = NvidiaMmaLayout(3, [warps, 1], [64, D, 16])
    rows_s, cols_s, rows_o = SliceLayout(1, mma_s), SliceLayout(0, mma_s), SliceLayout(1, mma_o)
    a_op = DotOperandLayout(0, mma_o, 2)
    # the row sums' layout: one partial per row and per thread of the row (`thread_partials`)
    if deferred_sum:  # the row sum as per-thread partials (`thread_partials`), the quad's added in the epilogue
        lsum_shape, lsum_layout = [cw, 1 << partials_layouts(mma_s, cw, bn)[3]], partials_result_layout(mma_s, cw, bn)
    else:
        lsum_shape, lsum_layout = [cw], rows_s

    p = Program("attention_fwd")
    ptr = {n: p.pointer(n, dtype, align=16) for n in ("q", "k", "v", "o")}
    plse = p.pointer("lse", "f32", align=16)
    B, H, Hkv, Sq, Skv = (p.index(n) for n in ("B", "H", "Hkv", "Sq", "Skv"))
    st = {n: [p.index(f"{n}s{x}") for x in "bhs"] for n in "qkvo"}
    div = [1, 1, 1, 8, 8, 8]
    Q = p.view(ptr["q"], f"(?,?,?,{D}):(?,?,?,1)", dynamic=[B, H, Sq, *st["q"]], divisible=div).named("Q")
    KT = p.view(ptr["k"], f"(?,?,{D},?):(?,?,1,?)", dynamic=[B, Hkv, Skv, *st["k"]], divisible=div).named("KT")
    V = p.view(ptr["v"], f"(?,?,?,{D}):(?,?,?,1)", dynamic=[B, Hkv, Skv, *st["v"]], divisible=div).named("V")
    O = p.view(ptr["o"], f"(?,?,?,{D}):(?,?,?,1)", dynamic=[B, H, Sq, *st["o"]], divisible=div).named("O")
    c0, c1, c2 = p.constant(0), p.constant(1), p.constant(2)
    cs = p.constant(stages).named("cs")
    cbm, cbn = p.constant(bm).named("cbm"), p.constant(bn).named("cbn")
    gm = p.divui((Sq + p.constant(bm - 1)).named("sq_up"), cbm).named("gm")
    wgs = bm // 64
    threads = 128 * (wgs + 1) if warp_specialized else 2 * bm
    if persistent:  # one block per multiprocessor (at most one per tile), looping over tiles
        ntiles = (gm * H * B).named("ntiles")
        grid = (p.minui(ntiles, p.constant(persistent * min_blocks).named("sms")).named("nprog"), c1, c1)
    else:
        grid = (gm, H, B)
    with p.launch(grid=grid, threads=threads, min_blocks=min_blocks) as k:
        if pingpong:  # a Q and an O buffer per consumer warpgroup: its 64 rows
            sqs = [p.alloc(_smem(cw, D, False), dtype).named(f"sq{w}") for w in range(wgs)]
        else:
            sq = p.alloc(_smem(bm, D, False), dtype).named("sq")
        sk, sv, full, vfull, kempty, empty = {}, {}, {}, {}, {}, {}
        for s in range(stages):
            sk[s] = p.alloc(_smem(D, bn, True), dtype).named(f"sk{s}")
            sv[s] = p.alloc(_smem(bn, D, False), dtype).named(f"sv{s}")
            full[s] = p.mbarrier_init(1).named(f"full{s}")  # K's tile landed
            vfull[s] = p.mbarrier_init(1).named(f"vfull{s}")  # V's tile landed
            if warp_specialized:  # one arrival per consumer warpgroup: the stage's K (its Q K^T waited for), V read
                kempty[s] = p.mbarrier_init(wgs).named(f"kempty{s}")
                empty[s] = p.mbarrier_init(wgs).named(f"empty{s}")
        if pingpong:
            sos = [p.alloc(_smem(cw, D, False), dtype).named(f"so{w}") for w in range(wgs)]
        else:
            so = p.alloc(_smem(bm, D, False), dtype).named("so")
        qbar = p.mbarrier_init(1).named("qbar")
        if persistent:  # one arrival per consumer warpgroup: the tile's last Q K^T has read Q
            qempty = p.mbarrier_init(wgs).named("qempty")
        offs = {s: p.constant(s).named(f"o{s}") for s in range(1, stages)}
        offs[0] = c0

        class Tile:
            """One (q-block, head, batch) tile: its coordinates, its KV steps (`last`
            KV block, `nsteps` rounded up to the stages) and `base`, the block's KV
            steps before it (the ring's position), `jt` the block's tiles before it."""

            def __init__(self, qb, h, b, base, jt):
                self.qb, self.h, self.b, self.base, self.jt = qb, h, b, base, jt
                self.kvh = p.divui(h, p.constant(group).named("group")).named("kvh") if group > 1 else h
                # KV blocks this Q block reads: all, or (causal) up to the one holding its last row's diagonal
                nkv = p.divui((Skv + p.constant(bn - 1)).named("skv_up"), cbn).named("nkv")
                if causal:
                    diag = p.divui(((qb + c1) * cbm + p.constant(bn - 1)).named("q_end"), cbn).named("ndiag")
                    nkv = p.minui(nkv, diag).named("nkv_causal")
                self.last = (nkv - c1).named("last")
                self.nsteps = (p.divui((nkv + p.constant(stages - 1)).named("nkv_up"), cs) * cs).named("nsteps")

        def tiles(body) -> None:
            """`body(tile)` for each tile of the block: its one tile, or (persistent) the
            tiles pid, pid + nprog, ... in the order of `persistent`'s docstring."""
            if not persistent:
                body(Tile(k.bx.named("qb"), k.by.named("h"), k.bz.named("b"), c0, c0))
                return
            pid, nprog = k.bx.named("pid"), grid[0]
            base = p.constant(0).named("base0")
            with p.range(pid, ntiles, nprog, carry=[base]) as u:
                u.named("u")
                base.named("base")
                rp = (u - pid).named("rp")  # the round's first tile
                jt = p.divui(rp, nprog).named("jt")  # the round: the block's tiles before this one
                t = u
                if causal:  # odd rounds backwards over the round's tiles (a snake: the rounds' work evens out)
                    odd = p.remui(jt, c2).named("odd")
                    cnt = p.minui(nprog, (ntiles - rp).named("left")).named("cnt")
                    back = (u + odd * (cnt - c1).named("cnt1")).named("uback")
                    t = (back - odd * (pid + pid).named("pid2")).named("t")
                qi, hb = p.remui(t, gm).named("qi"), p.divui(t, gm).named("hb")
                qb = ((gm - c1).named("gm1") - qi).named("qb") if causal else qi.named("qb")
                tile = Tile(qb, p.remui(hb, H).named("h"), p.divui(hb, H).named("b"), base, jt)
                body(tile)
                base.assign((base + tile.nsteps).named("base_next"))

        def load(tile: Tile, s: int, j, name: str, before_v=None) -> None:
            """The TMA loads of KV block `j` into stage `s`: K, then (after `before_v()`,
            the producer's wait for V's half of the stage to be free) V."""
            p.mbarrier_arrive(full[s], tx=2 * bn * D)
            p.tma_load(p.tile(KT, [tile.b, tile.kvh, c0, j], [1, 1, D, bn]).named(f"tk_{name}"), sk[s], full[s])
            if before_v is not None:
                before_v()
            p.mbarrier_arrive(vfull[s], tx=2 * bn * D)
            p.tma_load(p.tile(V, [tile.b, tile.kvh, j, c0], [1, 1, bn, D]).named(f"tv_{name}"), sv[s], vfull[s])

        def load_q(tile: Tile) -> None:
            p.mbarrier_arrive(qbar, tx=2 * bm * D)
            if pingpong:  # each consumer warpgroup's 64 rows into its buffer
                qb0 = (tile.qb * p.constant(wgs).named("cwgs")).named("qb0")
                for w in range(wgs):
                    qw = (qb0 + p.constant(w)).named(f"qb{w}") if w else qb0
                    p.tma_load(p.tile(Q, [tile.b, tile.h, qw, c0], [1, 1, cw, D]).named(f"tq{w}"), sqs[w], qbar)
                return
            p.tma_load(p.tile(Q, [tile.b, tile.h, tile.qb, c0], [1, 1, bm, D]).named("tq"), sq, qbar)

        q2 = k2 = v2 = None  # the 2-D views of the shared buffers, made by the consumers' first tile

        def row_limits(row0):
            """The region's query rows from `row0` (an index) and the columns each keeps:
            below Skv, and (causal) up to the row itself. The last is a pair: `lim`, per
            row the end of its kept columns, and `edge`, the least of them (the region's
            first row's; an index): a KV block wholly below `edge` holds no masked
            element."""
            rows = (p.arange(0, cw, rows_s) + row0.cast("i32").named("row0_32")).named("rows")  # the block's query rows
            cols0 = p.arange(0, bn, cols_s).named("cols0")
            sq32, skv32 = Sq.cast("i32").named("sq32"), Skv.cast("i32").named("skv32")
            lim = p.splat(skv32, [cw], rows_s).named("lim")
            edge = Skv
            if causal:
                lim = p.minimum((rows + 1).named("rows1"), skv32).named("lim")
                edge = p.minui((row0 + c1).named("row0_1"), Skv).named("edge")
            return rows, cols0, sq32, (lim, edge)

        def softmax(sc, j, s: int, limits, cols0, m, lsum, acc):
            """The online softmax of S = `sc` (step s, KV block j): masked, `m` and `lsum`
            assigned; returns P as wgmma's A operand and O rescaled."""
            pa, alpha_o = softmax_p(sc, j, s, limits, cols0, m, lsum)
            return pa, (acc * alpha_o).named(f"scaled{s}")

        def softmax_p(sc, j, s: int, limits, cols0, m, lsum, as_operand: bool = True):
            """`softmax` but O's rescaling: P as wgmma's A operand (`as_operand`; else the
            exponentials in f32, S's layout, for `a_operand`) and O's factor."""
            # column j * bn + t of row r is kept where t < lim[r] - j * bn: one compare per element,
            # only in the blocks that reach past the region's `edge` (the sequence's end, the
            # causal diagonal, the steps past `last`): a uniform branch, the others skip it
            lim, edge = limits
            jbn = (j * cbn).named(f"jbn{s}")
            edged = (edge < (jbn + cbn).named(f"jend{s}")).named(f"edged{s}")
            sc = Value(p, sc.ssa)  # the masked S is the if's result (the caller's S stays as it was)
            masked, _ = p.if_else(edged, carry=[sc])
            with masked:
                lim_j = (lim - jbn.cast("i32")).named(f"lim{s}")
                valid = p.expand_dims(cols0, 0) < p.expand_dims(lim_j, 1)
                sc.assign(p.where(valid, sc, float("-inf")).named(f"masked{s}"))
            m_new = p.maximum(m, p.reduce(sc, 1, "max")).named(f"m{s}")
            mc = (m_new * c).named(f"mc{s}")
            alpha = p.math("exp2", (m * c - mc), fastmath="afn").named(f"alpha{s}")
            # S c - m c as one fma per element (FlashAttention-3's FFMA; tilec compiles with
            # --fmad=false, so the product and the difference were an FMUL and an FADD)
            neg_mc = p.broadcast(p.expand_dims((-mc).named(f"nmc{s}"), 1), [cw, bn])
            pe = p.math("exp2", p.fma(sc, c, neg_mc), fastmath="afn").named(f"p{s}")
            # the row sum's partials per thread (`thread_partials`): sum_j exp2(s_j c - m c) is
            # linear in the exponentials, so each partial rescales by alpha as the whole
            # sum would; the quad's partials are added once, in the epilogue
            if deferred_sum:
                alpha_l = p.expand_dims(p.convert_layout(alpha, slice_attr(1, lsum_layout)), 1)
                lsum.assign((lsum * alpha_l + thread_partials(p, pe, mma_s, "add")).named(f"l{s}"))
            else:
                lsum.assign((lsum * alpha + p.reduce(pe, 1, "add")).named(f"l{s}"))
            m.assign(m_new)
            alpha_o = p.expand_dims(p.convert_layout(alpha, rows_o), 1)
            return (a_operand(pe, s) if as_operand else pe), alpha_o

        def a_operand(pe, s):
            """The exponentials `pe` (f32, S's layout) rounded to the input type as wgmma's
            A operand (a renaming of registers: the module docstring)."""
            return p.convert_layout(pe.cast(dtype), a_op).named(f"pa{s}")

        def epilogue(tile: Tile, acc, m, lsum, rows, sq32, o_buf, o_block, o2: str) -> None:
            """O / l rounded, through shared `o_buf` to O's rows `o_block` (a tile of its
            rows) by the TMA; LSE by the threads holding each row below Sq."""
            if deferred_sum:  # the quad's partials
                lsum = p.convert_layout(p.reduce(lsum, 1, "add"), rows_s).named("l_rows")
            l_o = p.expand_dims(p.convert_layout((1.0 / lsum).named("inv_l"), rows_o), 1)
            out = (acc * l_o).cast(dtype).named("out")
            if persistent:  # the previous tile's TMA store has read O's buffer
                p.tma_store_wait(0)
            p.store(out, p.slice(o_buf, [0, 0, "_", "_"]).named(o2))
            p.tma_store(o_buf, p.tile(O, [tile.b, tile.h, o_block, c0], [1, 1, cw, D]).named("to"))
            lse = (m * scale + p.math("log", lsum)).named("lse_rows")
            head = ((tile.b * H + tile.h) * Sq).cast("i32").named("head_row0")
            p.ptr_store(p.addptr(plse, rows + head), lse, mask=rows < sq32)
            if not persistent:
                p.tma_store_wait(0)

        def round_phase(tile: Tile, i):
            """The parity of the KV ring's phase at step `i` of `tile`'s loop: its round
            (counted across the block's tiles when persistent) mod 2."""
            kall = (tile.base + i).named("kall") if persistent else i
            return p.remui(p.divui(kall, cs).named("round"), c2).named("phase")

        def first_phase(tile: Tile):
            """The parity of the KV ring's phase at `tile`'s first step (`round_phase` at 0)."""
            return p.remui(p.divui(tile.base, cs).named("round0"), c2).named("phase0") if persistent else c0

        @contextmanager
        def kv_rounds(tile: Tile, carry):
            """The consumers' KV loop over `tile`, one round of `stages` KV blocks a step
            (`carry` carried): its body is the `with` block, given the step `i` and the
            round's phase parity (`round_phase`)."""
            with p.range(c0, tile.nsteps, cs, carry=carry) as i:
                i.named("i")
                yield i, round_phase(tile, i)

        def release_q_at_last_round(i, nsteps) -> None:
            """Persistent, once the tile's last Q K^T has read Q: in the tile's last round
            (step `i` of `nsteps`), arrive on `qempty` so that the next tile's Q may land."""
            with p.if_((i + cs).named("inext").eq(nsteps).named("lastround")):
                p.mbarrier_arrive(qempty)

        def end_round_turn(more_cond, turn, w, qv, k0, zero_s, sc, pv, acc) -> None:
            """The end of a pingpong turn at a round's last stage, P V (`pv`) issued:
            where the tile has another round (`more_cond`), its first Q K^T (`qv` by
            `k0`) issued, the turn passed to warpgroup w + 1 and the scores waited for
            into `sc`; otherwise the turn passed on alone; then P V waited for into `acc`."""
            more, last = p.if_else(more_cond, carry=[sc])
            with more:
                nxt = p.mma(qv, k0, zero_s, is_async=True).named("s0_async")
                turn("arrive", w + 1)
                (new_s,) = p.mma_wait(nxt, pending=0)
                p.mbarrier_arrive(kempty[0])  # K of stage 0 read: the producer may refill it
                sc.assign(new_s)
            with last:
                turn("arrive", w + 1)
            (done,) = p.mma_wait(pv, pending=0)
            acc.assign(done)

        def consumer(tile: Tile, after_step) -> None:
            """The KV loop of the consumer threads over one tile (every thread without
            warp specialisation): each step waits for its stage, runs S = Q K^T, the
            online softmax and O += P V, then `after_step(s, j)`; then the epilogue. With
            `overlap`, the loop of `pp_overlapped_loop` (no turns; each stage released
            once its P V is waited for)."""
            nonlocal q2, k2, v2
            qb, nsteps = tile.qb, tile.nsteps
            qphase = p.remui(tile.jt, c2).named("qphase") if persistent else c0
            p.mbarrier_wait(qbar, qphase)
            if q2 is None:
                q2 = p.slice(sq, [0, 0, "_", "_"]).named("q2")
                k2 = {s: p.slice(sk[s], [0, 0, "_", "_"]).named(f"k2_{s}") for s in range(stages)}
                v2 = {s: p.slice(sv[s], [0, 0, "_", "_"]).named(f"v2_{s}") for s in range(stages)}
            row0 = (qb * cbm).named("row0")
            rows, cols0, sq32, limits = row_limits(row0)
            zero_s = p.full([bm, bn], 0.0, "f32", mma_s, dense=True).named("zero_s")
            acc = p.full([bm, D], 0.0, "f32", mma_o, dense=True).named("acc0")
            m = p.full([bm], float("-inf"), "f32", rows_s).named("m0")
            lsum = p.full(lsum_shape, 0.0, "f32", lsum_layout).named("l0")
            if overlap:  # FlashAttention-3's intra-warpgroup overlap: the pingpong's loop without the turns
                p.mbarrier_wait(full[0], first_phase(tile))
                (sc,) = p.mma_wait(p.mma(q2, k2[0], zero_s, is_async=True).named("s_first"), pending=0)
                p.mbarrier_arrive(kempty[0])
                pp_overlapped_loop(tile, 0, lambda mode, x: None, q2, k2, v2, zero_s, acc, m, lsum, sc, limits, cols0)
                epilogue(tile, acc, m, lsum, rows, sq32, so, qb, "o2")
                return
            with kv_rounds(tile, [acc, m, lsum]) as (i, phase):
                for s in range(stages):
                    j = (i + offs[s]).named(f"j{s}")  # this step's KV block (past `last`: masked out)
                    p.mbarrier_wait(full[s], phase)
                    sc = p.mma(q2, k2[s], zero_s).named(f"s{s}")
                    if warp_specialized:  # K of stage s read: the producer may refill it
                        p.mbarrier_arrive(kempty[s])
                    if persistent and s == stages - 1:  # the tile's last Q K^T has read Q: the next tile's may land
                        release_q_at_last_round(i, nsteps)
                    pa, scaled = softmax(sc, j, s, limits, cols0, m, lsum, acc)
                    p.mbarrier_wait(vfull[s], phase)  # V's tile: Q K^T and the softmax ran while it landed
                    acc.assign(p.mma(pa, v2[s], scaled).named(f"acc{s}"))
                    after_step(s, j)
            epilogue(tile, acc, m, lsum, rows, sq32, so, qb, "o2")

        pp_views: dict[int, tuple] = {}  # consumer warpgroup w's 2-D views (pingpong), made by its first tile

        def pp_consumer(tile: Tile, w: int) -> None:
            """Consumer warpgroup w's KV loop over its 64 rows of one tile (pingpong: the
            docstring of `attention_fwd`). Turn barrier `turn0 + w` is its own; it hands
            the turn to the next warpgroup's."""
            turn = lambda mode, x: p.named_barrier(mode, turn0 + x % wgs, 256)  # noqa: E731
            qphase = p.remui(tile.jt, c2).named("qphase") if persistent else c0
            p.mbarrier_wait(qbar, qphase)
            if w not in pp_views:
                pp_views[w] = (
                    p.slice(sqs[w], [0, 0, "_", "_"]).named(f"q2_{w}"),
                    {s: p.slice(sk[s], [0, 0, "_", "_"]).named(f"k2_{s}") for s in range(stages)},
                    {s: p.slice(sv[s], [0, 0, "_", "_"]).named(f"v2_{s}") for s in range(stages)},
                )
            qv, kv, vv = pp_views[w]
            row0 = (tile.qb * cbm + p.constant(w * cw)).named("row0")
            rows, cols0, sq32, limits = row_limits(row0)
            zero_s = p.full([cw, bn], 0.0, "f32", mma_s, dense=True).named("zero_s")
            acc = p.full([cw, D], 0.0, "f32", mma_o, dense=True).named("acc0")
            m = p.full([cw], float("-inf"), "f32", rows_s).named("m0")
            lsum = p.full(lsum_shape, 0.0, "f32", lsum_layout).named("l0")
            # the tile's first Q K^T, in this warpgroup's turn
            turn("sync", w)
            p.mbarrier_wait(full[0], first_phase(tile))
            s_first = p.mma(qv, kv[0], zero_s, is_async=True).named("s_first")
            turn("arrive", w + 1)
            (sc,) = p.mma_wait(s_first, pending=0)
            p.mbarrier_arrive(kempty[0])
            if overlap:
                pp_overlapped_loop(tile, w, turn, qv, kv, vv, zero_s, acc, m, lsum, sc, limits, cols0)
            else:
                pp_loop(tile, w, turn, qv, kv, vv, zero_s, acc, m, lsum, sc, limits, cols0)
            qw = (tile.qb * p.constant(wgs).named("cwgs") + p.constant(w)).named("oblock")
            epilogue(tile, acc, m, lsum, rows, sq32, sos[w], qw, f"o2_{w}")

        def await_operands(s: int, i, phase, nsteps):
            """Before a pingpong turn (so that the turn is not held on a TMA load): V of
            stage s landed, and K of the next step where the tile has one. Returns, at
            the round's last stage, whether the tile has another round (None before)."""
            p.mbarrier_wait(vfull[s], phase)
            if s + 1 < stages:
                p.mbarrier_wait(full[s + 1], phase)
                return None
            more = ((i + cs).named("inext") < nsteps).named("more")
            with p.if_(more):
                p.mbarrier_wait(full[0], (c1 - phase).named("nphase"))
            return more

        def pp_loop(tile, w, turn, qv, kv, vv, zero_s, acc, m, lsum, sc, limits, cols0) -> None:
            """The pingpong KV loop: softmax_j, then in the turn P_j V and S_j+1 issued,
            both waited for after the turn."""
            nsteps = tile.nsteps
            with kv_rounds(tile, [acc, m, lsum, sc]) as (i, phase):
                for s in range(stages):
                    j = (i + offs[s]).named(f"j{s}")  # this step's KV block (past `last`: masked out)
                    pa, scaled = softmax(sc, j, s, limits, cols0, m, lsum, acc)
                    more_cond = await_operands(s, i, phase, nsteps)
                    turn("sync", w)  # this warpgroup's turn: P_j V and the next Q K^T
                    pv = p.mma(pa, vv[s], scaled, is_async=True).named(f"pv{s}_async")
                    if s + 1 < stages:
                        nxt = p.mma(qv, kv[s + 1], zero_s, is_async=True).named(f"s{s + 1}_async")
                        turn("arrive", w + 1)
                        new_s, done = p.mma_wait(nxt, pv, pending=0)
                        p.mbarrier_arrive(kempty[s + 1])
                        sc.assign(new_s)
                        acc.assign(done)
                        if persistent and s + 2 == stages:  # the tile's last Q K^T has read Q
                            release_q_at_last_round(i, nsteps)
                    else:  # the next round's first Q K^T, where the tile has one
                        end_round_turn(more_cond, turn, w, qv, kv[0], zero_s, sc, pv, acc)
                    p.mbarrier_arrive(empty[s])  # stage s read: the producer may refill it

        def pp_overlapped_loop(tile, w, turn, qv, kv, vv, zero_s, acc, m, lsum, sc, limits, cols0) -> None:
            """FlashAttention-3's intra-warpgroup overlap at every KV step, with the
            pingpong's turns (`turn`; a no-op without them). `sc`: the tile's first S,
            complete. Its softmax runs before the loop, which carries P_j and O's factor
            alpha_j (O itself complete); step j, in the warpgroup's turn: S_j+1 = Q K^T
            issued, O rescaled by alpha_j, P_j V issued; the turn handed on, S_j+1 alone
            waited for (`pending = 1`), softmax_j+1 run while P_j V runs on, then O waited
            for after its row sums (`layout.mma_wait` `after`) and stage j's V released. The tile's last step (a round's last without
            another round: an `scf.if`) issues P_j V alone. No wgmma is in flight across
            an `scf.if` or the loop's back edge (an accumulator in flight across it makes
            ptxas serialize the wgmma, C7515)."""
            nsteps = tile.nsteps
            pa, alpha_o = softmax_p(sc, c0, "f", limits, cols0, m, lsum)  # P_0: the tile's first KV block
            pa.named("pa")
            with kv_rounds(tile, [acc, m, lsum, pa, alpha_o]) as (i, phase):
                for s in range(stages):

                    def step(k_next, j_next, t: int, s=s) -> None:
                        """S_j+1 (K `k_next` of stage t, KV block `j_next`), then P_j V; P_j V
                        runs on under softmax_j+1."""
                        nxt = p.mma(qv, k_next, zero_s, is_async=True).named(f"s{t}_async")
                        pv = p.mma(pa, vv[s], (acc * alpha_o).named(f"scaled{s}"), is_async=True).named(f"pv{s}_async")
                        turn("arrive", w + 1)
                        (new_s,) = p.mma_wait(nxt, pending=1)  # S_j+1 complete, P_j V in flight
                        p.mbarrier_arrive(kempty[t])  # K of stage t read: the producer may refill it
                        if persistent and t == stages - 1:  # the tile's last Q K^T has read Q
                            release_q_at_last_round(i, nsteps)
                        pe, new_alpha = softmax_p(new_s, j_next, t, limits, cols0, m, lsum, as_operand=False)
                        # O waited for once the softmax is done (`after` its row sums: else ptxas issues
                        # the wait ahead of the softmax, which then no longer runs under P_j V), and
                        # P_j+1 rounded into wgmma's A registers after it (P_j V reads P_j's), as in
                        # FlashAttention-3
                        (done,) = p.mma_wait(pv, pending=0, after=[lsum])
                        acc.assign(done)
                        pa.assign(a_operand(pe, t))
                        alpha_o.assign(new_alpha)

                    more_cond = await_operands(s, i, phase, nsteps)
                    turn("sync", w)  # this warpgroup's turn: the next Q K^T, then P_j V
                    if s + 1 < stages:
                        step(kv[s + 1], (i + offs[s + 1]).named(f"j{s + 1}"), s + 1)
                    else:  # the next round's first Q K^T, where the tile has one
                        more, last = p.if_else(more_cond, carry=[acc, m, lsum, pa, alpha_o])
                        with more:
                            step(kv[0], (i + cs).named("jnext"), 0)
                        with last:  # the tile's last P V
                            pv = p.mma(pa, vv[s], (acc * alpha_o).named(f"scaled{s}"), is_async=True)
                            turn("arrive", w + 1)
                            (done,) = p.mma_wait(pv.named(f"pv{s}_last"), pending=0)
                            acc.assign(done)
                    p.mbarrier_arrive(empty[s])  # V of stage s read: the producer may refill it

        if not warp_specialized:
            def sync_block(tile: Tile) -> None:
                load_q(tile)
                for s in range(stages - 1):
                    load(tile, s, p.minui(p.constant(s), tile.last).named(f"first{s}"), f"p{s}")

                def refill(s: int, j) -> None:
                    p.barrier()  # every warpgroup has read stage s: load the block `stages - 1` ahead into the one before
                    ahead = (j + p.constant(stages - 1)).named(f"ahead{s}")
                    load(tile, (s + stages - 1) % stages, p.minui(ahead, tile.last).named(f"next{s}"), f"n{s}")

                consumer(tile, refill)
                # the loads past the end (the last KV block again) land before the block exits
                endphase = p.remui(p.divui(tile.nsteps, cs), c2).named("endphase")
                for s in range(stages - 1):
                    p.mbarrier_wait(full[s], endphase)
                    p.mbarrier_wait(vfull[s], endphase)

            tiles(sync_block)
            return p

        def producer(tile: Tile) -> None:
            """The TMA loads of one tile: Q, then the K / V ring; persistent, the ring's
            first stage before Q (it frees a step earlier) and Q once the consumers'
            last Q K^T of the previous tile has read Q's buffer."""
            if not persistent:
                load_q(tile)
            with p.range(c0, tile.nsteps, cs) as i:
                i.named("i")
                kall = (tile.base + i).named("kall") if persistent else i
                rnd = p.divui(kall, cs).named("round")
                first = rnd.eq(c0).named("first")
                ephase = p.remui((rnd - c1).named("prev"), c2).named("ephase")
                for s in range(stages):
                    def await_free(bar, s=s):  # from the second round on, the consumers have read it
                        _, otherwise = p.if_else(first)
                        with otherwise:
                            p.mbarrier_wait(bar[s], ephase)

                    await_free(kempty)
                    load(tile, s, p.minui((i + offs[s]).named(f"j{s}"), tile.last).named(f"kv{s}"), f"s{s}",
                         before_v=lambda s=s: await_free(empty))
                    if persistent and s == 0:
                        with p.if_(i.eq(c0).named("tile_start")):
                            with p.if_(tile.jt.ne(c0).named("later_tile")):
                                qprev = p.remui((tile.jt - c1).named("jprev"), c2).named("qephase")
                                p.mbarrier_wait(qempty, qprev)
                            load_q(tile)

        if pingpong:  # a region per consumer warpgroup, each with its turn barrier
            *roles, producer_role = p.warp_specialize([1] * wgs + [1])
            turn0 = wgs + 2  # barrier 0 is __syncthreads's, 1 .. wgs + 1 the regions' own
            for w, role in enumerate(roles):
                with role:
                    p.setmaxnreg("inc", consumer_regs)
                    if w == 0:  # warpgroup 0 takes the first turn
                        p.named_barrier("arrive", turn0, 256)
                    tiles(lambda tile, w=w: pp_consumer(tile, w))
                    if persistent:  # the last tile's TMA store has read O's buffer before the block exits
                        p.tma_store_wait(0)
        else:
            consumers, producer_role = p.warp_specialize([wgs, 1])
            with consumers:
                p.setmaxnreg("inc", consumer_regs)
                tiles(lambda tile: consumer(tile, lambda s, j: p.mbarrier_arrive(empty[s])))  # stage s read: refill it
                if persistent:  # the last tile's TMA store has read O's buffer before the block exits
                    p.tma_store_wait(0)
        with producer_role:
            p.setmaxnreg("dec", producer_regs)
            tiles(producer)
    return p
