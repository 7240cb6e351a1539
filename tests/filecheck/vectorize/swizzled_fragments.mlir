// Fragments of a copy into a swizzled shared buffer are vectorized as plain ones are,
// with vectors inside one swizzle unit (16 bytes of an NVMMA swizzle): a copy whose
// strategy is async then moves 16-byte cp.async (it was refused before). A swizzle of
// 0 bits (NVMMA swizzle 0) moves nothing and bounds no vector.
// RUN: tilec %s -p distribute,vectorize | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @nvmma_64: equivalent after 'default'
// EQ: @nvmma_0: equivalent after 'default'

!GA = !layout.tensor<bf16, #layout.cute<(128,128):(128,1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(64,32):(128,1)>, gmem>
!SA = !layout.tensor<bf16, #layout.nvmma_shared<swizzle = 64, elementBitWidth = 16, transposed = false, shape = [64, 32]>, smem>
!TB = !layout.tensor<bf16, #layout.cute<(64,8):(128,1)>, gmem>
!SB = !layout.tensor<bf16, #layout.nvmma_shared<swizzle = 0, elementBitWidth = 16, transposed = false, shape = [64, 8]>, smem>
#blk = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#b8 = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [2, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @nvmma_64
// CHECK:         layout.copy_async {{.*}} gmem, vec #layout.cute<(1,8):(128,1)>>, {{.*}}swizzle<2,3,3>{{.*}} smem, vec #layout.cute<(1,8):(32,1)>>
func.func @nvmma_64(%pa: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<bf16, align 16>) {
  %A = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %C = layout.view %pc : !layout.ptr<bf16, align 16> -> !GA
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !SA
    %ta = layout.tile %A[%c0, %c0] {tile = array<i64: 64, 32>} : !GA -> !TA
    layout.copy %ta, %s {strategy = #layout.copy_strategy<async>} : !TA, !SA
    layout.barrier
    %v = layout.load %s : !SA -> tensor<64x32xbf16, #blk>
    %tc = layout.tile %C[%c0, %c0] {tile = array<i64: 64, 32>} : !GA -> !TA
    layout.store %v, %tc : tensor<64x32xbf16, #blk>, !TA
  }
  func.return
}

// CHECK-LABEL: func.func @nvmma_0
// CHECK:         layout.copy_async {{.*}} gmem, vec #layout.cute<(1,8):(128,1)>>, {{.*}} smem, vec #layout.cute<(1,8):(8,1)>>
func.func @nvmma_0(%pa: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<bf16, align 16>) {
  %A = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %C = layout.view %pc : !layout.ptr<bf16, align 16> -> !GA
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !SB
    %ta = layout.tile %A[%c0, %c0] {tile = array<i64: 64, 8>} : !GA -> !TB
    layout.copy %ta, %s {strategy = #layout.copy_strategy<async>} : !TB, !SB
    layout.barrier
    %v = layout.load %s : !SB -> tensor<64x8xbf16, #b8>
    %tc = layout.tile %C[%c0, %c0] {tile = array<i64: 64, 8>} : !GA -> !TB
    layout.store %v, %tc : tensor<64x8xbf16, #b8>, !TB
  }
  func.return
}
