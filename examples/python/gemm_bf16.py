"""C = A @ B in bf16 on tensor cores (f32 accumulation), written in tilec's layouts, on
PyTorch tensors; checked against torch.matmul within the documented MMA tolerance.

    python examples/python/gemm_bf16.py [M N K]     (default 1024 1024 1024)

`gemm_source(M, N, K)` writes the program of examples/gemm_bf16.mlir for any M, N
(multiples of 128) and K (a multiple of 32, at least 96): that file is
`gemm_source(256, 256, 128)`, small enough for the CPU reference executor. Per block
of 8 warps, a 128x128 tile of C:

- a 4-stage `cp.async` pipeline (`layout.copy_async` of 16-byte vectors, one per
  thread and row, coalesced) fills padded shared tiles of A (128x32, rows of 40
  elements) and B (32x128, rows of 136): the padding shifts each row by 16 bytes,
  so the 8 rows of an `ldmatrix` matrix hit 8 different bank groups;
- an `scf.for` over K carries the 128x128 f32 accumulator in the MMA layout
  (`#layout.nvidia_mma`, warps 2x4: 64 registers per thread); each step waits for
  its stage, starts the copy of the stage 3 steps ahead, loads the A and B tiles into
  the operand layouts (`#layout.dot_op`; `lower-to-gpu` picks `ldmatrix.x4` and
  `ldmatrix.x4.trans`) and issues `layout.mma` (32 `mma.sync.m16n8k16` per warp);
- the epilogue rounds the accumulator to bf16, stores it into shared memory (the A
  buffer re-viewed; `stmatrix.x4` on sm_90), and stores it from there coalesced
  (a blocked layout, 16-byte vectors, each warp two whole 256-byte rows).

Without a GPU (or PyTorch) the script compiles the kernel with NVRTC for sm_90 and
runs the 256x256x128 example on the CPU reference executor instead.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import tilec

BM, BN, BK, STAGES = 128, 128, 32, 4
PAD_A, PAD_B, PAD_C = BK + 8, BN + 8, BN + 8

TEMPLATE = """\
#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 4], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
#out = #layout.blocked<{{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]}}>
!GA = !layout.tensor<bf16, #layout.cute<({M},{K}):({K},1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<({K},{N}):({N},1)>, gmem>
!GC = !layout.tensor<bf16, #layout.cute<({M},{N}):({N},1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(128,32):({K},1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<(32,128):({N},1)>, gmem>
!TC = !layout.tensor<bf16, #layout.cute<(128,128):({N},1)>, gmem>
!VA = !layout.tensor<bf16, #layout.cute<(128,4):({K},8)>, gmem, vec #layout.cute<(1,8):({K},1)>>
!FA = !layout.tensor<bf16, #layout.cute<(2,1):({K64},32)>, gmem, vec #layout.cute<(1,8):({K},1)>>
!VB = !layout.tensor<bf16, #layout.cute<(32,16):({N},8)>, gmem, vec #layout.cute<(1,8):({N},1)>>
!FB = !layout.tensor<bf16, #layout.cute<(2,1):({N16},128)>, gmem, vec #layout.cute<(1,8):({N},1)>>
!SA = !layout.tensor<bf16, #layout.cute<({SA_ROWS},32):(40,1)>, smem>
!SB = !layout.tensor<bf16, #layout.cute<({SB_ROWS},128):(136,1)>, smem>
!SC = !layout.tensor<bf16, #layout.cute<(128,128):(136,1)>, smem>
!XA = !layout.tensor<bf16, #layout.cute<(128,32):(40,1)>, smem>
!XB = !layout.tensor<bf16, #layout.cute<(32,128):(136,1)>, smem>
!YA = !layout.tensor<bf16, #layout.cute<(128,4):(40,8)>, smem, vec #layout.cute<(1,8):(40,1)>>
!ZA = !layout.tensor<bf16, #layout.cute<(2,1):(2560,32)>, smem, vec #layout.cute<(1,8):(40,1)>>
!YB = !layout.tensor<bf16, #layout.cute<(32,16):(136,8)>, smem, vec #layout.cute<(1,8):(136,1)>>
!ZB = !layout.tensor<bf16, #layout.cute<(2,1):(2176,128)>, smem, vec #layout.cute<(1,8):(136,1)>>
!ACC = tensor<128x128xf32, #mma>
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
  %gm = arith.constant {GM} : index
  %gn = arith.constant {GN} : index
  layout.launch grid(%gm, %gn, %c1) threads(256) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
{PROLOGUE}    %zero = arith.constant dense<0.0> : !ACC
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (!ACC) {{
      // tile kt has landed (the {PENDING} groups of the {AHEAD_N} tiles after it may not have)
      layout.async_wait {{pending = {PENDING} : i64}}
      layout.barrier
      // start tile kt+{AHEAD_N} (past the end: the last tile again, into a stage never read)
      %far = arith.addi %kt, %ahead : index
      %next = arith.minui %far, %last : index
      %ns = arith.remui %far, %stages : index
{ISSUE}      %s = arith.remui %kt, %stages : index
      %xa = layout.tile %sa[%s, %c0] {{tile = array<i64: 128, 32>}} : !SA -> !XA
      %xb = layout.tile %sb[%s, %c0] {{tile = array<i64: 32, 128>}} : !SB -> !XB
      %opa = layout.load %xa : !XA -> tensor<128x32xbf16, #a>
      %opb = layout.load %xb : !XB -> tensor<32x128xbf16, #b>
      %d = layout.mma %opa, %opb, %acc0 : tensor<128x32xbf16, #a>, tensor<32x128xbf16, #b>, !ACC
      scf.yield %d : !ACC
    }}
    // the epilogue reuses A's buffer: every copy landed, every warp done with it
    layout.async_wait {{pending = 0 : i64}}
    layout.barrier
    %h = arith.truncf %acc : !ACC to tensor<128x128xbf16, #mma>
    %sc = layout.view %sa : !SA -> !SC
    layout.store %h, %sc : tensor<128x128xbf16, #mma>, !SC
    layout.barrier
    %o = layout.load %sc {{vector = 8 : i64}} : !SC -> tensor<128x128xbf16, #out>
    %tc = layout.tile %C[%bx, %by] {{tile = array<i64: 128, 128>}} : !GC -> !TC
    layout.store %o, %tc {{vector = 8 : i64}} : tensor<128x128xbf16, #out>, !TC
  }}
  func.return
}}
"""

ISSUE = """\
{I}%ta{S} = layout.tile %A[%bx, {KT}] {{tile = array<i64: 128, 32>}} : !GA -> !TA
{I}%tb{S} = layout.tile %B[{KT}, %by] {{tile = array<i64: 32, 128>}} : !GB -> !TB
{I}%wa{S} = layout.tile %sa[{ST}, %c0] {{tile = array<i64: 128, 32>}} : !SA -> !XA
{I}%wb{S} = layout.tile %sb[{ST}, %c0] {{tile = array<i64: 32, 128>}} : !SB -> !XB
{I}%va{S} = layout.vectorize %ta{S} {{vector = array<i64: 1, 8>}} : !TA -> !VA
{I}%fa{S} = layout.distribute %va{S}, %tid {{threads = #layout.cute<(64,4):(4,1)>}} : !VA -> !FA
{I}%ya{S} = layout.vectorize %wa{S} {{vector = array<i64: 1, 8>}} : !XA -> !YA
{I}%za{S} = layout.distribute %ya{S}, %tid {{threads = #layout.cute<(64,4):(4,1)>}} : !YA -> !ZA
{I}layout.copy_async %fa{S}, %za{S} : !FA, !ZA
{I}%vb{S} = layout.vectorize %tb{S} {{vector = array<i64: 1, 8>}} : !TB -> !VB
{I}%fb{S} = layout.distribute %vb{S}, %tid {{threads = #layout.cute<(16,16):(16,1)>}} : !VB -> !FB
{I}%yb{S} = layout.vectorize %wb{S} {{vector = array<i64: 1, 8>}} : !XB -> !YB
{I}%zb{S} = layout.distribute %yb{S}, %tid {{threads = #layout.cute<(16,16):(16,1)>}} : !YB -> !ZB
{I}layout.copy_async %fb{S}, %zb{S} : !FB, !ZB
"""


def gemm_source(m: int, n: int, k: int) -> str:
    """The tilec program of C (m x n, bf16) = A (m x k) @ B (k x n), row-major."""
    if m % BM or n % BN or k % BK or k // BK < STAGES - 1:
        raise ValueError(f"gemm_source: M, N multiples of {BM}, K of {BK} and at least {BK * (STAGES - 1)}")
    prologue = ""
    for s in range(STAGES - 1):
        prologue += f"    %k{s} = arith.constant {s} : index\n"
        prologue += ISSUE.format(I="    ", S=f"_{s}", KT=f"%k{s}", ST=f"%k{s}")
    head = (
        f"// C = A @ B: {m}x{k} @ {k}x{n} bf16 -> bf16, f32 accumulation, on tensor cores.\n"
        "// Generated by examples/python/gemm_bf16.py (gemm_source); the docstring there\n"
        "// explains it. The CPU reference executor runs it:\n"
        f"//   tilec examples/gemm_bf16.mlir --run cpu\n"
    )
    return head + TEMPLATE.format(
        M=m, N=n, K=k, K64=64 * k, N16=16 * n, SA_ROWS=STAGES * BM, SB_ROWS=STAGES * BK,
        STAGES=STAGES, AHEAD=STAGES - 1, AHEAD_N=STAGES - 1, NK=k // BK, LAST=k // BK - 1,
        GM=m // BM, GN=n // BN, PENDING=2 * (STAGES - 2), PROLOGUE=prologue,
        ISSUE=ISSUE.format(I="      ", S="", KT="%next", ST="%ns"),
    )


EXAMPLE_SHAPE = (256, 256, 128)
"""The shape of examples/gemm_bf16.mlir."""


def main(argv: list[str]) -> int:
    m, n, k = (int(x) for x in argv[:3]) if len(argv) >= 3 else (1024, 1024, 1024)
    try:
        import torch
    except ImportError:
        torch = None
    from tilec.dialects.layout_mma import mma_error_bound

    if torch is not None and tilec.gpu_available() and torch.cuda.is_available():
        kernel = tilec.compile(gemm_source(m, n, k))
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

        m, n, k = EXAMPLE_SHAPE
        source = gemm_source(m, n, k)
        kernel = tilec.compile(source, arch="sm_90")
        print(f"no GPU (or no PyTorch): compiled {len(kernel.cubin)} bytes of sm_90 cubin with NVRTC; "
              f"running {m}x{n}x{k} on the CPU reference executor")
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
    print(f"C = A @ B, {m}x{k} @ {k}x{n} bf16, {where}: "
          f"{'within' if ok else 'NOT within'} the documented tolerance (max error {float(err.max()):.3g})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
