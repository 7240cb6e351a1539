// No room for the round trip, but the store's source layout would not write whole
// 32-byte sectors: a blocked tile of rows (4 f32 per thread along dim 1) stored into a
// column-major view (stride 1 along dim 0) writes 4-byte pieces. The conversion stays
// a shared round trip (whose size the CUDA target then refuses with a located error:
// cuda/dynamic_smem.mlir).
// RUN: tilec %s -p lower-convert-layout | filecheck %s
// RUN: tilec %s -p lower-convert-layout --check-equivalence | filecheck %s --check-prefix=EQ

// EQ: @transpose_no_room: equivalent after

// CHECK-LABEL: func.func @transpose_no_room
// CHECK:         layout.alloc : !layout.tensor<f32
// CHECK:         %big = layout.alloc
// CHECK:         layout.store %acc, %{{.*}} {bank_conflicts
// CHECK-NEXT:    layout.barrier
// CHECK-NEXT:    %b = layout.load
// CHECK-NEXT:    layout.store %b, %C : tensor<64x128xf32, #layout.blocked<{sizePerThread = [4, 1]

#rows = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
!GC = !layout.tensor<f32, #layout.cute<(64,128):(1,64)>, gmem>
!BIG = !layout.tensor<bf16, #layout.cute<(73728):(1)>, smem>
module attributes {tilec.target = "sm_80"} {
func.func @transpose_no_room(%pc: !layout.ptr<f32, align 16>) {
  %C = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %big = layout.alloc : !BIG
    %acc = arith.constant dense<1.5> : tensor<64x128xf32, #rows>
    %b = layout.convert_layout %acc : tensor<64x128xf32, #rows> -> tensor<64x128xf32, #cols>
    layout.store %b, %C : tensor<64x128xf32, #cols>, !GC
  }
  func.return
}
}
