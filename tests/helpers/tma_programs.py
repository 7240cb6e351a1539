"""TMA test programs, modules built with `tilec.Program`: a block-level copy of each
tile of a global tensor through a shared buffer and back (`layout.copy` gmem -> smem ->
gmem, which the `tma` pass turns into TMA loads and stores), and transposes through
shared memory whose loads are TMA (one tile per block, or persistent blocks looping
over the tiles)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

TYPES = {"f32": ("f32", 4), "f16": ("f16", 2), "bf16": ("bf16", 2), "f64": ("f64", 8), "i8": ("i8", 1)}


def _program(name: str, dtype: str = "f32", align: int = 16):
    import tilec

    p = tilec.Program(name)
    return p, p.pointer("src", dtype, align=align), p.pointer("dst", dtype, align=align)


def _blocked(spt: Sequence[int], tpw: Sequence[int], wpc: Sequence[int], order: Sequence[int]) -> Any:
    import tilec

    return tilec.BlockedLayout(list(spt), list(tpw), list(wpc), list(order))


def round_trip(
    m: int,
    n: int,
    tm: int,
    tn: int,
    dtype: str = "f32",
    smem: str | None = None,
    threads: int = 128,
    dynamic: bool = False,
    align: int = 16,
    out: str = "copy",
):
    """Copy an m x n row-major tensor tile by tile (tm x tn) through shared memory laid
    out as `smem` (default: the compact tile). With `dynamic`, m and n are index
    arguments (the row stride promised a multiple of 16 bytes). `align`: the pointers'
    promised alignment; `out` = "regs": the tile goes from shared memory to dst through
    registers (a load and a store) instead of a copy."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import DictionaryAttr, IndexType, IntegerAttr

    et, eb = TYPES[dtype]
    p, src, dst = _program("tma_round_trip", et, align)
    if dynamic:
        mv, nv = p.index("m"), p.index("n")
        a = p.view(src, "(?,?):(?,1)", dynamic=[mv, nv, nv], divisible=[1, 1, 16 // eb]).named("a")
        b = p.view(dst, "(?,?):(?,1)", dynamic=[mv, nv, nv], divisible=[1, 1, 16 // eb]).named("b")
        tmc, tnc = p.constant(tm).named("tmc"), p.constant(tn).named("tnc")
        gx = p.insert(arith.CeilDivSIOp(mv.ssa, tmc.ssa)).results[0].named("gx")
        gy = p.insert(arith.CeilDivSIOp(nv.ssa, tnc.ssa)).results[0].named("gy")
    else:
        a, b = p.view(src, f"({m},{n}):({n},1)").named("a"), p.view(dst, f"({m},{n}):({n},1)").named("b")
        gx, gy = p.constant(-(-m // tm)).named("gx"), p.constant(-(-n // tn)).named("gy")
    c1 = p.constant(1).named("c1")
    with p.launch(grid=(gx, gy, c1), threads=threads) as k:
        ta = p.tile(a, [k.bx, k.by], [tm, tn]).named("ta")
        tb = p.tile(b, [k.bx, k.by], [tm, tn]).named("tb")
        s = p.alloc(smem or f"({tm},{tn}):({tn},1)", et).named("s")
        p.copy(ta, s)
        p.barrier()
        if out == "copy":
            p.copy(s, tb)
        else:
            p.store(p.load(s, _blocked([1, 4], [4, 8], [4, 1], [1, 0])).named("v"), tb)
    module = p.module
    if dynamic:
        func = module.body.block.first_op
        func.attributes["tilec.args"] = DictionaryAttr({"m": IntegerAttr(m, IndexType()),
                                                        "n": IntegerAttr(n, IndexType())})
    return module


def transpose(m: int, n: int, t: int = 32, threads: int = 128):
    """dst (n x m) = src (m x n)^T for f32, t x t tiles: a TMA load into a 128-byte
    swizzled shared tile (t = 32: one 128-byte row per tile row), read down its
    columns, stored along dst's rows (dst viewed column-major over (i, j))."""
    assert t == 32
    p, src, dst = _program("tma_transpose")
    a, b = p.view(src, f"({m},{n}):({n},1)").named("a"), p.view(dst, f"({m},{n}):(1,{m})").named("b")
    grid = (p.constant(-(-m // t)).named("gx"), p.constant(-(-n // t)).named("gy"), p.constant(1).named("c1"))
    with p.launch(grid=grid, threads=threads) as k:
        ta = p.tile(a, [k.bx, k.by], [t, t]).named("ta")
        tb = p.tile(b, [k.bx, k.by], [t, t]).named("tb")
        s = p.alloc(f"#layout.composed<swizzle<3,2,3> o 0 o ({t},{t}):({t},1)>", "f32").named("s")
        p.copy(ta, s)
        w = p.load(s, _blocked([4, 1], [8, 4], [1, threads // 32], [0, 1])).named("w")
        p.store(w, tb)
    return p.module


def _nvmma(ti: int, tj: int, transposed: bool) -> str:
    return (f"#layout.nvmma_shared<swizzle = 128, elementBitWidth = 32, transposed = {str(transposed).lower()}, "
            f"shape = [{ti}, {tj}]>")


def persistent_transpose(
    m: int, n: int, ti: int = 32, tj: int = 32, blocks: int = 3, threads: int = 128, group: int = 0,
    variant: str | None = None,
):
    """dst (n x m) = src (m x n)^T for f32, written as a user would write a persistent
    kernel for `tma{stages=N}`: `blocks` blocks, each looping over the tiles t = bx,
    bx + blocks, ... of the ti x tj tiles of src; each tile copied into an NVMMA
    128-byte swizzled shared tile, transposed into a second one (rows contiguous) by the
    threads, and copied out. Tile t is (t mod gx, t div gx) (gx = tiles down the
    rows); with `group` > 0, tiles go in groups of `group` tile rows (t walks a group's
    rows first, then its columns), so that the tiles in flight at once span a square
    region of both tensors. The barriers order the threads' parts of each copy before the
    reads that follow (the one at the end of the body: the next tile's writes of the
    second buffer after this tile's copy out has read it).

    `variant` makes a loop the ring does not take (tests/unit/test_tma.py): "two copies"
    (the tile copied in twice), "branchy index" (the tile row chosen by an `scf.if`),
    "read before" (the shared tile read before the loop)."""
    gx, gy = -(-m // ti), -(-n // tj)
    w = min(threads // 32, ti // 4)
    p, src, dst = _program("persistent_transpose")
    a, b = p.view(src, f"({m},{n}):({n},1)").named("a"), p.view(dst, f"({m},{n}):(1,{m})").named("b")
    nb, gxv = p.constant(blocks).named("nb"), p.constant(gx).named("gx")
    nt, c1 = p.constant(gx * gy).named("nt"), p.constant(1).named("c1")
    L = _blocked([4, 1], [1, 32], [w, 1], [0, 1])
    with p.launch(grid=(nb, c1, c1), threads=threads) as k:
        s = p.alloc(_nvmma(ti, tj, False), "f32").named("s")
        s2 = p.alloc(_nvmma(ti, tj, True), "f32").named("s2")
        if variant == "read before":
            p.load(s, L).named("v0")
        cnd = (p.constant(0).eq(0)).named("cnd") if variant == "branchy index" else None
        with p.range(k.bx, nt, nb) as t:
            t.named("t")
            if group:
                assert gx % group == 0
                per, gs = p.constant(group * gy).named("per"), p.constant(group).named("gs")
                g, r = p.divui(t, per).named("g"), p.remui(t, per).named("r")
                i0, g0 = p.remui(r, gs).named("i0"), (g * gs).named("g0")
                i, j = (g0 + i0).named("i"), p.divui(r, gs).named("j")
            elif variant == "branchy index":
                i = gxv
                then, _ = p.if_else(cnd, carry=[i])
                with then:
                    i.assign(p.remui(t, gxv).named("r0"))
                i.named("i")
                j = p.divui(t, gxv).named("j")
            else:
                i, j = p.remui(t, gxv).named("i"), p.divui(t, gxv).named("j")
            ta = p.tile(a, [i, j], [ti, tj]).named("ta")
            tb = p.tile(b, [i, j], [ti, tj]).named("tb")
            for _ in range(2 if variant == "two copies" else 1):
                p.copy(ta, s)
            p.barrier()
            p.store(p.load(s, L).named("v"), s2)
            p.barrier()
            p.copy(s2, tb)
            p.barrier()
    return p.module


def persistent_round_trip(m: int, n: int, tm: int, tn: int, blocks: int = 3, threads: int = 64):
    """Copy an m x n f32 tensor tile by tile through ONE shared buffer (in, then out of
    the same buffer), `blocks` blocks looping over the tiles t = bx, bx + blocks, ...
    (tile (t div gy, t mod gy)): the ring's stages then hold both sides of a tile."""
    gy = n // tn
    p, src, dst = _program("persistent_round_trip")
    a, b = p.view(src, f"({m},{n}):({n},1)").named("a"), p.view(dst, f"({m},{n}):({n},1)").named("b")
    nb, nt = p.constant(blocks).named("nb"), p.constant((m // tm) * gy).named("nt")
    gyv, c1 = p.constant(gy).named("gy"), p.constant(1).named("c1")
    with p.launch(grid=(nb, c1, c1), threads=threads) as k:
        s = p.alloc(f"({tm},{tn}):({tn},1)", "f32").named("s")
        with p.range(k.bx, nt, nb) as t:
            t.named("t")
            i, j = p.divui(t, gyv).named("i"), p.remui(t, gyv).named("j")
            ta = p.tile(a, [i, j], [tm, tn]).named("ta")
            tb = p.tile(b, [i, j], [tm, tn]).named("tb")
            p.copy(ta, s)
            p.barrier()
            p.copy(s, tb)
            p.barrier()
    return p.module


SMEM_TILES = {
    "swizzled": "#layout.nvmma_shared<swizzle = 128, elementBitWidth = 32, transposed = false, shape = [{ti}, {tj}]>",
    "compact": "#layout.cute<({ti},{tj}):({tj},1)>",
}
OUT_TILES = {
    "swizzled": "#layout.nvmma_shared<swizzle = 128, elementBitWidth = 32, transposed = true, shape = [{ti}, {tj}]>",
    "compact": "#layout.cute<({ti},{tj}):(1,{ti})>",
}
"""The source tile's shared layout in `tile_transpose`: NVMMA 128-byte swizzled (TMA
loads 32-column boxes side by side) or compact row-major (one TMA box as wide as the
tile, up to 256 columns); OUT_TILES: the destination tile's, dst's rows contiguous
(swizzled: 32-row boxes; compact: one box)."""

REGISTER_LAYOUTS = {
    # a thread: 4 consecutive rows of one column; a warp: 32 rows x 4 columns
    "cols": "#layout.blocked<{{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, {w}], order = [0, 1]}}>",
    # a thread: 4 consecutive rows of one column; a warp: 4 rows x 32 columns
    "rows": "#layout.blocked<{{sizePerThread = [4, 1], threadsPerWarp = [1, 32], warpsPerCTA = [{w}, 1], order = [0, 1]}}>",
}


def tile_transpose(
    m: int,
    n: int,
    ti: int,
    tj: int,
    threads: int = 256,
    smem: str = "swizzled",
    regs: str = "rows",
    out: str = "tma",
    out_smem: str = "swizzled",
    swap_grid: bool = False,
):
    """dst (n x m) = src (m x n)^T for f32, one ti x tj tile per block: a TMA load into
    a shared tile (`smem`: a key of SMEM_TILES), read into registers laid out as
    `regs` (a key of REGISTER_LAYOUTS: 4 consecutive rows of one column per thread,
    stored as one 16-byte vector of dst), then either (`out` = "tma") written into a
    shared tile with dst's rows contiguous (`out_smem`: a key of OUT_TILES) and copied
    out by TMA stores, or (`out` = "regs") stored from registers straight to dst (one shared
    buffer: more blocks per SM). Blocks walk src's tile rows first (consecutive blocks
    write consecutive pieces of dst's rows), or with `swap_grid` its tile columns."""
    assert m % ti == 0 and n % tj == 0
    warps = threads // 32
    w = warps if regs == "cols" else min(warps, ti // 4)
    gx, gy = m // ti, n // tj
    p, src, dst = _program("tile_transpose")
    a, b = p.view(src, f"({m},{n}):({n},1)").named("a"), p.view(dst, f"({m},{n}):(1,{m})").named("b")
    g0, g1 = (gx, gy) if not swap_grid else (gy, gx)
    grid = (p.constant(g0).named("g0"), p.constant(g1).named("g1"), p.constant(1).named("c1"))
    R = REGISTER_LAYOUTS[regs].format(w=w)
    with p.launch(grid=grid, threads=threads) as k:
        coords = [k.bx, k.by] if not swap_grid else [k.by, k.bx]
        ta = p.tile(a, coords, [ti, tj]).named("ta")
        tb = p.tile(b, coords, [ti, tj]).named("tb")
        s = p.alloc(SMEM_TILES[smem].format(ti=ti, tj=tj), "f32").named("s")
        s2 = p.alloc(OUT_TILES[out_smem].format(ti=ti, tj=tj), "f32").named("s2") if out == "tma" else None
        p.copy(ta, s)
        v = p.load(s, R).named("v")
        if out == "tma":
            p.store(v, s2)
            p.barrier()
            p.copy(s2, tb)
        else:
            assert out == "regs"
            p.store(v, tb)
    return p.module


def fill_into_panel(m: int = 8, n: int = 80, bn: int = 32, blocks: int = 3, whole: bool = False):
    """@fill: block j loads the m x bn f16 tile j of `src` (m x n, row-major; tiles past n: zeros) into the
    first bn columns of an m x 64 panel of a 128-byte swizzle (a box narrower than its swizzle row: its rows
    land 128 bytes apart, `TmaGeometry.pad`), waits, and stores those columns into `dst`'s tile j (`dst` m x
    n); `whole`: the panel's 64 columns into `dst` rows m j .. m j + m - 1 (`dst` blocks m x 64)."""
    from tilec.dialects.mma import NvmmaSharedLayout

    p, src, dst = _program("fill", "f16")
    a = p.view(src, f"({m},{n}):({n},1)")
    b = p.view(dst, f"({blocks * m},64):(64,1)" if whole else f"({m},{n}):({n},1)")
    with p.launch(grid=(blocks, 1, 1), threads=128) as k:
        panel = p.alloc(NvmmaSharedLayout(128, 16, False).composed([m, 64]), "f16")
        part = p.tile(panel, [p.constant(0), p.constant(0)], [m, bn])
        bar = p.mbarrier_init(1)
        p.mbarrier_arrive(bar, tx=m * bn * 2)
        p.tma_load(p.tile(a, [p.constant(0), k.bx], [m, bn]), part, bar)
        p.mbarrier_wait(bar, p.constant(0))
        if whole:
            p.store(p.load(panel, _blocked([1, 8], [4, 8], [4, 1], [1, 0])),
                    p.tile(b, [k.bx, p.constant(0)], [m, 64]))
        else:
            p.store(p.load(part, _blocked([1, 8], [4, 8], [4, 1], [1, 0])), p.tile(b, [p.constant(0), k.bx], [m, bn]))
    return p.module
