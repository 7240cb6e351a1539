// software-pipeline on the plain single-buffered Hopper GEMM loop (TMA loads of A's and
// B's k-th tiles on one mbarrier, a wgmma `layout.mma` into the carried accumulator, a
// barrier): the buffers and the mbarrier get one copy per stage, a prologue loads the
// first S-1 tiles, each unrolled step waits on its stage's barrier with the round's
// parity, issues its mma {async} and waits with pending = 1, meets the block and loads
// the tile S-1 ahead into the stage read one step before; one mma_wait {pending = 0}
// after the loop. 4 K steps: with S = 2 every step runs (no guard), with S = 3 the loop
// runs one whole round unguarded and the 4th step follows it (peeled, stage 0, parity
// 1); @short has 2 K steps under 4 stages (fewer than S: the steps past the end are
// skipped).
// RUN: tilec %s -p "software-pipeline{num_stages=2}" | filecheck %s
// RUN: tilec %s -p "software-pipeline{num_stages=3}" | filecheck %s --check-prefix=S3
// RUN: tilec %s -p "software-pipeline{num_stages=4}" | filecheck %s --check-prefix=S4
// RUN: tilec %s -p "software-pipeline{num_stages=2}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "software-pipeline{num_stages=3}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "software-pipeline{num_stages=4}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "software-pipeline{num_stages=4},default" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "software-pipeline{num_stages=3},default" -t cuda | filecheck %s --check-prefix=CUDA

// EQ: @gemm: equivalent after
// EQ: @short: equivalent after

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!GA = !layout.tensor<bf16, #layout.cute<(128,256):(256,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(256,128):(128,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(64,64):(256,1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<(64,64):(128,1)>, gmem>
!TC = !layout.tensor<f32, #layout.cute<(64,64):(128,1)>, gmem>
!S = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
!ACC = tensor<64x64xf32, #mma>

// CHECK-LABEL: func.func @gemm
// CHECK:      %sa = layout.alloc
// CHECK-NEXT: %sb = layout.alloc
// CHECK-NEXT: %[[SA1:.*]] = layout.alloc
// CHECK-NEXT: %[[SB1:.*]] = layout.alloc
// CHECK:      %bar = layout.mbarrier_init {count = 1 : i64}
// CHECK-NEXT: %[[B1:.*]] = layout.mbarrier_init {count = 1 : i64}
// CHECK:      layout.mbarrier_arrive %bar {tx = 16384 : i64}
// CHECK-NEXT: layout.tma_load %{{.*}}, %sa, %bar
// CHECK-NEXT: layout.tma_load %{{.*}}, %sb, %bar
// CHECK:      %nstep = arith.muli
// CHECK-NEXT: %{{.*}} = scf.for %kt = %c0 to %nk step %nstep iter_args(%acc0 = %zero) -> ({{.*}}) {
// CHECK:        %parity = arith.remui %round
// CHECK-NEXT:   layout.mbarrier_wait %bar, %parity
// CHECK-NEXT:   %[[D0:.*]] = layout.mma %sa, %sb, %acc0 {async}
// CHECK-NEXT:   %[[W0:.*]] = layout.mma_wait %[[D0]] {pending = 1 : i64}
// CHECK-NEXT:   layout.barrier
// CHECK:        scf.if
// CHECK:          layout.mbarrier_arrive %[[B1]] {tx = 16384 : i64}
// CHECK-NEXT:     layout.tma_load %{{.*}}, %[[SA1]], %[[B1]]
// CHECK-NEXT:     layout.tma_load %{{.*}}, %[[SB1]], %[[B1]]
// CHECK:        layout.mbarrier_wait %[[B1]], %parity
// CHECK-NEXT:   %[[D1:.*]] = layout.mma %[[SA1]], %[[SB1]], %[[W0]] {async}
// CHECK-NEXT:   %[[W1:.*]] = layout.mma_wait %[[D1]] {pending = 1 : i64}
// CHECK-NEXT:   layout.barrier
// CHECK:          layout.mbarrier_arrive %bar {tx = 16384 : i64}
// CHECK:        scf.yield %[[W1]] : {{.*}}
// CHECK:      %[[DONE:.*]] = layout.mma_wait %acc {pending = 0 : i64} : {{.*}}
// CHECK-NOT:  layout.mbarrier_wait
// CHECK:      layout.store %[[DONE]]

// S3-LABEL: func.func @gemm
// S3:      %bar = layout.mbarrier_init
// S3-NEXT: %[[B1:.*]] = layout.mbarrier_init
// S3-NEXT: %[[B2:.*]] = layout.mbarrier_init
// S3:      %rounds_end = arith.addi %c0, %{{.*}} : index
// S3-NEXT: %[[R:.*]] = scf.for %kt = %c0 to %rounds_end step %nstep iter_args(%acc0 = %zero) -> ({{.*}}) {
// S3:        layout.mbarrier_wait %bar, %parity
// S3-NOT:    scf.if %{{.*}} -> (
// S3:        layout.mbarrier_wait %[[B1]], %parity
// S3-NOT:    scf.if %{{.*}} -> (
// S3:        layout.mbarrier_wait %[[B2]], %parity
// S3:        scf.yield
// S3-NEXT: }
// S3-NEXT: layout.mbarrier_wait %bar, %c1_p
// S3-NEXT: %{{.*}} = layout.mma %sa, %sb, %[[R]] {async}
// S3:      layout.mma_wait %acc {pending = 0 : i64}

// S4-LABEL: func.func @gemm
// S4-COUNT-3: layout.mbarrier_arrive %{{[a-z0-9_]+}} {tx = 16384 : i64}
// S4-NEXT:    layout.tma_load
// S4-NEXT:    layout.tma_load
// S4-NEXT:    %nstep = arith.muli %c4_p, %c1 : index
// S4-LABEL: func.func @short
// the prologue loads the two tiles there are (of 3), the loop's steps 2 and 3 are skipped
// S4-COUNT-2: layout.mbarrier_arrive %{{[a-z0-9_]+}} {tx = 16384 : i64}
// S4-NOT:     layout.mbarrier_arrive
// S4:         scf.for

// CUDA-LABEL: gemm_kernel(
// CUDA:       tilec_mbarrier_init(reinterpret_cast<unsigned long long*>(mbar_2), 1u);
// CUDA:       wgmma.wait_group.sync.aligned 1;
// CUDA:       wgmma.wait_group.sync.aligned 0;

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
    }
    %tc = layout.tile %c[%bx, %by] {tile = array<i64: 64, 64>} : !GC -> !TC
    layout.store %acc, %tc : !ACC, !TC
  }
  func.return
}

// the same with 2 K steps (K = 128) and the mma written {async} + mma_wait {pending = 0}
!GA2 = !layout.tensor<bf16, #layout.cute<(64,128):(128,1)>, gmem>
!GB2 = !layout.tensor<bf16, #layout.cute<(128,64):(64,1)>, gmem>
!GC2 = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!TA2 = !layout.tensor<bf16, #layout.cute<(64,64):(128,1)>, gmem>
!TB2 = !layout.tensor<bf16, #layout.cute<(64,64):(64,1)>, gmem>
func.func @short(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA2
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB2
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !S
    %sb = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    %zero = arith.constant dense<0.0> : !ACC
    %acc = scf.for %kt = %c0 to %c2 step %c1 iter_args(%acc0 = %zero) -> (!ACC) {
      %ta = layout.tile %a[%c0, %kt] {tile = array<i64: 64, 64>} : !GA2 -> !TA2
      %tb = layout.tile %b[%kt, %c0] {tile = array<i64: 64, 64>} : !GB2 -> !TB2
      layout.mbarrier_arrive %bar {tx = 16384 : i64}
      layout.tma_load %ta, %sa, %bar : !TA2, !S
      layout.tma_load %tb, %sb, %bar : !TB2, !S
      %phase = arith.remui %kt, %c2 : index
      layout.mbarrier_wait %bar, %phase
      %d = layout.mma %sa, %sb, %acc0 {async} : !S, !S, !ACC
      %w = layout.mma_wait %d {pending = 0 : i64} : !ACC
      layout.barrier
      scf.yield %w : !ACC
    }
    layout.store %acc, %c : !ACC, !GC2
  }
  func.return
}
