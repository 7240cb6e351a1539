"""The GEMM main loops `software-pipeline` takes, written as plain single-buffered loops
(tests/unit/test_software_pipeline.py, tests/gpu/test_software_pipeline_gpu.py): the
TMA + wgmma form (sm_90) and the block-level copy + mma.sync form (sm_80, cp.async after
`distribute,vectorize`), one block per 64 x 64 tile of C."""

from __future__ import annotations

BK = 64
"""K per step of the TMA form (the sm_80 form steps by 32)."""




def tma_gemm(k: int, trip: int | None = None, dynamic: bool = False, sync_mma: bool = True, m: int = 64,
             n: int = 64) -> str:
    """@gemm: C (m x n, f32) = A[:, :trip*64] @ B[:trip*64, :] (A m x k, B k x n,
    bf16), one warpgroup per 64 x 64 tile of C, the plain loop over K steps: TMA loads of the step's A and B
    tiles on one mbarrier, its wait, a wgmma `layout.mma` (sync, or {async} + wait 0),
    a barrier. `dynamic`: the trip count is the index argument %nk (`tilec.args`)."""
    trip = k // BK if trip is None else trip
    sig = ", %nk: index" if dynamic else ""
    attrs = f" attributes {{tilec.args = {{nk = {trip} : index}}}}" if dynamic else ""
    nk = "" if dynamic else f"\n  %nk = arith.constant {trip} : index"
    mma = (
        "      %d = layout.mma %sa, %sb, %acc0 : !S, !S, !ACC\n"
        if sync_mma
        else "      %e = layout.mma %sa, %sb, %acc0 {async} : !S, !S, !ACC\n"
        "      %d = layout.mma_wait %e {pending = 0 : i64} : !ACC\n"
    )
    return f"""#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!GA = !layout.tensor<bf16, #layout.cute<({m},{k}):({k},1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<({k},{n}):({n},1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<({m},{n}):({n},1)>, gmem>
!TC = !layout.tensor<f32, #layout.cute<(64,64):({n},1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(64,64):({k},1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<(64,64):({n},1)>, gmem>
!S = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
!ACC = tensor<64x64xf32, #mma>
func.func @gemm(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>{sig}){attrs} {{
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %gm = arith.constant {m // 64} : index
  %gn = arith.constant {n // 64} : index
  %c2 = arith.constant 2 : index{nk}
  layout.launch grid(%gm, %gn, %c1) threads(128) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !S
    %sb = layout.alloc : !S
    %bar = layout.mbarrier_init {{count = 1 : i64}}
    %zero = arith.constant dense<0.0> : !ACC
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (!ACC) {{
      %ta = layout.tile %a[%bx, %kt] {{tile = array<i64: 64, 64>}} : !GA -> !TA
      %tb = layout.tile %b[%kt, %by] {{tile = array<i64: 64, 64>}} : !GB -> !TB
      layout.mbarrier_arrive %bar {{tx = 16384 : i64}}
      layout.tma_load %ta, %sa, %bar : !TA, !S
      layout.tma_load %tb, %sb, %bar : !TB, !S
      %phase = arith.remui %kt, %c2 : index
      layout.mbarrier_wait %bar, %phase
{mma}      layout.barrier
      scf.yield %d : !ACC
    }}
    %tc = layout.tile %c[%bx, %by] {{tile = array<i64: 64, 64>}} : !GC -> !TC
    layout.store %acc, %tc : !ACC, !TC
  }}
  func.return
}}
"""


def sm80_gemm(k: int, trip: int | None = None, dynamic: bool = False, m: int = 64, n: int = 64) -> str:
    """@gemm: the same GEMM for sm_80: block-level copies of the step's A (64 x 32) and
    B (32 x 64) tiles into shared buffers (cp.async after `distribute,vectorize`), a
    barrier, the operands loaded into the mma.sync operand layouts, `layout.mma`, a
    barrier; 4 warps."""
    trip = k // 32 if trip is None else trip
    sig = ", %nk: index" if dynamic else ""
    attrs = f"tilec.args = {{nk = {trip} : index}}, " if dynamic else ""
    nk = "" if dynamic else f"\n  %nk = arith.constant {trip} : index"
    return f"""#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
!GA = !layout.tensor<bf16, #layout.cute<({m},{k}):({k},1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<({k},{n}):({n},1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<({m},{n}):({n},1)>, gmem>
!TC = !layout.tensor<f32, #layout.cute<(64,64):({n},1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(64,32):({k},1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<(32,64):({n},1)>, gmem>
!SA = !layout.tensor<bf16, #layout.cute<(64,32):(32,1)>, smem>
!SB = !layout.tensor<bf16, #layout.cute<(32,64):(64,1)>, smem>
!ACC = tensor<64x64xf32, #mma>
func.func @gemm(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>{sig}) attributes {{{attrs}tilec.target = "sm_80"}} {{
  %A = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %B = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %C = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %gm = arith.constant {m // 64} : index
  %gn = arith.constant {n // 64} : index{nk}
  layout.launch grid(%gm, %gn, %c1) threads(128) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    %zero = arith.constant dense<0.0> : !ACC
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (!ACC) {{
      %ta = layout.tile %A[%bx, %kt] {{tile = array<i64: 64, 32>}} : !GA -> !TA
      %tb = layout.tile %B[%kt, %by] {{tile = array<i64: 32, 64>}} : !GB -> !TB
      layout.copy %ta, %sa : !TA, !SA
      layout.copy %tb, %sb : !TB, !SB
      layout.barrier
      %fa = layout.load %sa : !SA -> tensor<64x32xbf16, #a>
      %fb = layout.load %sb : !SB -> tensor<32x64xbf16, #b>
      %d = layout.mma %fa, %fb, %acc0 : tensor<64x32xbf16, #a>, tensor<32x64xbf16, #b>, !ACC
      layout.barrier
      scf.yield %d : !ACC
    }}
    %tc = layout.tile %C[%bx, %by] {{tile = array<i64: 64, 64>}} : !GC -> !TC
    layout.store %acc, %tc : !ACC, !TC
  }}
  func.return
}}
"""
