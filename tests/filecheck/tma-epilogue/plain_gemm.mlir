// RUN: tilec %s -p "tma-epilogue{all=true}" | filecheck %s
// RUN: tilec %s -p "tma-epilogue{all=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p tma-epilogue | filecheck %s --check-prefix=NONE
// RUN: tilec %s -p split-accumulator,tma-epilogue | filecheck %s --check-prefix=SPLIT
// RUN: tilec %s -p split-accumulator,tma-epilogue --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p warp-specialize,tma-epilogue | filecheck %s --check-prefix=WS
// RUN: tilec %s -p warp-specialize,tma-epilogue --check-equivalence | filecheck %s --check-prefix=EQ
// The plain-loop GEMM (examples/python/gemm_plain.py, 256^3, a 128 x 256 tile) on sm_90.
// The pass takes the stores `split-accumulator` marks (a plain loop's accumulator;
// it runs in `software-pipeline` and `warp-specialize` too), or every candidate with
// `all=true`; unmarked stores stay (NONE).
// With 2 stages asked of its K loop (96 KiB of A and B buffers) a 128 x 256 bf16 C
// buffer (64 KiB) fits: the store becomes a wait for the last TMA store, the store into
// the buffer (stmatrix) and a TMA store of it, and the launch ends waiting for it.
// With 4 stages (192 KiB) it does not fit: left alone, unless `split-accumulator` has
// made two 128-column chunks: then both chunks go through one 128 x 128 buffer, each
// store waiting for the last. After `warp-specialize` (whose ring is made of the chunks'
// buffers) the final wait ends the consumers' region.

// EQ: @gemm: equivalent after
// EQ: @gemm_two_stages: equivalent after

// NONE-NOT: layout.tma_store

// CHECK-LABEL: func.func @gemm(
// CHECK-NOT:     layout.tma_store
// CHECK-LABEL: func.func @gemm_two_stages
// CHECK:         %[[SC:.*]] = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (128,(64,4)):(64,(1,8192))>, smem>
// CHECK-NEXT:    layout.mbarrier_init
// CHECK:         } {tilec.num_stages = 2 : i64}
// CHECK:         layout.tma_store_wait {pending = 0 : i64}
// CHECK-NEXT:    layout.store %{{.*}}, %[[SC]] :
// CHECK-NEXT:    layout.tma_store %[[SC]], %{{.*}} :
// CHECK-NEXT:    layout.tma_store_wait {pending = 0 : i64}
// CHECK-NEXT:  }

// SPLIT-LABEL: func.func @gemm(
// SPLIT:         %[[SC:.*]] = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (128,(64,2)):(64,(1,8192))>, smem>
// SPLIT-COUNT-2: layout.tma_store_wait {pending = 0 : i64}
// SPLIT-NEXT:    layout.store %{{.*}}, %[[SC]] :
// SPLIT-NEXT:    layout.tma_store %[[SC]], %{{.*}} :
// SPLIT:         layout.tma_store_wait {pending = 0 : i64}
// SPLIT-NEXT:  }
// SPLIT-LABEL: func.func @gemm_two_stages
// SPLIT:         layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (128,(64,4)):(64,(1,8192))>, smem>

// WS-LABEL: func.func @gemm(
// WS:         %[[SC:.*]] = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (128,(64,2)):(64,(1,8192))>, smem>
// WS:         layout.warp_specialize warpgroups(2, 1) {
// WS:           layout.tma_store %[[SC]], %{{.*}} :
// WS:           layout.tma_store %[[SC]], %{{.*}} :
// WS-NEXT:      layout.tma_store_wait {pending = 0 : i64}
// WS-NEXT:    }, {
// WS-NOT:       layout.tma_store
// WS-LABEL: func.func @gemm_two_stages
// WS:         layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (128,(64,4)):(64,(1,8192))>, smem>

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

