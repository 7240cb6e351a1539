"""The GEMM main loops `software-pipeline` takes, written as plain single-buffered loops
(tests/unit/test_software_pipeline.py, tests/gpu/test_software_pipeline_gpu.py) and
built with `tilec.Program`: the TMA + wgmma form (sm_90) and the block-level copy +
mma.sync form (sm_80, cp.async after `distribute,vectorize`), one block per 64 x 64
tile of C."""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr

import tilec
from tilec.support.target import TARGET_ATTR

BK = 64
"""K per step of the TMA form (the sm_80 form steps by 32)."""


def _pointers(p):
    """%pa, %pb (bf16) and %pc (f32), 16-byte aligned."""
    return (p.pointer(x, t, align=16) for x, t in (("pa", "bf16"), ("pb", "bf16"), ("pc", "f32")))


def tma_gemm(k: int, trip: int | None = None, dynamic: bool = False, sync_mma: bool = True, m: int = 64,
             n: int = 64, barrier_after_loop: bool = False) -> ModuleOp:
    """@gemm: C (m x n, f32) = A[:, :trip*64] @ B[:trip*64, :] (A m x k, B k x n,
    bf16), one warpgroup per 64 x 64 tile of C, the plain loop over K steps: TMA loads of the step's A and B
    tiles on one mbarrier, its wait, a wgmma `layout.mma` (sync, or {async} + wait 0),
    a barrier. `dynamic`: the trip count is the index argument %nk (`tilec.args`);
    `barrier_after_loop`: one more barrier before the store of C."""
    trip = k // BK if trip is None else trip
    mma = tilec.NvidiaMmaLayout(3, [4, 1], [64, 64, 16])
    swizzled = tilec.ComposedLayout(tilec.Swizzle(3, 3, 3), 0, tilec.Layout((64, 64), (64, 1)))
    p = tilec.Program("gemm")
    pa, pb, pc = _pointers(p)
    nk = p.index("nk", trip) if dynamic else p.constant(trip).named("nk")
    a = p.view(pa, f"({m},{k}):({k},1)").named("a")
    b = p.view(pb, f"({k},{n}):({n},1)").named("b")
    c = p.view(pc, f"({m},{n}):({n},1)").named("c")
    with p.launch(grid=(m // 64, n // 64, 1), threads=128) as blk:
        sa = p.alloc(swizzled, "bf16", "smem").named("sa")
        sb = p.alloc(swizzled, "bf16", "smem").named("sb")
        bar = p.mbarrier_init(1).named("bar")
        acc = p.full([64, 64], 0.0, "f32", mma, dense=True).named("zero")
        with p.range(0, nk, carry=[acc]) as kt:
            acc.named("acc0")
            ta = p.tile(a, [blk.bx, kt.named("kt")], [64, 64]).named("ta")
            tb = p.tile(b, [kt, blk.by], [64, 64]).named("tb")
            p.mbarrier_arrive(bar, tx=16384)
            p.tma_load(ta, sa, bar)
            p.tma_load(tb, sb, bar)
            p.mbarrier_wait(bar, p.remui(kt, 2).named("phase"))
            if sync_mma:
                d = p.mma(sa, sb, acc)
            else:
                (d,) = p.mma_wait(p.mma(sa, sb, acc, is_async=True).named("e"), pending=0)
            p.barrier()
            acc.assign(d.named("d"))
        tc = p.tile(c, [blk.bx, blk.by], [64, 64]).named("tc")
        if barrier_after_loop:
            p.barrier()
        p.store(acc.named("acc"), tc)
    return p.module


def sm80_gemm(k: int, trip: int | None = None, dynamic: bool = False, m: int = 64, n: int = 64) -> ModuleOp:
    """@gemm: the same GEMM for sm_80: block-level copies of the step's A (64 x 32) and
    B (32 x 64) tiles into shared buffers (cp.async after `distribute,vectorize`), a
    barrier, the operands loaded into the mma.sync operand layouts, `layout.mma`, a
    barrier; 4 warps."""
    trip = k // 32 if trip is None else trip
    mma = tilec.NvidiaMmaLayout(2, [2, 2], [16, 8])
    p = tilec.Program("gemm")
    pa, pb, pc = _pointers(p)
    nk = p.index("nk", trip) if dynamic else p.constant(trip).named("nk")
    a = p.view(pa, f"({m},{k}):({k},1)").named("A")
    b = p.view(pb, f"({k},{n}):({n},1)").named("B")
    c = p.view(pc, f"({m},{n}):({n},1)").named("C")
    with p.launch(grid=(m // 64, n // 64, 1), threads=128) as blk:
        sa = p.alloc("(64,32):(32,1)", "bf16", "smem").named("sa")
        sb = p.alloc("(32,64):(64,1)", "bf16", "smem").named("sb")
        acc = p.full([64, 64], 0.0, "f32", mma, dense=True).named("zero")
        with p.range(0, nk, carry=[acc]) as kt:
            acc.named("acc0")
            ta = p.tile(a, [blk.bx, kt.named("kt")], [64, 32]).named("ta")
            tb = p.tile(b, [kt, blk.by], [32, 64]).named("tb")
            p.copy(ta, sa)
            p.copy(tb, sb)
            p.barrier()
            fa = p.load(sa, tilec.DotOperandLayout(0, mma, 2)).named("fa")
            fb = p.load(sb, tilec.DotOperandLayout(1, mma, 2)).named("fb")
            d = p.mma(fa, fb, acc).named("d")
            p.barrier()
            acc.assign(d)
        p.store(acc.named("acc"), p.tile(c, [blk.bx, blk.by], [64, 64]).named("tc"))
    module = p.module
    next(o for o in module.walk() if isinstance(o, func.FuncOp)).attributes[TARGET_ATTR] = StringAttr("sm_80")
    return module
