// A loop states its pipeline depth (`{tilec.num_stages = N : i64}`, the builder's
// `range(..., num_stages=N)`, Triton's `tl.range(..., num_stages=N)`): software-pipeline
// (in the default pipeline, after vectorize) pipelines it that deep whatever its option
// says; num_stages = 1 keeps a loop as it is; a depth outside [1, 8] is an error at the
// loop.
// RUN: tilec %s -p software-pipeline | filecheck %s
// RUN: tilec %s -p "software-pipeline{num_stages=4}" | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: not tilec %S/Inputs/bad_stages.mlir -p software-pipeline 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not tilec %s -p "software-pipeline{rolled=maybe}" 2>&1 | filecheck %s --check-prefix=BADFORM

// EQ: @gemm: equivalent after 'default'
// EQ: @kept: equivalent after 'default'
// BAD: bad_stages.mlir:{{[0-9]+}}:5: error: 'scf.for': software-pipeline: tilec.num_stages must be in [1, 8], got 9
// BADFORM: error: software-pipeline: rolled must be auto, true or false, got 'maybe'

// CHECK-LABEL: func.func @gemm
// CHECK:      %bar = layout.mbarrier_init
// CHECK-NEXT: layout.mbarrier_init
// CHECK-NEXT: layout.mbarrier_init
// CHECK-NOT:  layout.mbarrier_init
// CHECK:      %nstep = arith.muli %c3_p, %c1 : index
// CHECK:      layout.mma_wait %acc {pending = 0 : i64}
// CHECK-LABEL: func.func @kept
// CHECK:      %acc = scf.for %kt = %c0 to %nk step %c1
// CHECK:      } {tilec.num_stages = 1 : i64}

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!GA = !layout.tensor<bf16, #layout.cute<(128,256):(256,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(256,128):(128,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(64,64):(256,1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<(64,64):(128,1)>, gmem>
!TC = !layout.tensor<f32, #layout.cute<(64,64):(128,1)>, gmem>
!S = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
!ACC = tensor<64x64xf32, #mma>





func.func @gemm(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %nk = arith.constant 4 : index
  layout.launch grid(%c2, %c2, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !S
    %sb = layout.alloc : !S
    %zero = arith.constant dense<0.0> : !ACC
    %bar = layout.mbarrier_init {count = 1 : i64}
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (!ACC) {
      %ta = layout.tile %a[%bx, %kt] {tile = array<i64: 64, 64>} : !GA -> !TA
      %tb = layout.tile %b[%kt, %by] {tile = array<i64: 64, 64>} : !GB -> !TB
      layout.mbarrier_arrive %bar {tx = 16384 : i64}
      layout.tma_load %ta, %sa, %bar : !TA, !S
      layout.tma_load %tb, %sb, %bar : !TB, !S
      %phase = arith.remui %kt, %c2 : index
      layout.mbarrier_wait %bar, %phase
      %d = layout.mma %sa, %sb, %acc0 : !S, !S, !ACC
      layout.barrier
      scf.yield %d : !ACC
    } {tilec.num_stages = 3 : i64}
    %tc = layout.tile %c[%bx, %by] {tile = array<i64: 64, 64>} : !GC -> !TC
    layout.store %acc, %tc : !ACC, !TC
  }
  func.return
}

func.func @kept(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %nk = arith.constant 4 : index
  layout.launch grid(%c2, %c2, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !S
    %sb = layout.alloc : !S
    %zero = arith.constant dense<0.0> : !ACC
    %bar = layout.mbarrier_init {count = 1 : i64}
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (!ACC) {
      %ta = layout.tile %a[%bx, %kt] {tile = array<i64: 64, 64>} : !GA -> !TA
      %tb = layout.tile %b[%kt, %by] {tile = array<i64: 64, 64>} : !GB -> !TB
      layout.mbarrier_arrive %bar {tx = 16384 : i64}
      layout.tma_load %ta, %sa, %bar : !TA, !S
      layout.tma_load %tb, %sb, %bar : !TB, !S
      %phase = arith.remui %kt, %c2 : index
      layout.mbarrier_wait %bar, %phase
      %d = layout.mma %sa, %sb, %acc0 : !S, !S, !ACC
      layout.barrier
      scf.yield %d : !ACC
    } {tilec.num_stages = 1 : i64}
    %tc = layout.tile %c[%bx, %by] {tile = array<i64: 64, 64>} : !GC -> !TC
    layout.store %acc, %tc : !ACC, !TC
  }
  func.return
}

