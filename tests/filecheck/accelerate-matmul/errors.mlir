// A forced lowering that the dot or the target cannot take is a located error that
// says why; so is an unknown `instr`.
// RUN: not tilec %s -p 'accelerate-matmul{instr=wgmma}' 2>&1 | filecheck %s --check-prefix=WGMMA
// RUN: not tilec %s -p 'accelerate-matmul{instr=mma_sync}' 2>&1 | filecheck %s --check-prefix=SYNC
// RUN: not tilec %s -p 'accelerate-matmul{instr=dpas}' 2>&1 | filecheck %s --check-prefix=BAD
// WGMMA: errors.mlir:25:5: error: 'layout.dot': accelerate-matmul: instr=wgmma cannot lower this layout.dot: the target sm_80 has no wgmma
// SYNC: errors.mlir:25:5: error: 'layout.dot': accelerate-matmul: instr=mma_sync cannot lower this layout.dot: mma.sync here takes bf16 or f16 operands, not f32 (f32 runs on the FMA loop)
// BAD: accelerate-matmul: instr must be one of auto, wgmma, mma_sync, fma, got 'dpas'

#blk = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
!GA = !layout.tensor<f32, #layout.cute<(64,16):(16,1)>, gmem>
!GB = !layout.tensor<f32, #layout.cute<(16,64):(64,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
module attributes {tilec.target = "sm_80"} {
func.func @dot_f32(%pa: !layout.ptr<f32>, %pb: !layout.ptr<f32>, %pc: !layout.ptr<f32>) {
  %a = layout.view %pa : !layout.ptr<f32> -> !GA
  %b = layout.view %pb : !layout.ptr<f32> -> !GB
  %c = layout.view %pc : !layout.ptr<f32> -> !GC
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %va = layout.load %a : !GA -> tensor<64x16xf32, #blk>
    %vb = layout.load %b : !GB -> tensor<16x64xf32, #blk>
    %acc = layout.load %c : !GC -> tensor<64x64xf32, #blk>
    %d = layout.dot %va, %vb, %acc : tensor<64x16xf32, #blk>, tensor<16x64xf32, #blk>, tensor<64x64xf32, #blk>
    layout.store %d, %c : tensor<64x64xf32, #blk>, !GC
  }
  func.return
}
}
