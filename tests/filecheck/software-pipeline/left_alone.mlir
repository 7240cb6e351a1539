// software-pipeline leaves loops it cannot pipeline as they are (a shared buffer read
// after the loop; two mbarriers; a load past the wait), and with num_stages=1 (the
// default) every loop; num_stages outside [1, 8] is an error, and so is a pipeline
// whose stages pass the block's shared memory (located at the loop).
// RUN: tilec %s -p "software-pipeline{num_stages=3}" | filecheck %s
// RUN: tilec %s -p "software-pipeline{num_stages=3}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p software-pipeline | filecheck %s --check-prefix=ONE
// RUN: not tilec %s -p "software-pipeline{num_stages=9}" 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not tilec %s -p "software-pipeline{num_stages=8}" 2>&1 | filecheck %s --check-prefix=SMEM

// EQ: @read_after: equivalent after
// BAD: error: software-pipeline: num_stages must be in [1, 8], got 9
// SMEM: left_alone.mlir:[[# @LINE + 116]]:5: error: 'scf.for': software-pipeline: 8 stages of this loop's shared buffers need 327680 bytes of shared memory, more than the 227 KiB of a block: fewer stages (num_stages) or smaller tiles

// ONE-LABEL: func.func @pipelined
// ONE:       %sb = layout.alloc
// ONE-NEXT:  %bar = layout.mbarrier_init
// ONE-NEXT:  %zero
// ONE-NEXT:  %acc = scf.for %kt = %c0 to %nk step %c1

// CHECK-LABEL: func.func @read_after
// CHECK:      %sa = layout.alloc
// CHECK-NEXT: %sb = layout.alloc
// CHECK-NEXT: %bar = layout.mbarrier_init
// CHECK-NEXT: %zero
// CHECK-NEXT: %acc = scf.for %kt = %c0 to %nk step %c1
// CHECK-LABEL: func.func @two_barriers
// CHECK:      %bar2 = layout.mbarrier_init
// CHECK-NEXT: %zero
// CHECK-NEXT: %acc = scf.for %kt = %c0 to %nk step %c1
// CHECK-LABEL: func.func @pipelined
// CHECK:      %nstep = arith.muli %c3_p, %c1 : index

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!GA = !layout.tensor<bf16, #layout.cute<(64,256):(256,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(256,64):(64,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(64,64):(256,1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<(64,64):(64,1)>, gmem>
!S = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
!ACC = tensor<64x64xf32, #mma>

// the last B tile is read again after the loop
func.func @read_after(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %nk = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !S
    %sb = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    %zero = arith.constant dense<0.0> : !ACC
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (!ACC) {
      %ta = layout.tile %a[%c0, %kt] {tile = array<i64: 64, 64>} : !GA -> !TA
      %tb = layout.tile %b[%kt, %c0] {tile = array<i64: 64, 64>} : !GB -> !TB
      layout.mbarrier_arrive %bar {tx = 16384 : i64}
      layout.tma_load %ta, %sa, %bar : !TA, !S
      layout.tma_load %tb, %sb, %bar : !TB, !S
      %phase = arith.remui %kt, %c2 : index
      layout.mbarrier_wait %bar, %phase
      %d = layout.mma %sa, %sb, %acc0 : !S, !S, !ACC
      layout.barrier
      scf.yield %d : !ACC
    }
    %e = layout.mma %sa, %sb, %acc : !S, !S, !ACC
    layout.store %e, %c : !ACC, !GC
  }
  func.return
}

// A and B complete on two mbarriers
func.func @two_barriers(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %nk = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !S
    %sb = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    %bar2 = layout.mbarrier_init {count = 1 : i64}
    %zero = arith.constant dense<0.0> : !ACC
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (!ACC) {
      %ta = layout.tile %a[%c0, %kt] {tile = array<i64: 64, 64>} : !GA -> !TA
      %tb = layout.tile %b[%kt, %c0] {tile = array<i64: 64, 64>} : !GB -> !TB
      layout.mbarrier_arrive %bar {tx = 8192 : i64}
      layout.tma_load %ta, %sa, %bar : !TA, !S
      layout.mbarrier_arrive %bar2 {tx = 8192 : i64}
      layout.tma_load %tb, %sb, %bar2 : !TB, !S
      %phase = arith.remui %kt, %c2 : index
      layout.mbarrier_wait %bar, %phase
      layout.mbarrier_wait %bar2, %phase
      %d = layout.mma %sa, %sb, %acc0 : !S, !S, !ACC
      layout.barrier
      scf.yield %d : !ACC
    }
    layout.store %acc, %c : !ACC, !GC
  }
  func.return
}

!SBIG = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (256,64):(64,1)>, smem>
!TBIG = !layout.tensor<bf16, #layout.cute<(256,64):(64,1)>, gmem>
!GBIG = !layout.tensor<bf16, #layout.cute<(1024,64):(64,1)>, gmem>
// fits 3 stages (3 x 40 KiB), not 8 (320 KiB)
func.func @pipelined(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GBIG
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %nk = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !S
    %sb = layout.alloc : !SBIG
    %bar = layout.mbarrier_init {count = 1 : i64}
    %zero = arith.constant dense<0.0> : !ACC
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (!ACC) {
      %ta = layout.tile %a[%c0, %kt] {tile = array<i64: 64, 64>} : !GA -> !TA
      %tb = layout.tile %b[%kt, %c0] {tile = array<i64: 256, 64>} : !GBIG -> !TBIG
      layout.mbarrier_arrive %bar {tx = 40960 : i64}
      layout.tma_load %ta, %sa, %bar : !TA, !S
      layout.tma_load %tb, %sb, %bar : !TBIG, !SBIG
      %phase = arith.remui %kt, %c2 : index
      layout.mbarrier_wait %bar, %phase
      %v = layout.tile %sb[%c0, %c0] {tile = array<i64: 64, 64>} : !SBIG -> !S
      %d = layout.mma %sa, %v, %acc0 : !S, !S, !ACC
      layout.barrier
      scf.yield %d : !ACC
    }
    layout.store %acc, %c : !ACC, !GC
  }
  func.return
}
