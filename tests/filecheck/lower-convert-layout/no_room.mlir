// A conversion that only feeds a store to global memory, whose shared-memory round trip
// does not fit beside the launch's other shared buffers (sm_80: 163 KiB a block): the
// store takes the source layout (an mma.sync accumulator: 2 f32 per thread along a row,
// one 8-byte vector), no shared buffer, no barrier (144 KiB of other buffers + the
// 32 KiB f32 tile > 163 KiB). @room has 128 KiB of other
// buffers: the round trip fits and is made.
// RUN: tilec %s -p lower-convert-layout | filecheck %s
// RUN: tilec %s -p lower-convert-layout --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p lower-convert-layout,lower-to-gpu,canonicalize --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p lower-convert-layout,lower-to-gpu,canonicalize -t cuda | filecheck %s --check-prefix=CUDA

// EQ: @no_room: equivalent after
// EQ: @room: equivalent after

// CHECK-LABEL: func.func @no_room
// CHECK:         %big = layout.alloc
// CHECK-NOT:     layout.alloc
// CHECK-NOT:     layout.convert_layout
// CHECK-NOT:     layout.barrier
// CHECK:         layout.store %acc, %C {vector = 2 : i64} : tensor<64x128xf32, #layout.nvidia_mma<version = 2
// CHECK-LABEL: func.func @room
// CHECK:         layout.alloc : !layout.tensor<f32
// CHECK:         layout.barrier
// CHECK:         layout.store %b, %C : tensor<64x128xf32, #layout.blocked

// CUDA-LABEL: no_room_kernel(
// CUDA-NOT:     __syncthreads
// CUDA:         *reinterpret_cast<f32x2*>(pc +

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#blk = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
!GC = !layout.tensor<f32, #layout.cute<(64,128):(128,1)>, gmem>
!BIG = !layout.tensor<bf16, #layout.cute<(73728):(1)>, smem>
!SMALL = !layout.tensor<bf16, #layout.cute<(65536):(1)>, smem>
module attributes {tilec.target = "sm_80"} {
func.func @no_room(%pc: !layout.ptr<f32, align 16>) {
  %C = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %big = layout.alloc : !BIG
    %acc = arith.constant dense<1.5> : tensor<64x128xf32, #mma>
    %b = layout.convert_layout %acc : tensor<64x128xf32, #mma> -> tensor<64x128xf32, #blk>
    layout.store %b, %C : tensor<64x128xf32, #blk>, !GC
  }
  func.return
}
func.func @room(%pc: !layout.ptr<f32, align 16>) {
  %C = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %small = layout.alloc : !SMALL
    %acc = arith.constant dense<1.5> : tensor<64x128xf32, #mma>
    %b = layout.convert_layout %acc : tensor<64x128xf32, #mma> -> tensor<64x128xf32, #blk>
    layout.store %b, %C : tensor<64x128xf32, #blk>, !GC
  }
  func.return
}
}
