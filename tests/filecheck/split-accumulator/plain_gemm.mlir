// RUN: tilec %s -p split-accumulator | filecheck %s
// RUN: tilec %s -p split-accumulator --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "split-accumulator{columns=64}" | filecheck %s --check-prefix=C64
// RUN: tilec %s -p "split-accumulator{columns=64}" --check-equivalence | filecheck %s --check-prefix=EQ
// The plain-loop GEMM (examples/python/gemm_plain.py, 256^3, a 128 x 256 tile, 4 stages
// asked of its K loop) on sm_90: 4 stages of its A and B buffers (4 x 48 KiB) leave
// no room for a 128 x 256 bf16 C buffer (64 KiB) in 227 KiB, but for a 128 x 128 one:
// `auto` splits the accumulator into two column chunks of 128, each one mma per step
// on the chunk's columns of the B buffer, each chunk cast and stored to its tile of C
// (block column by * 2 + c). With 2 stages the 64 KiB buffer fits: left alone. Both
// have their stores marked for `tma-epilogue` ({tilec.tma_epilogue}: a plain loop's
// epilogue). A result that is not only cast and stored (here converted to another
// layout): left alone, unmarked.

// EQ: @gemm: equivalent after
// EQ: @gemm_two_stages: equivalent after
// EQ: @gemm_converted: equivalent after
// EQ: @gemm_scaled: equivalent after

// CHECK-LABEL: func.func @gemm
// CHECK:         %[[SB:.*]] = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,(64,4)):(64,(1,4096))>, smem>
// CHECK:         %[[Z0:[a-z0-9_]+]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>>
// CHECK:         %[[Z1:[a-z0-9_]+]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32
// CHECK:         %[[R0:[a-z0-9_]+]], %[[R1:[a-z0-9_]+]] = scf.for %{{.*}} iter_args(%[[A0:[a-z0-9_]+]] = %[[Z0]], %[[A1:[a-z0-9_]+]] = %[[Z1]])
// CHECK:           layout.tma_load %{{.*}}, %[[SB]], %{{.*}} :
// CHECK:           %[[V0:.*]] = layout.tile %[[SB]][%[[K0:.*]], %[[K0]]] {tile = array<i64: 64, 128>}
// CHECK:           %[[D0:.*]] = layout.mma %{{.*}}, %[[V0]], %[[A0]] :
// CHECK:           %[[V1:.*]] = layout.tile %[[SB]][%[[K0]], %{{.*}}] {tile = array<i64: 64, 128>}
// CHECK:           %[[D1:.*]] = layout.mma %{{.*}}, %[[V1]], %[[A1]] :
// CHECK:           scf.yield %[[D0]], %[[D1]]
// CHECK:         } {tilec.num_stages = 4 : i64}
// CHECK:         %[[H0:.*]] = arith.truncf %[[R0]] : tensor<128x128xf32
// CHECK:         %[[T0:.*]] = layout.tile %{{.*}}[%{{.*}}, %{{.*}}] {tile = array<i64: 128, 128>}
// CHECK:         layout.store %[[H0]], %[[T0]] {tilec.tma_epilogue} :
// CHECK:         %[[H1:.*]] = arith.truncf %[[R1]] : tensor<128x128xf32
// CHECK:         layout.store %[[H1]], %{{.*}} {tilec.tma_epilogue} :
// CHECK-NOT:     layout.store
// CHECK-LABEL: func.func @gemm_two_stages
// CHECK:         layout.mma %{{.*}} : {{.*}}tensor<128x256xf32
// CHECK-NOT:     tensor<128x128xf32
// CHECK:         layout.store %{{.*}} {tilec.tma_epilogue} : tensor<128x256xbf16
// CHECK-LABEL: func.func @gemm_converted
// CHECK:         layout.mma %{{.*}} : {{.*}}tensor<128x256xf32
// CHECK-NOT:     tensor<128x128xf32
// CHECK-NOT:     tilec.tma_epilogue

// An elementwise epilogue (times a splat 2) is cloned per chunk, its splat narrowed:
// CHECK-LABEL: func.func @gemm_scaled
// CHECK:         %[[S0:.*]], %[[S1:[a-z0-9_]+]] = scf.for
// CHECK:         %[[TWO:.*]] = arith.constant dense<2.000000e+00> : tensor<128x128xf32
// CHECK-NEXT:    %[[M0:.*]] = arith.mulf %[[S0]], %[[TWO]] : tensor<128x128xf32
// CHECK-NEXT:    arith.truncf %[[M0]]
// CHECK:         layout.store
// CHECK:         arith.mulf %[[S1]], %{{.*}} : tensor<128x128xf32
// CHECK:         layout.store
// CHECK-NOT:     layout.store

// C64-LABEL: func.func @gemm
// C64-COUNT-4:   layout.mma %{{.*}} tensor<128x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [8, 1], instrShape = [64, 64, 16]>>
// C64-COUNT-4:   layout.store %{{.*}} {tilec.tma_epilogue} : tensor<128x64xbf16
// C64-LABEL: func.func @gemm_two_stages
// C64-COUNT-4:   layout.mma %{{.*}} tensor<128x64xf32

!A = !layout.tensor<bf16, #layout.cute<(256,256):(256,1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(128,64):(256,1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<(64,256):(256,1)>, gmem>
!TC = !layout.tensor<bf16, #layout.cute<(128,256):(256,1)>, gmem>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (128,64):(64,1)>, smem>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,(64,4)):(64,(1,4096))>, smem>
#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>
#blk = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}>

func.func @gemm(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<bf16, align 16>) {
  %A = layout.view %pa : !layout.ptr<bf16, align 16> -> !A
  %B = layout.view %pb : !layout.ptr<bf16, align 16> -> !A
  %C = layout.view %pc : !layout.ptr<bf16, align 16> -> !A
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %nk = arith.constant 4 : index
  layout.launch grid(%c2, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    %bar = layout.mbarrier_init {count = 1 : i64}
    %zero = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #mma>
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (tensor<128x256xf32, #mma>) {
      layout.mbarrier_arrive %bar {tx = 49152 : i64}
      %ta = layout.tile %A[%bx, %kt] {tile = array<i64: 128, 64>} : !A -> !TA
      layout.tma_load %ta, %sa, %bar : !TA, !SA
      %tb = layout.tile %B[%kt, %by] {tile = array<i64: 64, 256>} : !A -> !TB
      layout.tma_load %tb, %sb, %bar : !TB, !SB
      %phase = arith.remui %kt, %c2 : index
      layout.mbarrier_wait %bar, %phase
      %d = layout.mma %sa, %sb, %acc0 : !SA, !SB, tensor<128x256xf32, #mma>
      layout.barrier
      scf.yield %d : tensor<128x256xf32, #mma>
    } {tilec.num_stages = 4 : i64}
    %h = arith.truncf %acc : tensor<128x256xf32, #mma> to tensor<128x256xbf16, #mma>
    %tc = layout.tile %C[%bx, %by] {tile = array<i64: 128, 256>} : !A -> !TC
    layout.store %h, %tc : tensor<128x256xbf16, #mma>, !TC
  }
  func.return
}

func.func @gemm_two_stages(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<bf16, align 16>) {
  %A = layout.view %pa : !layout.ptr<bf16, align 16> -> !A
  %B = layout.view %pb : !layout.ptr<bf16, align 16> -> !A
  %C = layout.view %pc : !layout.ptr<bf16, align 16> -> !A
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %nk = arith.constant 4 : index
  layout.launch grid(%c2, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    %bar = layout.mbarrier_init {count = 1 : i64}
    %zero = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #mma>
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (tensor<128x256xf32, #mma>) {
      layout.mbarrier_arrive %bar {tx = 49152 : i64}
      %ta = layout.tile %A[%bx, %kt] {tile = array<i64: 128, 64>} : !A -> !TA
      layout.tma_load %ta, %sa, %bar : !TA, !SA
      %tb = layout.tile %B[%kt, %by] {tile = array<i64: 64, 256>} : !A -> !TB
      layout.tma_load %tb, %sb, %bar : !TB, !SB
      %phase = arith.remui %kt, %c2 : index
      layout.mbarrier_wait %bar, %phase
      %d = layout.mma %sa, %sb, %acc0 : !SA, !SB, tensor<128x256xf32, #mma>
      layout.barrier
      scf.yield %d : tensor<128x256xf32, #mma>
    } {tilec.num_stages = 2 : i64}
    %h = arith.truncf %acc : tensor<128x256xf32, #mma> to tensor<128x256xbf16, #mma>
    %tc = layout.tile %C[%bx, %by] {tile = array<i64: 128, 256>} : !A -> !TC
    layout.store %h, %tc : tensor<128x256xbf16, #mma>, !TC
  }
  func.return
}

func.func @gemm_converted(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<bf16, align 16>) {
  %A = layout.view %pa : !layout.ptr<bf16, align 16> -> !A
  %B = layout.view %pb : !layout.ptr<bf16, align 16> -> !A
  %C = layout.view %pc : !layout.ptr<bf16, align 16> -> !A
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %nk = arith.constant 4 : index
  layout.launch grid(%c2, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    %bar = layout.mbarrier_init {count = 1 : i64}
    %zero = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #mma>
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (tensor<128x256xf32, #mma>) {
      layout.mbarrier_arrive %bar {tx = 49152 : i64}
      %ta = layout.tile %A[%bx, %kt] {tile = array<i64: 128, 64>} : !A -> !TA
      layout.tma_load %ta, %sa, %bar : !TA, !SA
      %tb = layout.tile %B[%kt, %by] {tile = array<i64: 64, 256>} : !A -> !TB
      layout.tma_load %tb, %sb, %bar : !TB, !SB
      %phase = arith.remui %kt, %c2 : index
      layout.mbarrier_wait %bar, %phase
      %d = layout.mma %sa, %sb, %acc0 : !SA, !SB, tensor<128x256xf32, #mma>
      layout.barrier
      scf.yield %d : tensor<128x256xf32, #mma>
    } {tilec.num_stages = 4 : i64}
    %h = arith.truncf %acc : tensor<128x256xf32, #mma> to tensor<128x256xbf16, #mma>
    %hb = layout.convert_layout %h : tensor<128x256xbf16, #mma> -> tensor<128x256xbf16, #blk>
    %tc = layout.tile %C[%bx, %by] {tile = array<i64: 128, 256>} : !A -> !TC
    layout.store %hb, %tc : tensor<128x256xbf16, #blk>, !TC
  }
  func.return
}

func.func @gemm_scaled(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<bf16, align 16>) {
  %A = layout.view %pa : !layout.ptr<bf16, align 16> -> !A
  %B = layout.view %pb : !layout.ptr<bf16, align 16> -> !A
  %C = layout.view %pc : !layout.ptr<bf16, align 16> -> !A
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %nk = arith.constant 4 : index
  layout.launch grid(%c2, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    %bar = layout.mbarrier_init {count = 1 : i64}
    %zero = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #mma>
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (tensor<128x256xf32, #mma>) {
      layout.mbarrier_arrive %bar {tx = 49152 : i64}
      %ta = layout.tile %A[%bx, %kt] {tile = array<i64: 128, 64>} : !A -> !TA
      layout.tma_load %ta, %sa, %bar : !TA, !SA
      %tb = layout.tile %B[%kt, %by] {tile = array<i64: 64, 256>} : !A -> !TB
      layout.tma_load %tb, %sb, %bar : !TB, !SB
      %phase = arith.remui %kt, %c2 : index
      layout.mbarrier_wait %bar, %phase
      %d = layout.mma %sa, %sb, %acc0 : !SA, !SB, tensor<128x256xf32, #mma>
      layout.barrier
      scf.yield %d : tensor<128x256xf32, #mma>
    } {tilec.num_stages = 4 : i64}
    %two = arith.constant dense<2.000000e+00> : tensor<128x256xf32, #mma>
    %scaled = arith.mulf %acc, %two : tensor<128x256xf32, #mma>
    %h = arith.truncf %scaled : tensor<128x256xf32, #mma> to tensor<128x256xbf16, #mma>
    %tc = layout.tile %C[%bx, %by] {tile = array<i64: 128, 256>} : !A -> !TC
    layout.store %h, %tc : tensor<128x256xbf16, #mma>, !TC
  }
  func.return
}
