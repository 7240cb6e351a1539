// A block-level copy into shared memory is followed by a barrier, unless the
// program's own barrier already follows it after at most other global -> shared copies
// (accelerate-matmul's copy A, copy B, barrier): one barrier for both then. A
// shared -> shared copy between reads what the first one wrote: the barrier stays.
// RUN: tilec %s -p distribute | filecheck %s
// RUN: tilec %s -p distribute --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @two_copies_one_barrier: equivalent after 'distribute'
// EQ: @smem_to_smem_keeps_it: equivalent after 'distribute'

!G = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(32,32):(33,1)>, smem>
#blk = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @two_copies_one_barrier
// CHECK:         layout.copy {{.*}} gmem>, {{.*}} smem>
// CHECK-NOT:     layout.barrier
// CHECK:         layout.copy {{.*}} gmem>, {{.*}} smem>
// CHECK-NEXT:    layout.barrier
// CHECK-NOT:     layout.barrier
// CHECK:         func.return
func.func @two_copies_one_barrier(%pa: !layout.ptr<f32>, %pb: !layout.ptr<f32>, %pc: !layout.ptr<f32>) {
  %a = layout.view %pa : !layout.ptr<f32> -> !G
  %b = layout.view %pb : !layout.ptr<f32> -> !G
  %c = layout.view %pc : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !S
    %sb = layout.alloc : !S
    layout.copy %a, %sa : !G, !S
    layout.copy %b, %sb : !G, !S
    layout.barrier
    %x = layout.load %sa : !S -> tensor<32x32xf32, #blk>
    %y = layout.load %sb : !S -> tensor<32x32xf32, #blk>
    %z = arith.addf %x, %y : tensor<32x32xf32, #blk>
    layout.store %z, %c : tensor<32x32xf32, #blk>, !G
  }
  func.return
}

// CHECK-LABEL: func.func @smem_to_smem_keeps_it
// CHECK:         layout.copy {{.*}} gmem>, {{.*}} smem>
// CHECK-NEXT:    layout.barrier
// CHECK:         layout.copy {{.*}} smem>, {{.*}} smem>
// CHECK-NEXT:    layout.barrier
// CHECK-NOT:     layout.barrier
// CHECK:         func.return
func.func @smem_to_smem_keeps_it(%pa: !layout.ptr<f32>, %pc: !layout.ptr<f32>) {
  %a = layout.view %pa : !layout.ptr<f32> -> !G
  %c = layout.view %pc : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !S
    %sb = layout.alloc : !S
    layout.copy %a, %sa : !G, !S
    layout.copy %sa, %sb : !S, !S
    layout.barrier
    %y = layout.load %sb : !S -> tensor<32x32xf32, #blk>
    layout.store %y, %c : tensor<32x32xf32, #blk>, !G
  }
  func.return
}
