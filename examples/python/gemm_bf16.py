"""C = A @ B in bf16 on tensor cores (f32 accumulation), written in tilec's layouts, on
PyTorch tensors; checked against torch.matmul within the documented MMA tolerance.

    python examples/python/gemm_bf16.py [M N K]     (default 1024 1024 1024)
    python examples/python/gemm_bf16.py --emit M N K CONFIG   (print the program of a
        block configuration, `config_kwargs`)

`gemm_source(M, N, K)` writes the program of examples/gemm_bf16.mlir for any M (a
multiple of 128), N (of 256) and K (of 64, at least 192); other block tiles, warps, K
steps, pipeline depths, padded or swizzled tiles, register double buffering and the
block order are its parameters (benchmarks/gemm_bench.py tries some; `config_kwargs`
reads them from a string). examples/gemm_bf16.mlir is `gemm_source(256, 256, 256)`,
small enough for the CPU reference executor. With the defaults (the fastest measured,
benchmarks/NOTES.md), per block of 8 warps (2 x 4, each a 64x64 tile), a 128x256 tile
of C:

- a 4-stage `cp.async` pipeline (`layout.copy_async` of 16-byte vectors, coalesced,
  one commit group per operand tile) fills unpadded, NVMMA-style swizzled shared
  tiles of A (128x64, `Swizzle<3,3,3>` in bf16 elements) and B (64x256,
  `Swizzle<3,3,5>`): the 16-byte unit of a row is XORed with the row mod 8, so the 8
  rows of an `ldmatrix` matrix fall in 8 different bank groups (`swizzle=False`
  pads the rows by 16 bytes instead);
- an `scf.for` over K carries the 128x256 f32 accumulator in the MMA layout
  (`#layout.nvidia_mma`, warps 2x4: 128 registers per thread) and the first 16-deep
  operand slices of the next K step; each step starts the copy of the tile 3 steps
  ahead, and 4 times loads the next 16-deep slices of A and B into the operand layouts
  (`#layout.dot_op`; `lower-to-gpu` picks `ldmatrix.x4` and `ldmatrix.x4.trans`)
  before it issues `layout.mma` on the current ones (32 `mma.sync.m16n8k16` per
  warp); its one `async_wait` + `barrier` comes before the load of the next stage;
- blocks take their tiles in grouped order (8 block rows at a time, Triton's
  `GROUP_SIZE_M`), for L2 reuse;
- the epilogue rounds the accumulator to bf16, stores it into shared memory (B's
  buffer re-viewed, rows padded by 16 bytes; `stmatrix.x4` on sm_90), and stores it
  from there coalesced (a blocked layout, 16-byte vectors, each warp whole 512-byte
  rows).

Without a GPU (or PyTorch) the script compiles the kernel with NVRTC for sm_90 and
runs the 256x256x256 example on the CPU reference executor instead.
"""

from __future__ import annotations

import sys

import numpy as np

import tilec

TEMPLATE = """\
#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [{WM}, {WN}], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
#out = #layout.blocked<{{sizePerThread = [1, 8], threadsPerWarp = [{OT0}, {OT1}], warpsPerCTA = [{NW}, 1], order = [1, 0]}}>
!GA = !layout.tensor<bf16, #layout.cute<({M},{K}):({K},1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<({K},{N}):({N},1)>, gmem>
!GC = !layout.tensor<bf16, #layout.cute<({M},{N}):({N},1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<({BM},{BK}):({K},1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<({BK},{BN}):({N},1)>, gmem>
!TC = !layout.tensor<bf16, #layout.cute<({BM},{BN}):({N},1)>, gmem>
!VA = !layout.tensor<bf16, #layout.cute<({BM},{CA}):({K},8)>, gmem, vec #layout.cute<(1,8):({K},1)>>
!FA = !layout.tensor<bf16, #layout.cute<({RA},1):({KA},{CA8})>, gmem, vec #layout.cute<(1,8):({K},1)>>
!VB = !layout.tensor<bf16, #layout.cute<({BK},{CB}):({N},8)>, gmem, vec #layout.cute<(1,8):({N},1)>>
!FB = !layout.tensor<bf16, #layout.cute<({RB},1):({NB},{CB8})>, gmem, vec #layout.cute<(1,8):({N},1)>>
!SA = !layout.tensor<bf16, #layout.cute<({SA_ROWS},{BK}):({PA},1)>, smem>
!SB = !layout.tensor<bf16, #layout.cute<({SB_ROWS},{BN}):({PB},1)>, smem>
!SC = !layout.tensor<bf16, #layout.cute<({BM},{BN}):({PC},1)>, smem>
!XA = !layout.tensor<bf16, #layout.cute<({BM},{BK}):({PA},1)>, smem>
!XB = !layout.tensor<bf16, #layout.cute<({BK},{BN}):({PB},1)>, smem>
!KA = !layout.tensor<bf16, #layout.cute<({BM},16):({PA},1)>, smem>
!KB = !layout.tensor<bf16, #layout.cute<(16,{BN}):({PB},1)>, smem>
!YA = !layout.tensor<bf16, #layout.cute<({BM},{CA}):({PA},8)>, smem, vec #layout.cute<(1,8):({PA},1)>>
!ZA = !layout.tensor<bf16, #layout.cute<({RA},1):({SKA},{CA8})>, smem, vec #layout.cute<(1,8):({PA},1)>>
!YB = !layout.tensor<bf16, #layout.cute<({BK},{CB}):({PB},8)>, smem, vec #layout.cute<(1,8):({PB},1)>>
!ZB = !layout.tensor<bf16, #layout.cute<({RB},1):({SNB},{CB8})>, smem, vec #layout.cute<(1,8):({PB},1)>>
!ACC = tensor<{BM}x{BN}xf32, #mma>
func.func @gemm(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<bf16, align 16>) {{
  %A = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %B = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %C = layout.view %pc : !layout.ptr<bf16, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %stages = arith.constant {STAGES} : index
  %ahead = arith.constant {AHEAD} : index
  %nk = arith.constant {NK} : index
  %last = arith.constant {LAST} : index
{GRID}    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
{PROLOGUE}{MAINLOOP}{EPILOGUE_SMEM}    %h = arith.truncf {ACC_OUT} : !ACC to tensor<{BM}x{BN}xbf16, #mma>
    layout.store %h, %sc : tensor<{BM}x{BN}xbf16, #mma>, !SC
    layout.barrier
    %o = layout.load %sc {{vector = 8 : i64}} : !SC -> tensor<{BM}x{BN}xbf16, #out>
    %tc = layout.tile %C[%bx, %by] {{tile = array<i64: {BM}, {BN}>}} : !GC -> !TC
    layout.store %o, %tc {{vector = 8 : i64}} : tensor<{BM}x{BN}xbf16, #out>, !TC
  }}
  func.return
}}
"""

ISSUE = """\
{I}%ta{S} = layout.tile %A[%bx, {KT}] {{tile = array<i64: {BM}, {BK}>}} : !GA -> !TA
{I}%tb{S} = layout.tile %B[{KT}, %by] {{tile = array<i64: {BK}, {BN}>}} : !GB -> !TB
{I}%wa{S} = layout.tile %sa[{ST}, %c0] {{tile = array<i64: {BM}, {BK}>}} : !SA -> !XA
{I}%wb{S} = layout.tile %sb[{ST}, %c0] {{tile = array<i64: {BK}, {BN}>}} : !SB -> !XB
{I}%va{S} = layout.vectorize %ta{S} {{vector = array<i64: 1, 8>}} : !TA -> !VA
{I}%fa{S} = layout.distribute %va{S}, %tid {{threads = #layout.cute<({TA0},{CA}):({CA},1)>}} : !VA -> !FA
{I}%ya{S} = layout.vectorize %wa{S} {{vector = array<i64: 1, 8>}} : !XA -> !YA
{I}%za{S} = layout.distribute %ya{S}, %tid {{threads = #layout.cute<({TA0},{CA}):({CA},1)>}} : !YA -> !ZA
{I}layout.copy_async %fa{S}, %za{S} : !FA, !ZA
{I}%vb{S} = layout.vectorize %tb{S} {{vector = array<i64: 1, 8>}} : !TB -> !VB
{I}%fb{S} = layout.distribute %vb{S}, %tid {{threads = #layout.cute<({TB0},{CB}):({CB},1)>}} : !VB -> !FB
{I}%yb{S} = layout.vectorize %wb{S} {{vector = array<i64: 1, 8>}} : !XB -> !YB
{I}%zb{S} = layout.distribute %yb{S}, %tid {{threads = #layout.cute<({TB0},{CB}):({CB},1)>}} : !YB -> !ZB
{I}layout.copy_async %fb{S}, %zb{S} : !FB, !ZB
"""

GRID = """\
  %gm = arith.constant {GM} : index
  %gn = arith.constant {GN} : index
  layout.launch grid(%gm, %gn, %c1) threads({T}) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
"""

GROUPED_GRID = """\
  %nblocks = arith.constant {NBLOCKS} : index
  layout.launch grid(%nblocks, %c1, %c1) threads({T}) {{
  ^bb0(%pid: index, %b1: index, %bz: index, %tid: index):
    // grouped order: consecutive blocks walk down a group of {G} block rows of C, then
    // to the next block column, so the blocks in flight share their A and B tiles in L2
    %gw = arith.constant {GW} : index
    %g = arith.constant {G} : index
    %grp = arith.divui %pid, %gw : index
    %inw = arith.remui %pid, %gw : index
    %first = arith.muli %grp, %g : index
{GSIZE}    %row = arith.remui %inw, {GS} : index
    %bx = arith.addi %first, %row : index
    %by = arith.divui %inw, {GS} : index
"""

GROUP_SIZE = """\
    // the last group has the block rows that are left ({GM} is not a multiple of {G})
    %gm = arith.constant {GM} : index
    %left = arith.subi %gm, %first : index
    %gsize = arith.minui %left, %g : index
"""

NEXT = """\
      %far = arith.addi %kt, %ahead : index
      %next = arith.minui %far, %last : index
      %ns = arith.remui %far, %stages : index
"""

MAINLOOP = """\
    %zero = arith.constant dense<0.0> : !ACC
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (!ACC) {{
      // tile kt has landed (the {PENDING} groups of the {AHEAD} tiles after it may not have)
      layout.async_wait {{pending = {PENDING} : i64}}
      layout.barrier
      // start tile kt+{AHEAD} (past the end: the last tile again, into a stage never read)
{NEXT}{ISSUE}      %s = arith.remui %kt, %stages : index
      %xa = layout.tile %sa[%s, %c0] {{tile = array<i64: {BM}, {BK}>}} : !SA -> !XA
      %xb = layout.tile %sb[%s, %c0] {{tile = array<i64: {BK}, {BN}>}} : !SB -> !XB
{STEPS}      scf.yield %d{LASTSTEP} : !ACC
    }}
"""

MAINLOOP_DB = """\
    // tile 0 has landed: its first 16-deep slices of A and B into registers
    layout.async_wait {{pending = {PENDING} : i64}}
    layout.barrier
    %xa_p = layout.tile %sa[%c0, %c0] {{tile = array<i64: {BM}, {BK}>}} : !SA -> !XA
    %xb_p = layout.tile %sb[%c0, %c0] {{tile = array<i64: {BK}, {BN}>}} : !SB -> !XB
{LOAD_P}    %zero = arith.constant dense<0.0> : !ACC
    %acc:3 = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero, %opa0 = %opa_p, %opb0 = %opb_p) -> (!ACC, tensor<{BM}x16xbf16, #a>, tensor<16x{BN}xbf16, #b>) {{
      // start tile kt+{AHEAD} into the stage of tile kt-1, which every warp has read (the
      // barrier of step kt-1); past the end, the last tile again (the last step loads
      // the first slices of the one after it, and drops them)
{NEXT}{ISSUE}      %s = arith.remui %kt, %stages : index
      %xa = layout.tile %sa[%s, %c0] {{tile = array<i64: {BM}, {BK}>}} : !SA -> !XA
      %xb = layout.tile %sb[%s, %c0] {{tile = array<i64: {BK}, {BN}>}} : !SB -> !XB
      %kn = arith.addi %kt, %c1 : index
      %sn = arith.remui %kn, %stages : index
      %xan = layout.tile %sa[%sn, %c0] {{tile = array<i64: {BM}, {BK}>}} : !SA -> !XA
      %xbn = layout.tile %sb[%sn, %c0] {{tile = array<i64: {BK}, {BN}>}} : !SB -> !XB
{STEPS}      scf.yield %d{LASTSTEP}, %opa{NJ}, %opb{NJ} : !ACC, tensor<{BM}x16xbf16, #a>, tensor<16x{BN}xbf16, #b>
    }}
"""

LOAD = """\
{I}%ka{J} = layout.tile {XA}[%c0, {OFF}] {{tile = array<i64: {BM}, 16>}} : !XA -> !KA
{I}%kb{J} = layout.tile {XB}[{OFF}, %c0] {{tile = array<i64: 16, {BN}>}} : !XB -> !KB
{I}%opa{J} = layout.load %ka{J} : !KA -> tensor<{BM}x16xbf16, #a>
{I}%opb{J} = layout.load %kb{J} : !KB -> tensor<16x{BN}xbf16, #b>
"""

WAIT_NEXT = """\
      // tile kt+1 has landed and every warp is done with step kt-1's reads
      layout.async_wait {{pending = {PENDING} : i64}}
      layout.barrier
"""

MMA = """\
      %d{J} = layout.mma %opa{J}, %opb{J}, {ACC} : tensor<{BM}x16xbf16, #a>, tensor<16x{BN}xbf16, #b>, !ACC
"""

STEP = """\
      %j{J} = arith.constant {J16} : index
      %ka{J} = layout.tile %xa[%c0, %j{J}] {{tile = array<i64: {BM}, 16>}} : !XA -> !KA
      %kb{J} = layout.tile %xb[%j{J}, %c0] {{tile = array<i64: 16, {BN}>}} : !XB -> !KB
      %opa{J} = layout.load %ka{J} : !KA -> tensor<{BM}x16xbf16, #a>
      %opb{J} = layout.load %kb{J} : !KB -> tensor<16x{BN}xbf16, #b>
      %d{J} = layout.mma %opa{J}, %opb{J}, {ACC} : tensor<{BM}x16xbf16, #a>, tensor<16x{BN}xbf16, #b>, !ACC
"""


def gemm_source(
    m: int,
    n: int,
    k: int,
    bm: int = 128,
    bn: int = 256,
    bk: int = 64,
    warps: tuple[int, int] = (2, 4),
    stages: int = 4,
    swizzle: bool = True,
    group: int = 8,
    double_buffer: bool = True,
) -> str:
    """The tilec program of C (m x n, bf16) = A (m x k) @ B (k x n), row-major, in
    blocks of bm x bn, K steps of bk (loaded 16 at a time into the operand layouts),
    warps[0] x warps[1] warps, a `stages`-deep cp.async pipeline.

    With `swizzle`, the A and B tiles are unpadded and swizzled NVMMA-style instead of
    padded: the 16-byte unit of a row (bits 3-5 of the element offset) is XORed with
    the row mod 8, `Swizzle<3,3,S>` in bf16 elements with S = log2(row length) - 3
    (`Swizzle<3,3,3>` for A's rows of 64 elements: CuTe's 128-byte `Swizzle<3,4,3>`
    counted in bytes; `Swizzle<3,3,4>` for B's rows of 128). The cp.async copies
    write through the swizzle, the ldmatrix loads read through it.

    With `group` > 1 the grid is one-dimensional and block i computes the C tile of
    Triton's grouped order (`GROUP_SIZE_M`): consecutive blocks walk down `group` block
    rows, then move one block column right, so the blocks in flight at once read fewer
    distinct A and B tiles (L2 reuse); the last group has the rows that are left.

    With `double_buffer`, the 16-deep operand slices are loaded one ahead of the MMAs
    (CUTLASS's register double buffering): slice j+1's ldmatrix is issued before slice
    j's mma.sync, and the last slice's MMAs overlap the loads of the next K step's first
    slice, which the `scf.for` carries to the next step with the accumulator. The one
    `async_wait` + `barrier` of a K step moves to just before that load (the next stage
    has landed; every warp has read the stage the step's cp.async refills)."""
    t = 32 * warps[0] * warps[1]
    ca, cb = bk // 8, bn // 8
    if m % bm or n % bn or k % bk or k // bk < stages - 1 or bk % 16 or t % ca or t % cb:
        raise ValueError(f"gemm_source: M, N multiples of {bm}, {bn}, K of {bk} and at least {bk * (stages - 1)}")
    ta0, tb0 = t // ca, t // cb
    if bm % ta0 or bk % tb0 or 32 % cb and cb % 32:
        raise ValueError("gemm_source: the block's threads do not tile the copies")
    pa, pb, pc = (bk, bn, bn + 8) if swizzle else (bk + 8, bn + 8, bn + 8)
    if group < 1:
        raise ValueError(f"gemm_source: group {group} is not a number of block rows")
    if swizzle and not all(x >= 64 and x & (x - 1) == 0 for x in (bk, bn)):
        raise ValueError("gemm_source: a swizzled GEMM needs bk and bn powers of two of at least 64")
    p = dict(  # noqa: C408 - the template's names
        M=m,
        N=n,
        K=k,
        BM=bm,
        BN=bn,
        BK=bk,
        WM=warps[0],
        WN=warps[1],
        T=t,
        NW=t // 32,
        OT1=min(cb, 32),
        OT0=32 // min(cb, 32),
        CA=ca,
        CB=cb,
        CA8=ca * 8,
        CB8=cb * 8,
        TA0=ta0,
        TB0=tb0,
        RA=bm // ta0,
        RB=bk // tb0,
        KA=ta0 * k,
        NB=tb0 * n,
        SKA=ta0 * pa,
        SNB=tb0 * pb,
        PA=pa,
        PB=pb,
        PC=pc,
        SA_ROWS=stages * bm,
        SB_ROWS=stages * bk,
        STAGES=stages,
        AHEAD=stages - 1,
        NK=k // bk,
        LAST=k // bk - 1,
        GM=m // bm,
        GN=n // bn,
        PENDING=2 * (stages - 2),
    )
    reuse = next(
        (x for x, rows, pad in (("a", stages * bm, pa), ("b", stages * bk, pb)) if rows * pad >= bm * pc), None
    )
    if reuse is not None:
        epi = (
            f"    // the epilogue reuses {reuse.upper()}'s buffer: every copy landed, every warp done with it\n"
            "    layout.async_wait {pending = 0 : i64}\n    layout.barrier\n"
            f"    %sc = layout.view %s{reuse} : !S{reuse.upper()} -> !SC\n"
        )
    else:
        epi = "    %sc = layout.alloc : !SC\n"
    p["EPILOGUE_SMEM"] = epi
    prologue = ""
    for s in range(stages - 1):
        prologue += f"    %k{s} = arith.constant {s} : index\n"
        prologue += ISSUE.format(I="    ", S=f"_{s}", KT=f"%k{s}", ST=f"%k{s}", **p)
    nj = bk // 16
    p["NEXT"] = NEXT
    p["ISSUE"] = ISSUE.format(I="      ", S="", KT="%next", ST="%ns", **p)
    p["LASTSTEP"] = nj - 1
    p["NJ"] = nj
    if double_buffer:
        steps = ""
        for j in range(nj):
            if j + 1 < nj:
                steps += f"      %j{j + 1} = arith.constant {j + 1} : index\n"
                steps += LOAD.format(I="      ", J=j + 1, XA="%xa", XB="%xb", OFF=f"%j{j + 1}", **p)
            else:
                steps += WAIT_NEXT.format(**p)
                steps += LOAD.format(I="      ", J=nj, XA="%xan", XB="%xbn", OFF="%c0", **p)
            steps += MMA.format(J=j, ACC="%acc0" if j == 0 else f"%d{j - 1}", **p)
        load_p = LOAD.format(I="    ", J="_p", XA="%xa_p", XB="%xb_p", OFF="%c0", **p)
        mainloop = MAINLOOP_DB.format(STEPS=steps, LOAD_P=load_p, **p)
        acc_out = "%acc#0"
    else:
        steps = "".join(STEP.format(J=j, J16=j, ACC="%acc0" if j == 0 else f"%d{j - 1}", **p) for j in range(nj))
        mainloop = MAINLOOP.format(STEPS=steps, **p)
        acc_out = "%acc"
    if group > 1:
        group = min(group, m // bm)
        uneven = (m // bm) % group != 0
        grid = GROUPED_GRID.format(
            NBLOCKS=(m // bm) * (n // bn),
            G=group,
            GW=group * (n // bn),
            GSIZE=GROUP_SIZE.format(G=group, **p) if uneven else "",
            GS="%gsize" if uneven else "%g",
            **p,
        )
    else:
        grid = GRID.format(**p)
    head = (
        f"// C = A @ B: {m}x{k} @ {k}x{n} bf16 -> bf16, f32 accumulation, on tensor cores.\n"
        "// Generated by examples/python/gemm_bf16.py (gemm_source); the docstring there\n"
        "// explains it. The CPU reference executor runs it:\n"
        "//   tilec examples/gemm_bf16.mlir --run cpu\n"
    )
    text = head + TEMPLATE.format(PROLOGUE=prologue, MAINLOOP=mainloop, GRID=grid, ACC_OUT=acc_out, **p)
    return _swizzled(text, bk, bn) if swizzle else text


def _swizzled(text: str, bk: int, bn: int) -> str:
    """The program with A's and B's shared tiles (the types !SA, !XA, !KA, !YA, !ZA and
    the same of B) under their swizzles: `#layout.cute<L>` becomes
    `#layout.composed<swizzle<3,3,S> o 0 o L>`."""
    shift = {"A": bk.bit_length() - 1 - 3, "B": bn.bit_length() - 1 - 3}
    lines = []
    for line in text.splitlines(keepends=True):
        if line[:1] == "!" and line[1:2] in "SXKYZ" and line[2:3] in shift and line[3:4] == " ":
            line = line.replace("#layout.cute<", f"#layout.composed<swizzle<3,3,{shift[line[2]]}> o 0 o ", 1)
        lines.append(line)
    return "".join(lines)


def config_kwargs(spec: str) -> dict:
    """`gemm_source`'s keyword arguments for a block configuration written
    `BMxBNxBK:WMxWN:STAGES[:s][:db][:gG]` (`s`: swizzled shared tiles, `db`: operand
    fragments double-buffered in registers, `gG`: grouped block order of G block rows;
    a flag left out is off: padded tiles, no double buffering, row-major block order),
    as benchmarks/gemm_bench.py's --configs take them. `FASTEST` is the defaults."""
    tile, wg, st, *flags = spec.split(":")
    bm, bn, bk = (int(x) for x in tile.split("x"))
    wm, wn = (int(x) for x in wg.split("x"))
    kw = dict(bm=bm, bn=bn, bk=bk, warps=(wm, wn), stages=int(st), swizzle=False, double_buffer=False, group=1)  # noqa: C408
    for f in flags:
        if f == "s":
            kw["swizzle"] = True
        elif f == "db":
            kw["double_buffer"] = True
        elif f[:1] == "g" and f[1:].isdigit():
            kw["group"] = int(f[1:])
        else:
            raise ValueError(f"gemm config {spec!r}: unknown flag {f!r} (s, db, gN)")
    return kw


FASTEST = "128x256x64:2x4:4:s:db:g8"
"""`gemm_source`'s defaults as a configuration string: the fastest measured at
8192^3 on an H100 (benchmarks/NOTES.md)."""

EXAMPLE_SHAPE = (256, 256, 256)
"""The shape of examples/gemm_bf16.mlir."""


def main(argv: list[str]) -> int:
    if argv[:1] == ["--emit"]:  # --emit M N K CONFIG: print the program (dev/device/sanitize.sh)
        m, n, k = (int(x) for x in argv[1:4])
        print(gemm_source(m, n, k, **config_kwargs(argv[4])), end="")
        return 0
    m, n, k = (int(x) for x in argv[:3]) if len(argv) >= 3 else (1024, 1024, 1024)
    return run_and_check(gemm_source, (m, n, k), EXAMPLE_SHAPE, "sm_90")


def run_and_check(
    build, shape: tuple[int, int, int], example_shape: tuple[int, int, int], arch: str, pipeline: str = "default"
) -> int:
    """Run the GEMM `build(m, n, k)` (a program taking `pa`, `pb`, `pc`, compiled with
    the passes `pipeline`) on torch tensors of `shape` where a GPU and PyTorch are
    found, else at `example_shape` on the CPU reference executor after compiling it for
    `arch` with NVRTC; check C against float64 within the layout.mma bound and say so.
    0 when within it, else 1."""
    m, n, k = shape
    try:
        import torch
    except ImportError:
        torch = None
    from tilec.dialects.layout_mma import mma_error_bound

    if torch is not None and tilec.gpu_available() and torch.cuda.is_available():
        kernel = tilec.compile(build(m, n, k), pipeline)
        g = torch.Generator(device="cuda").manual_seed(0)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        kernel(a, b, c)
        torch.cuda.synchronize()
        a64, b64 = a.double(), b.double()
        got, where = c.double(), "on the GPU (torch tensors)"
    else:
        from tilec.runtime.reference.values import bf16_to_f32, f32_to_bf16

        m, n, k = example_shape
        kernel = tilec.compile(build(m, n, k), pipeline, arch=arch)
        print(
            f"no GPU (or no PyTorch): compiled {len(kernel.cubin)} bytes of {arch} cubin with NVRTC; "
            f"running {m}x{n}x{k} on the CPU reference executor"
        )
        rng = np.random.default_rng(0)
        a = f32_to_bf16(rng.standard_normal((m, k)).astype(np.float32))
        b = f32_to_bf16(rng.standard_normal((k, n)).astype(np.float32))
        c = np.full(m * n, 0x7FC0, np.uint16)
        out = tilec.run_reference(kernel, {"pa": a.reshape(-1), "pb": b.reshape(-1), "pc": c})["pc"]
        a64, b64 = bf16_to_f32(a).astype(np.float64), bf16_to_f32(b).astype(np.float64)
        got, where = bf16_to_f32(np.asarray(out).reshape(m, n)).astype(np.float64), "on the CPU reference executor"
    exact = a64 @ b64
    mag = abs(a64) @ abs(b64)
    # f32 accumulation within the layout.mma bound, then one bf16 rounding (2^-8 relative)
    gamma, _ = mma_error_bound(k, "bf16")
    bound = gamma * mag + 2.0**-8 * (abs(exact) + gamma * mag)
    err = abs(got - exact)
    ok = bool((err <= bound).all())
    print(
        f"C = A @ B, {m}x{k} @ {k}x{n} bf16, {where}: "
        f"{'within' if ok else 'NOT within'} the documented tolerance (max error {float(err.max()):.3g})"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
