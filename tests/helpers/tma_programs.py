"""TMA test programs: a block-level copy of each tile of a global tensor through a
shared buffer and back (`layout.copy` gmem -> smem -> gmem, which the `tma` pass turns
into TMA loads and stores), and a transpose through shared memory whose load is TMA."""

from __future__ import annotations

TYPES = {"f32": ("f32", 4), "f16": ("f16", 2), "bf16": ("bf16", 2), "f64": ("f64", 8), "i8": ("i8", 1)}


def round_trip(
    m: int,
    n: int,
    tm: int,
    tn: int,
    dtype: str = "f32",
    smem: str | None = None,
    threads: int = 128,
    dynamic: bool = False,
) -> str:
    """Copy an m x n row-major tensor tile by tile (tm x tn) through shared memory laid
    out as `smem` (default: the compact tile). With `dynamic`, m and n are index
    arguments (the row stride promised a multiple of 16 bytes)."""
    et, eb = TYPES[dtype]
    smem = smem or f"#layout.cute<({tm},{tn}):({tn},1)>"
    gx, gy = -(-m // tm), -(-n // tn)
    masked = ", masked" if dynamic or m % tm or n % tn else ""
    if dynamic:
        glay = "(?,?):(?,1)"
        view = "layout.view %{p}(%m, %n, %n) {{divisible = array<i64: 1, 1, " + str(16 // eb) + ">}}"
        args = ", %m: index, %n: index"
        attrs = f" attributes {{tilec.args = {{m = {m} : index, n = {n} : index}}}}"
        grid = (
            f"  %tmc = arith.constant {tm} : index\n  %tnc = arith.constant {tn} : index\n"
            f"  %gx = arith.ceildivsi %m, %tmc : index\n  %gy = arith.ceildivsi %n, %tnc : index\n"
        )
        tlay = f"({tm},{tn}):(?,1)"
    else:
        glay = f"({m},{n}):({n},1)"
        view = "layout.view %{p}"
        args, attrs = "", ""
        grid = f"  %gx = arith.constant {gx} : index\n  %gy = arith.constant {gy} : index\n"
        tlay = f"({tm},{tn}):({n},1)"
    P = f"!layout.ptr<{et}, align 16>"
    return f"""
!G = !layout.tensor<{et}, #layout.cute<{glay}>, gmem>
!T = !layout.tensor<{et}, #layout.cute<{tlay}>, gmem{masked}>
!S = !layout.tensor<{et}, {smem}, smem>
func.func @tma_round_trip(%src: {P}, %dst: {P}{args}){attrs} {{
  %a = {view.format(p="src")} : {P} -> !G
  %b = {view.format(p="dst")} : {P} -> !G
{grid}  %c1 = arith.constant 1 : index
  layout.launch grid(%gx, %gy, %c1) threads({threads}) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {{tile = array<i64: {tm}, {tn}>}} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {{tile = array<i64: {tm}, {tn}>}} : !G -> !T
    %s = layout.alloc : !S
    layout.copy %ta, %s : !T, !S
    layout.barrier
    layout.copy %s, %tb : !S, !T
  }}
  func.return
}}
"""


def transpose(m: int, n: int, t: int = 32, threads: int = 128) -> str:
    """dst (n x m) = src (m x n)^T for f32, t x t tiles: a TMA load into a 128-byte
    swizzled shared tile (t = 32: one 128-byte row per tile row), read down its
    columns, stored along dst's rows (dst viewed column-major over (i, j))."""
    assert t == 32
    return f"""
#cols = #layout.blocked<{{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, {threads // 32}], order = [0, 1]}}>
!Gs = !layout.tensor<f32, #layout.cute<({m},{n}):({n},1)>, gmem>
!Gd = !layout.tensor<f32, #layout.cute<({m},{n}):(1,{m})>, gmem>
!Ts = !layout.tensor<f32, #layout.cute<({t},{t}):({n},1)>, gmem{", masked" if m % t or n % t else ""}>
!Td = !layout.tensor<f32, #layout.cute<({t},{t}):(1,{m})>, gmem{", masked" if m % t or n % t else ""}>
!S = !layout.tensor<f32, #layout.composed<swizzle<3,2,3> o 0 o ({t},{t}):({t},1)>, smem>
func.func @tma_transpose(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {{
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !Gs
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !Gd
  %gx = arith.constant {-(-m // t)} : index
  %gy = arith.constant {-(-n // t)} : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%gx, %gy, %c1) threads({threads}) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {{tile = array<i64: {t}, {t}>}} : !Gs -> !Ts
    %tb = layout.tile %b[%bx, %by] {{tile = array<i64: {t}, {t}>}} : !Gd -> !Td
    %s = layout.alloc : !S
    layout.copy %ta, %s : !Ts, !S
    %w = layout.load %s : !S -> tensor<{t}x{t}xf32, #cols>
    layout.store %w, %tb : tensor<{t}x{t}xf32, #cols>, !Td
  }}
  func.return
}}
"""


def persistent_transpose(
    m: int, n: int, ti: int = 32, tj: int = 32, blocks: int = 3, threads: int = 128, group: int = 0
) -> str:
    """dst (n x m) = src (m x n)^T for f32, written as a user would write a persistent
    kernel for `tma{stages=N}`: `blocks` blocks, each looping over the tiles t = bx,
    bx + blocks, ... of the ti x tj tiles of src; each tile copied into an NVMMA
    128-byte swizzled shared tile, transposed into a second one (rows contiguous) by the
    threads, and copied out. Tile t is (t mod gx, t div gx) (gx = tiles down the
    rows); with `group` > 0, tiles go in groups of `group` tile rows (t walks a group's
    rows first, then its columns), so that the tiles in flight at once span a square
    region of both tensors. The barriers order the threads' parts of each copy before the
    reads that follow (the one at the end of the body: the next tile's writes of the
    second buffer after this tile's copy out has read it)."""
    gx, gy = -(-m // ti), -(-n // tj)
    masked = ", masked" if m % ti or n % tj else ""
    w = min(threads // 32, ti // 4)
    if group:
        assert gx % group == 0
        tiles = f"""      %per = arith.constant {group * gy} : index
      %gs = arith.constant {group} : index
      %g = arith.divui %t, %per : index
      %r = arith.remui %t, %per : index
      %i0 = arith.remui %r, %gs : index
      %g0 = arith.muli %g, %gs : index
      %i = arith.addi %g0, %i0 : index
      %j = arith.divui %r, %gs : index
"""
    else:
        tiles = """      %i = arith.remui %t, %gx : index
      %j = arith.divui %t, %gx : index
"""
    return f"""
#L = #layout.blocked<{{sizePerThread = [4, 1], threadsPerWarp = [1, 32], warpsPerCTA = [{w}, 1], order = [0, 1]}}>
!Gs = !layout.tensor<f32, #layout.cute<({m},{n}):({n},1)>, gmem>
!Gd = !layout.tensor<f32, #layout.cute<({m},{n}):(1,{m})>, gmem>
!Ts = !layout.tensor<f32, #layout.cute<({ti},{tj}):({n},1)>, gmem{masked}>
!Td = !layout.tensor<f32, #layout.cute<({ti},{tj}):(1,{m})>, gmem{masked}>
!S = !layout.tensor<f32, #layout.nvmma_shared<swizzle = 128, elementBitWidth = 32, transposed = false, shape = [{ti}, {tj}]>, smem>
!S2 = !layout.tensor<f32, #layout.nvmma_shared<swizzle = 128, elementBitWidth = 32, transposed = true, shape = [{ti}, {tj}]>, smem>
func.func @persistent_transpose(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {{
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !Gs
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !Gd
  %nb = arith.constant {blocks} : index
  %gx = arith.constant {gx} : index
  %nt = arith.constant {gx * gy} : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%nb, %c1, %c1) threads({threads}) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %s2 = layout.alloc : !S2
    scf.for %t = %bx to %nt step %nb {{
{tiles}      %ta = layout.tile %a[%i, %j] {{tile = array<i64: {ti}, {tj}>}} : !Gs -> !Ts
      %tb = layout.tile %b[%i, %j] {{tile = array<i64: {ti}, {tj}>}} : !Gd -> !Td
      layout.copy %ta, %s : !Ts, !S
      layout.barrier
      %v = layout.load %s : !S -> tensor<{ti}x{tj}xf32, #L>
      layout.store %v, %s2 : tensor<{ti}x{tj}xf32, #L>, !S2
      layout.barrier
      layout.copy %s2, %tb : !S2, !Td
      layout.barrier
    }}
  }}
  func.return
}}
"""


def persistent_round_trip(m: int, n: int, tm: int, tn: int, blocks: int = 3, threads: int = 64) -> str:
    """Copy an m x n f32 tensor tile by tile through ONE shared buffer (in, then out of
    the same buffer), `blocks` blocks looping over the tiles t = bx, bx + blocks, ...
    (tile (t div gy, t mod gy)): the ring's stages then hold both sides of a tile."""
    gy = n // tn
    return f"""
!G = !layout.tensor<f32, #layout.cute<({m},{n}):({n},1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<({tm},{tn}):({n},1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<({tm},{tn}):({tn},1)>, smem>
func.func @persistent_round_trip(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {{
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %nb = arith.constant {blocks} : index
  %nt = arith.constant {(m // tm) * gy} : index
  %gy = arith.constant {gy} : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%nb, %c1, %c1) threads({threads}) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    scf.for %t = %bx to %nt step %nb {{
      %i = arith.divui %t, %gy : index
      %j = arith.remui %t, %gy : index
      %ta = layout.tile %a[%i, %j] {{tile = array<i64: {tm}, {tn}>}} : !G -> !T
      %tb = layout.tile %b[%i, %j] {{tile = array<i64: {tm}, {tn}>}} : !G -> !T
      layout.copy %ta, %s : !T, !S
      layout.barrier
      layout.copy %s, %tb : !S, !T
      layout.barrier
    }}
  }}
  func.return
}}
"""


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
) -> str:
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
    grid, coords = (f"{gx}, {gy}", "%bx, %by") if not swap_grid else (f"{gy}, {gx}", "%by, %bx")
    s = SMEM_TILES[smem].format(ti=ti, tj=tj)
    if out == "tma":
        extra = f"!S2 = !layout.tensor<f32, {OUT_TILES[out_smem].format(ti=ti, tj=tj)}, smem>\n"
        alloc2 = "    %s2 = layout.alloc : !S2\n"
        tail = f"""    layout.store %v, %s2 : tensor<{ti}x{tj}xf32, #R>, !S2
    layout.barrier
    layout.copy %s2, %tb : !S2, !Td"""
    else:
        assert out == "regs"
        extra, alloc2 = "", ""
        tail = f"    layout.store %v, %tb : tensor<{ti}x{tj}xf32, #R>, !Td"
    return f"""
#R = {REGISTER_LAYOUTS[regs].format(w=w)}
!Gs = !layout.tensor<f32, #layout.cute<({m},{n}):({n},1)>, gmem>
!Gd = !layout.tensor<f32, #layout.cute<({m},{n}):(1,{m})>, gmem>
!Ts = !layout.tensor<f32, #layout.cute<({ti},{tj}):({n},1)>, gmem>
!Td = !layout.tensor<f32, #layout.cute<({ti},{tj}):(1,{m})>, gmem>
!S = !layout.tensor<f32, {s}, smem>
{extra}func.func @tile_transpose(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {{
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !Gs
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !Gd
  %g0 = arith.constant {grid.split(", ")[0]} : index
  %g1 = arith.constant {grid.split(", ")[1]} : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g0, %g1, %c1) threads({threads}) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[{coords}] {{tile = array<i64: {ti}, {tj}>}} : !Gs -> !Ts
    %tb = layout.tile %b[{coords}] {{tile = array<i64: {ti}, {tj}>}} : !Gd -> !Td
    %s = layout.alloc : !S
{alloc2}    layout.copy %ta, %s : !Ts, !S
    %v = layout.load %s : !S -> tensor<{ti}x{tj}xf32, #R>
{tail}
  }}
  func.return
}}
"""
