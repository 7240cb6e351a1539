"""Text of small test programs shared by the lowering tests."""

from __future__ import annotations

from collections.abc import Sequence


def blocked_attr(spt, tpw, wpc, order) -> str:
    """`#layout.blocked<...>` text of a blocked layout's four lists."""
    return (
        f"#layout.blocked<{{sizePerThread = {list(spt)}, threadsPerWarp = {list(tpw)}, "
        f"warpsPerCTA = {list(wpc)}, order = {list(order)}}}>"
    )


def conversion_program(shape: Sequence[int], src_enc: str, dst_enc: str, et: str, threads: int) -> str:
    """@cvt: one block of `threads` loads a row-major tile of `shape` in layout
    `src_enc`, converts it to `dst_enc` and stores it (buffers %p -> %q)."""
    dims = "x".join(map(str, shape))
    strides, acc = [], 1
    for s in reversed(shape):
        strides.insert(0, acc)
        acc *= s
    cute = f"({','.join(map(str, shape))}):({','.join(map(str, strides))})"
    view = f"!layout.tensor<{et}, #layout.cute<{cute}>, gmem>"
    ts, td = f"tensor<{dims}x{et}, {src_enc}>", f"tensor<{dims}x{et}, {dst_enc}>"
    return f"""
func.func @cvt(%p: !layout.ptr<{et}>, %q: !layout.ptr<{et}>) {{
  %a = layout.view %p : !layout.ptr<{et}> -> {view}
  %b = layout.view %q : !layout.ptr<{et}> -> {view}
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads({threads}) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : {view} -> {ts}
    %w = layout.convert_layout %v : {ts} -> {td}
    layout.store %w, %b : {td}, {view}
  }}
  func.return
}}
"""


def one_block_program(
    name: str, et: str, src_view: str, dst_view: str, threads: int, body: str,
    *, twice: bool = False, preamble: str = "",
) -> str:
    """@name(%src, %dst): views %a of %src and %b of %dst (pointers to `et`), and one
    block of `threads` that runs `body` (which may use %a, %b and %c1). With `twice`, the
    body runs in an `scf.for` of two iterations (induction variable %it), so buffers and
    registers are reused across iterations. `preamble` (attribute and type aliases) goes
    before the function."""
    if twice:
        body = f"""
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    scf.for %it = %c0 to %c2 step %c1 {{{body}
    }}"""
    return f"""{preamble}
func.func @{name}(%src: !layout.ptr<{et}>, %dst: !layout.ptr<{et}>) {{
  %a = layout.view %src : !layout.ptr<{et}> -> {src_view}
  %b = layout.view %dst : !layout.ptr<{et}> -> {dst_view}
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads({threads}) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):{body}
  }}
  func.return
}}
"""


def mma_program(
    m: int, n: int, k: int, et: str = "bf16", acc_et: str = "f32", warps=(1, 1),
    k_width: int = 2, k_split: int = 1, zero_acc: bool = False,
) -> str:
    """@mma: one block computes C = C + A @ B with `layout.mma` (A row-major m x k,
    B row-major k x n, C row-major m x n, buffers %pa, %pb, %pc), in an
    `#layout.nvidia_mma` version 2 of `warps`, operands with `k_width`; with `k_split`
    > 1, as that many chained MMAs over consecutive K tiles (another summation order);
    with `zero_acc`, C = A @ B (the accumulator starts at 0, C is only written)."""
    mma = f"#layout.nvidia_mma<version = 2, warpsPerCTA = {list(warps)}, instrShape = [16, 8]>"
    a_enc = f"#layout.dot_op<opIdx = 0, parent = {mma}, kWidth = {k_width}>"
    b_enc = f"#layout.dot_op<opIdx = 1, parent = {mma}, kWidth = {k_width}>"
    ks = k // k_split
    ga = f"!layout.tensor<{et}, #layout.cute<({m},{k}):({k},1)>, gmem>"
    gb = f"!layout.tensor<{et}, #layout.cute<({k},{n}):({n},1)>, gmem>"
    gc = f"!layout.tensor<{acc_et}, #layout.cute<({m},{n}):({n},1)>, gmem>"
    ta = f"!layout.tensor<{et}, #layout.cute<({m},{ks}):({k},1)>, gmem>"
    tb = f"!layout.tensor<{et}, #layout.cute<({ks},{n}):({n},1)>, gmem>"
    va, vb = f"tensor<{m}x{ks}x{et}, {a_enc}>", f"tensor<{ks}x{n}x{et}, {b_enc}>"
    vc = f"tensor<{m}x{n}x{acc_et}, {mma}>"
    threads = 32 * warps[0] * warps[1]
    body = [f"    %acc0 = layout.load %c : {gc} -> {vc}"]
    if zero_acc:
        zero = "0" if acc_et.startswith("i") else "0.0"
        body = [f"    %z = arith.constant {zero} : {acc_et}", f"    %acc0 = layout.splat %z : {acc_et} -> {vc}"]
    for j in range(k_split):
        body += [
            f"    %ta{j} = layout.tile %a[%i0, %i{j}] {{tile = array<i64: {m}, {ks}>}} : {ga} -> {ta}",
            f"    %tb{j} = layout.tile %b[%i{j}, %i0] {{tile = array<i64: {ks}, {n}>}} : {gb} -> {tb}",
            f"    %va{j} = layout.load %ta{j} : {ta} -> {va}",
            f"    %vb{j} = layout.load %tb{j} : {tb} -> {vb}",
            f"    %acc{j + 1} = layout.mma %va{j}, %vb{j}, %acc{j} : {va}, {vb}, {vc}",
        ]
    body.append(f"    layout.store %acc{k_split}, %c : {vc}, {gc}")
    consts = "\n".join(f"  %i{j} = arith.constant {j} : index" for j in range(max(k_split, 1)))
    nl = "\n"
    return f"""
func.func @mma(%pa: !layout.ptr<{et}>, %pb: !layout.ptr<{et}>, %pc: !layout.ptr<{acc_et}>) {{
  %a = layout.view %pa : !layout.ptr<{et}> -> {ga}
  %b = layout.view %pb : !layout.ptr<{et}> -> {gb}
  %c = layout.view %pc : !layout.ptr<{acc_et}> -> {gc}
{consts}
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads({threads}) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
{nl.join(body)}
  }}
  func.return
}}
"""


MMA_TILE_GEMM = """#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
#blk = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blkc = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
!GA = !layout.tensor<bf16, #layout.cute<(64,64):(64,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
func.func @gemm(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GA
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %la = layout.load %a : !GA -> tensor<64x64xbf16, #blk>
    %lb = layout.load %b : !GA -> tensor<64x64xbf16, #blk>
    %va = layout.convert_layout %la : tensor<64x64xbf16, #blk> -> tensor<64x64xbf16, #a>
    %vb = layout.convert_layout %lb : tensor<64x64xbf16, #blk> -> tensor<64x64xbf16, #b>
    %acc = layout.splat %zero : f32 -> tensor<64x64xf32, #mma>
    %d = layout.mma %va, %vb, %acc : tensor<64x64xbf16, #a>, tensor<64x64xbf16, #b>, tensor<64x64xf32, #mma>
    %o = layout.convert_layout %d : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blkc>
    layout.store %o, %c : tensor<64x64xf32, #blkc>, !GC
  }
  func.return
}
"""
"""@gemm: one block of 4 warps computes C = A @ B for 64x64 bf16 A and B (row-major, 16-byte
aligned) into f32 C: loads in a blocked layout, conversions to the operand layouts,
`layout.mma`, and a conversion of the accumulator to a blocked layout that stores 16
bytes per access (the passes lower the conversions through swizzled shared memory)."""
