"""wgmma test programs. `wgmma_program`: a GPU-level module around one `cuda.wgmma`, built
with `GpuProgram` (tests/unit/test_cuda_wgmma.py; tests/filecheck/cuda/wgmma.mlir is
its printout): 128 threads copy A (64 x 16) and B (n x 16), already in their
shared-memory arrangement, from global to shared memory, load C as
`c[i * 128 + tid]` (value i of thread tid), run fence / wgmma / commit / wait 0 and
store D the same way. `wgmma_mma_program`, `wgmma_gemm_program`: layout-level modules
built with `tilec.Program`."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from tilec.compiler.builder_gpu_level import GpuProgram
from tilec.dialects.cuda_wgmma import WgmmaCommitGroupOp, WgmmaFenceOp, WgmmaOp, WgmmaWaitGroupOp


def wgmma_program(
    n: int, dtype: str = "bf16", a_desc=(32, 0, 256), b_desc=(0, 128, 256), a_align: int = 1024, b_align: int = 1024,
    b_dtype: str | None = None, threads: int = 128, a_at_tid: bool = False, b_at: int = 0,
) -> ModuleOp:
    """(module docstring) A is 64 x K and B n x K with K = 32 bytes of elements (16 for
    bf16/f16, 32 for f8E4M3FN/f8E5M2); `b_dtype` (default `dtype`) gives B another
    8-bit float type. Planted mistakes: `threads` other than 128 per block, A's
    descriptor at element `tid` of its buffer (`a_at_tid`), B's at element `b_at`."""
    ka = 32 if dtype.startswith("f8") else 16
    b_dtype = b_dtype or dtype
    na, nb, vals = 64 * ka, n * ka, n // 2
    g = GpuProgram("wgmma")
    g.buffer("ga", dtype, na)
    g.buffer("gb", b_dtype, nb)
    g.buffer("gc", "f32", 128 * vals)
    with g.kernel(grid=1, block=threads, name="wgmma_kernel", module="wgmma_kernels") as (ga, gb, gc):
        tid = g.thread_id("x").named("tid")
        c0 = g.constant(0).named("c0")
        sa = g.alloca(na, dtype, alignment=a_align).named("sa")
        sb = g.alloca(nb, b_dtype, alignment=b_align).named("sb")
        for src, dst, size in ((ga, sa, na), (gb, sb, nb)):
            with g.range(0, size, 128) as i:
                j = (i.named("i") + tid).named("j")
                dst[j] = src[j].named("x")
        g.barrier()
        ps, accs = [], []
        for i in range(vals):
            ps.append((g.constant(128 * i).named(f"o{i}") + tid).named(f"p{i}"))
            accs.append(gc[ps[-1]].named(f"acc{i}"))
        g.insert(WgmmaFenceOp())
        mma = WgmmaOp(sa.ssa, (tid if a_at_tid else c0).ssa, sb.ssa, g.as_index(b_at) if b_at else c0.ssa,
                      [a.ssa for a in accs], n, a_desc, b_desc)
        for r in g.insert(mma).results:
            r.named("d")
        g.insert(WgmmaCommitGroupOp())
        waited = g.insert(WgmmaWaitGroupOp(0, mma.results)).results
        for i, e in enumerate(waited):
            gc[ps[i]] = e.named("e")
    return g.module


def nvmma_layout(rows: int, cols: int, swizzle: int, contiguous: int, bits: int = 16):
    """The shared layout of a `rows x cols` tile of `bits`-bit elements that wgmma can
    read: Triton's `nvmma_shared<swizzle>` with dim `contiguous` (0 or 1) contiguous (a
    `tilec.ComposedLayout`), or, for swizzle 0 (16-bit only), core matrices (8 x 16
    bytes, contiguous along `contiguous`) stacked along the other dim first (CuTe text)."""
    from tilec.dialects.mma import NvmmaSharedLayout

    if swizzle:
        return NvmmaSharedLayout(swizzle, bits, contiguous == 0).composed([rows, cols])
    if contiguous == 1:  # element (r, c): (r % 8) * 8 + c % 8 + (r / 8) * 64 + (c / 8) * 8 rows
        return f"((8,{rows // 8}),(8,{cols // 8})):((8,64),(1,{8 * rows}))"
    return f"((8,{rows // 8}),(8,{cols // 8})):((1,{8 * cols}),(8,64))"


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
    b_layout=None,
    b_et: str | None = None,
):
    """@wgmma (a module built with `tilec.Program`): one block of `wg` warpgroups
    (8-bit floats `et`, or `et` for A and `b_et` for B: `k32` steps, B K-major)
    (stacked along M) computes C = C + A @ B with a `layout.mma` of a version-3
    accumulator: A (m x k, row-major in %pa) and B (k x n: row-major in %pb for
    `b_major` "mn"; for "k", %pb holds B^T row-major) copied into NVMMA shared tiles
    (`nvmma_layout`: B MN- or K-major; `b_layout` another shared layout for B), A read
    by wgmma from shared memory (`a_from` "smem") or loaded into registers ("regs"), C
    (m x n f32, row-major in %pc) loaded into and stored from the accumulator layout;
    `target` names the module's target."""
    import tilec
    from tilec.support.target import set_target

    b_et = b_et or et
    bits = 8 if et.startswith("f8") else 16
    mma = tilec.NvidiaMmaLayout(3, [4 * wg, 1], [64, instr_n or n, 256 // bits])
    p = tilec.Program("wgmma")
    pa, pb, pc = (p.pointer(name, t, align=16) for name, t in (("pa", et), ("pb", b_et), ("pc", "f32")))
    a = p.view(pa, f"({m},{k}):({k},1)")
    b = p.view(pb, f"({k},{n}):({n},1)" if b_major == "mn" else f"({k},{n}):(1,{k})")
    c = p.view(pc, f"({m},{n}):({n},1)")
    with p.launch(threads=128 * wg):
        sb = p.alloc(b_layout or nvmma_layout(k, n, b_swizzle, 1 if b_major == "mn" else 0, bits), b_et)
        p.copy(b, sb)
        if a_from == "smem":
            sa = p.alloc(nvmma_layout(m, k, a_swizzle, 1, bits), et)
            p.copy(a, sa)
        else:
            sa = p.load(a, tilec.DotOperandLayout(0, mma, 2))
        p.barrier()
        p.store(p.mma(sa, sb, p.load(c, mma)), c)
    module = p.module
    if target:
        set_target(module, target)
    return module


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
):
    """@gemm (a module built with `tilec.Program`): C = A @ B (A m x k and B k x n
    row-major, C m x n row-major of `out`), one block of bm / 64 warpgroups per bm x bn
    tile of C, looping over K in bk steps: the A and B tiles copied into NVMMA-swizzled
    shared tiles (A K-major, B MN-major) by TMA loads completing on one mbarrier waited
    on phase `kt % 2` (with `tma`; else block-level copies, which `distribute` spreads
    over the threads), one `layout.mma` of a version-3 accumulator (bk / 16 wgmma per
    64 x bn tile), a barrier before the next copy overwrites the tiles; the accumulator
    (f32) stored (converted to `out`) at the end."""
    import tilec

    mma = tilec.NvidiaMmaLayout(3, [bm // 16, 1], [64, bn, 16])
    p = tilec.Program("gemm")
    pa, pb, pc = (p.pointer(name, t, align=16) for name, t in (("pa", et), ("pb", et), ("pc", out)))
    a, b, c = (p.view(ptr, f"({r},{q}):({q},1)") for ptr, (r, q) in zip((pa, pb, pc), [(m, k), (k, n), (m, n)]))
    with p.launch(grid=(m // bm, n // bn, 1), threads=2 * bm) as blk:
        sa = p.alloc(nvmma_layout(bm, bk, swizzle, 1), et)
        sb = p.alloc(nvmma_layout(bk, bn, swizzle, 1), et)
        acc = p.full([bm, bn], 0.0, "f32", mma, dense=True)
        bar = p.mbarrier_init(1) if tma else None
        with p.range(0, k // bk, carry=[acc]) as kt:
            ta = p.tile(a, [blk.bx, kt], [bm, bk])
            tb = p.tile(b, [kt, blk.by], [bk, bn])
            if tma:
                p.mbarrier_arrive(bar, tx=2 * (bm + bn) * bk)
                p.tma_load(ta, sa, bar)
                p.tma_load(tb, sb, bar)
                p.mbarrier_wait(bar, p.remui(kt, 2))
            else:
                p.copy(ta, sa)
                p.copy(tb, sb)
                p.barrier()
            d = p.mma(sa, sb, acc)
            p.barrier()
            acc.assign(d)
        p.store(acc if out == "f32" else acc.cast(out), p.tile(c, [blk.bx, blk.by], [bm, bn]))
    return p.module
