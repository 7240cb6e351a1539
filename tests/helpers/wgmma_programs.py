"""GPU-level programs around one `cuda.wgmma` (tests/unit/test_cuda_wgmma.py and the
cuda lit test): 128 threads copy A (64 x 16) and B (n x 16), already in their
shared-memory arrangement, from global to shared memory, load C as
`c[i * 128 + tid]` (value i of thread tid), run fence / wgmma / commit / wait 0 and
store D the same way."""

from __future__ import annotations


def wgmma_program(
    n: int, dtype: str = "bf16", a_desc=(32, 0, 256), b_desc=(0, 128, 256), a_align: int = 1024, b_align: int = 1024
) -> str:
    vals = n // 2
    lines = []
    add = lines.append
    add("builtin.module attributes {gpu.container_module} {")
    add(
        f"  func.func @wgmma(%ga: memref<1024x{dtype}>, %gb: memref<{16 * n}x{dtype}>, %gc: memref<{128 * vals}xf32>) {{"
    )
    add("    %c1 = arith.constant 1 : index")
    add("    %c128 = arith.constant 128 : index")
    add(
        '    "gpu.launch_func"(%c1, %c1, %c1, %c128, %c1, %c1, %ga, %gb, %gc) <{kernel = @wgmma_kernels::@wgmma_kernel, '
        "operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : "
        f"(index, index, index, index, index, index, memref<1024x{dtype}>, memref<{16 * n}x{dtype}>, memref<{128 * vals}xf32>) -> ()"
    )
    add("    func.return")
    add("  }")
    add('  "gpu.module"() <{sym_name = "wgmma_kernels"}> ({')
    add(
        f'    "gpu.func"() <{{function_type = (memref<1024x{dtype}>, memref<{16 * n}x{dtype}>, memref<{128 * vals}xf32>) -> (), kernel}}> ({{'
    )
    add(f"    ^bb0(%ga: memref<1024x{dtype}>, %gb: memref<{16 * n}x{dtype}>, %gc: memref<{128 * vals}xf32>):")
    add('      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index')
    add("      %c0 = arith.constant 0 : index")
    add("      %c128 = arith.constant 128 : index")
    add("      %na = arith.constant 1024 : index")
    add(f"      %nb = arith.constant {16 * n} : index")
    add(f"      %sa = memref.alloca() {{alignment = {a_align} : i64}} : memref<1024x{dtype}, 3 : i64>")
    add(f"      %sb = memref.alloca() {{alignment = {b_align} : i64}} : memref<{16 * n}x{dtype}, 3 : i64>")
    for src, dst, bound, size in (("ga", "sa", "na", 1024), ("gb", "sb", "nb", 16 * n)):
        add(f"      scf.for %i = %c0 to %{bound} step %c128 {{")
        add("        %j = arith.addi %i, %tid : index")
        add(f"        %x = memref.load %{src}[%j] : memref<{size}x{dtype}>")
        add(f"        memref.store %x, %{dst}[%j] : memref<{size}x{dtype}, 3 : i64>")
        add("      }")
    add('      "gpu.barrier"() : () -> ()')
    cs = []
    for i in range(vals):
        add(f"      %o{i} = arith.constant {128 * i} : index")
        add(f"      %p{i} = arith.addi %o{i}, %tid : index")
        add(f"      %acc{i} = memref.load %gc[%p{i}] : memref<{128 * vals}xf32>")
        cs.append(f"%acc{i}")
    f32s = ", ".join(["f32"] * vals)
    add("      cuda.wgmma_fence")
    add(
        f"      %d:{vals} = cuda.wgmma %sa[%c0], %sb[%c0], {', '.join(cs)} {{n = {n} : i64, "
        f"a_desc = array<i64: {', '.join(map(str, a_desc))}>, b_desc = array<i64: {', '.join(map(str, b_desc))}>}} : "
        f"memref<1024x{dtype}, 3 : i64>, memref<{16 * n}x{dtype}, 3 : i64>, {f32s} -> {f32s}"
    )
    add("      cuda.wgmma_commit_group")
    ds = ", ".join(f"%d#{i}" for i in range(vals))
    add(f"      %e:{vals} = cuda.wgmma_wait_group 0, {ds} : {f32s} -> {f32s}")
    for i in range(vals):
        add(f"      memref.store %e#{i}, %gc[%p{i}] : memref<{128 * vals}xf32>")
    add('      "gpu.return"() : () -> ()')
    add('    }) {sym_name = "wgmma_kernel", gpu.known_block_size = array<i32: 128, 1, 1>} : () -> ()')
    add("  }) : () -> ()")
    add("}")
    return "\n".join(lines) + "\n"


def nvmma_smem(rows: int, cols: int, swizzle: int, contiguous: int, et: str = "bf16") -> str:
    """`!layout.tensor<et, L, smem>` of a `rows x cols` tile that wgmma can read:
    Triton's `nvmma_shared<swizzle>` with dim `contiguous` (0 or 1) contiguous, or, for
    swizzle 0, core matrices (8 x 16 bytes, contiguous along `contiguous`) stacked
    along the other dim first."""
    from tilec.dialects.mma import NvmmaSharedLayout

    if swizzle:
        lay = str(NvmmaSharedLayout(swizzle, 16, contiguous == 0).composed([rows, cols]))
        lay = lay.replace(" ", "").replace("Swizzle", "swizzle").replace("o0o", " o 0 o ")
        return f"!layout.tensor<{et}, #layout.composed<{lay}>, smem>"
    if contiguous == 1:  # element (r, c): (r % 8) * 8 + c % 8 + (r / 8) * 64 + (c / 8) * 8 rows
        lay = f"((8,{rows // 8}),(8,{cols // 8})):((8,64),(1,{8 * rows}))"
    else:
        lay = f"((8,{rows // 8}),(8,{cols // 8})):((1,{8 * cols}),(8,64))"
    return f"!layout.tensor<{et}, #layout.cute<{lay}>, smem>"


def wgmma_mma_program(
    m: int = 64,
    n: int = 64,
    k: int = 16,
    et: str = "bf16",
    instr_n: int | None = None,
    wg: int = 1,
    a_from: str = "smem",
    a_swizzle: int = 32,
    b_swizzle: int = 128,
    b_major: str = "mn",
    target: str | None = None,
) -> str:
    """@wgmma: one block of `wg` warpgroups (stacked along M) computes C = C + A @ B
    with a `layout.mma` of a version-3 accumulator: A (m x k, row-major in %pa) and B
    (k x n: row-major in %pb for `b_major` "mn"; for "k", %pb holds B^T row-major)
    copied into NVMMA shared tiles (`nvmma_smem`: B MN- or K-major), A read by wgmma
    from shared memory (`a_from` "smem") or loaded into registers ("regs"), C (m x n
    f32, row-major in %pc) loaded into and stored from the accumulator layout."""
    instr_n = instr_n or n
    mma = f"#layout.nvidia_mma<version = 3, warpsPerCTA = [{4 * wg}, 1], instrShape = [64, {instr_n}, 16]>"
    ga = f"!layout.tensor<{et}, #layout.cute<({m},{k}):({k},1)>, gmem>"
    gb_lay = f"({k},{n}):({n},1)" if b_major == "mn" else f"({k},{n}):(1,{k})"
    gb = f"!layout.tensor<{et}, #layout.cute<{gb_lay}>, gmem>"
    gc = f"!layout.tensor<f32, #layout.cute<({m},{n}):({n},1)>, gmem>"
    sa = nvmma_smem(m, k, a_swizzle, 1, et)
    sb = nvmma_smem(k, n, b_swizzle, 1 if b_major == "mn" else 0, et)
    vc = f"tensor<{m}x{n}xf32, {mma}>"
    body = ["    %sb = layout.alloc : " + sb, f"    layout.copy %b, %sb : {gb}, {sb}"]
    if a_from == "smem":
        body += ["    %sa = layout.alloc : " + sa, f"    layout.copy %a, %sa : {ga}, {sa}"]
        a_val, a_ty = "%sa", sa
    else:
        a_ty = f"tensor<{m}x{k}x{et}, #layout.dot_op<opIdx = 0, parent = {mma}, kWidth = 2>>"
        body.append(f"    %va = layout.load %a : {ga} -> {a_ty}")
        a_val = "%va"
    body += [
        "    layout.barrier",
        f"    %acc0 = layout.load %c : {gc} -> {vc}",
        f"    %d = layout.mma {a_val}, %sb, %acc0 : {a_ty}, {sb}, {vc}",
        f"    layout.store %d, %c : {vc}, {gc}",
    ]
    nl = "\n"
    attrs = f' attributes {{tilec.target = "{target}"}}' if target else ""
    return f"""builtin.module{attrs} {{
func.func @wgmma(%pa: !layout.ptr<{et}, align 16>, %pb: !layout.ptr<{et}, align 16>, %pc: !layout.ptr<f32, align 16>) {{
  %a = layout.view %pa : !layout.ptr<{et}, align 16> -> {ga}
  %b = layout.view %pb : !layout.ptr<{et}, align 16> -> {gb}
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> {gc}
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads({128 * wg}) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
{nl.join(body)}
  }}
  func.return
}}
}}
"""


def wgmma_gemm_program(
    m: int,
    n: int,
    k: int,
    bm: int = 128,
    bn: int = 128,
    bk: int = 64,
    et: str = "bf16",
    out: str = "f32",
    swizzle: int = 128,
    tma: bool = True,
) -> str:
    """@gemm: C = A @ B (A m x k and B k x n row-major, C m x n row-major of `out`),
    one block of bm / 64 warpgroups per bm x bn tile of C, looping over K in bk steps:
    the A and B tiles copied into NVMMA-swizzled shared tiles (A K-major, B MN-major)
    by TMA loads completing on one mbarrier waited on phase `kt % 2` (with `tma`;
    else block-level copies, which `distribute` spreads over the threads), one
    `layout.mma` of a version-3 accumulator (bk / 16 wgmma per 64 x bn tile), a
    barrier before the next copy overwrites the tiles; the accumulator (f32) stored
    (converted to `out`) at the end."""
    mma = f"#layout.nvidia_mma<version = 3, warpsPerCTA = [{bm // 16}, 1], instrShape = [64, {bn}, 16]>"
    ga = f"!layout.tensor<{et}, #layout.cute<({m},{k}):({k},1)>, gmem>"
    gb = f"!layout.tensor<{et}, #layout.cute<({k},{n}):({n},1)>, gmem>"
    gc = f"!layout.tensor<{out}, #layout.cute<({m},{n}):({n},1)>, gmem>"
    ta = f"!layout.tensor<{et}, #layout.cute<({bm},{bk}):({k},1)>, gmem>"
    tb = f"!layout.tensor<{et}, #layout.cute<({bk},{bn}):({n},1)>, gmem>"
    tc = f"!layout.tensor<{out}, #layout.cute<({bm},{bn}):({n},1)>, gmem>"
    sa = nvmma_smem(bm, bk, swizzle, 1, et)
    sb = nvmma_smem(bk, bn, swizzle, 1, et)
    acc = f"tensor<{bm}x{bn}xf32, {mma}>"
    res = f"tensor<{bm}x{bn}x{out}, {mma}>"
    store = (
        [f"    layout.store %acc, %tc : {acc}, {tc}"]
        if out == "f32"
        else [f"    %h = arith.truncf %acc : {acc} to {res}", f"    layout.store %h, %tc : {res}, {tc}"]
    )
    if tma:
        bar_init = "\n    %bar = layout.mbarrier_init {count = 1 : i64}"
        copies = [
            f"      layout.mbarrier_arrive %bar {{tx = {2 * (bm + bn) * bk} : i64}}",
            f"      layout.tma_load %ta, %sa, %bar : {ta}, {sa}",
            f"      layout.tma_load %tb, %sb, %bar : {tb}, {sb}",
            "      %phase = arith.remui %kt, %c2 : index",
            "      layout.mbarrier_wait %bar, %phase",
        ]
    else:
        bar_init = ""
        copies = [
            f"      layout.copy %ta, %sa : {ta}, {sa}",
            f"      layout.copy %tb, %sb : {tb}, {sb}",
            "      layout.barrier",
        ]
    nl = "\n"
    return f"""func.func @gemm(%pa: !layout.ptr<{et}, align 16>, %pb: !layout.ptr<{et}, align 16>, %pc: !layout.ptr<{out}, align 16>) {{
  %a = layout.view %pa : !layout.ptr<{et}, align 16> -> {ga}
  %b = layout.view %pb : !layout.ptr<{et}, align 16> -> {gb}
  %c = layout.view %pc : !layout.ptr<{out}, align 16> -> {gc}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %gm = arith.constant {m // bm} : index
  %gn = arith.constant {n // bn} : index
  %nk = arith.constant {k // bk} : index
  layout.launch grid(%gm, %gn, %c1) threads({2 * bm}) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : {sa}
    %sb = layout.alloc : {sb}
    %zero = arith.constant dense<0.0> : {acc}{bar_init}
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> ({acc}) {{
      %ta = layout.tile %a[%bx, %kt] {{tile = array<i64: {bm}, {bk}>}} : {ga} -> {ta}
      %tb = layout.tile %b[%kt, %by] {{tile = array<i64: {bk}, {bn}>}} : {gb} -> {tb}
{nl.join(copies)}
      %d = layout.mma %sa, %sb, %acc0 : {sa}, {sb}, {acc}
      layout.barrier
      scf.yield %d : {acc}
    }}
    %tc = layout.tile %c[%bx, %by] {{tile = array<i64: {bm}, {bn}>}} : {gc} -> {tc}
{nl.join(store)}
  }}
  func.return
}}
"""
