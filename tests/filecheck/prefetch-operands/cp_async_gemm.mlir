// prefetch-operands on the sm_80 GEMM loop of software-pipeline's cp.async form (the
// single-buffered loop accelerate-matmul makes: two 16-deep K slices per step, slice
// 1's fragments loaded before slice 0's mma, a barrier before the last mma). After
// software-pipeline each unrolled step is `async_wait; barrier; copy_async ahead;
// load slice 0; load slice 1; mma 0; mma 1`. The boundary between the unrolled steps
// moves above the step before's last mma: `mma 0; async_wait; barrier; load slice 0
// of the next stage; mma 1`, the copies after it. With rotate=true the boundary at the
// top of the loop body moves round the back edge too: before the loop (at lb) and
// before the body's last mma, the fragments carried as iter_args. (`rolled=false`:
// the unrolled form; software-pipeline's default rolls cp.async loops.)
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=2 rolled=false},prefetch-operands" | filecheck %s
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=2 rolled=false},prefetch-operands{rotate=true}" | filecheck %s --check-prefix=ROT
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=2 rolled=false},prefetch-operands{enabled=false}" | filecheck %s --check-prefix=OFF
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=2 rolled=false},prefetch-operands" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3 rolled=false},prefetch-operands" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=2 rolled=false},prefetch-operands{rotate=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3 rolled=false},prefetch-operands{rotate=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=4 rolled=false},prefetch-operands{rotate=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3 rolled=false},vectorize-pointers,vectorize-element-loops,remove-layout-conversions,prefetch-operands{rotate=true},lower-convert-layout,lower-to-gpu,canonicalize" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=2 rolled=false},vectorize-pointers,vectorize-element-loops,remove-layout-conversions,prefetch-operands,lower-convert-layout,lower-to-gpu,canonicalize" -t cuda | filecheck %s --check-prefix=CUDA
// The rolled form (one step per iteration, the stage carried): the copies of a step
// write stage `ahead` = select(stage == 0, S-1, stage-1) of the staged buffers, the
// first operands read `stage`; the two provably differ, so the loads may move above
// the copies and the boundary rotates round the back edge, the next stage computed
// before the last mma. A rolled loop (`{tilec.unroll = 1}`) is rotated by default.
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3 rolled=true},prefetch-operands" | filecheck %s --check-prefix=ROLLED
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3},prefetch-operands" | filecheck %s --check-prefix=ROLLED
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=2 rolled=true},prefetch-operands" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3 rolled=true},prefetch-operands{rotate=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=4 rolled=true},vectorize-pointers,vectorize-element-loops,remove-layout-conversions,prefetch-operands{rotate=true},lower-convert-layout,lower-to-gpu,canonicalize" --check-equivalence | filecheck %s --check-prefix=EQ

// EQ: @gemm80: equivalent after

// CHECK-LABEL: func.func @gemm80
// CHECK:      scf.for %kt = %c0 to %nk step %nstep iter_args(%acc0 = %zero)
// CHECK-NEXT:   layout.async_wait {pending = 0 : i64}
// CHECK-NEXT:   layout.barrier
// CHECK:        layout.copy_async
// CHECK:        layout.copy_async
// CHECK:        %fa0 = layout.load %ka0
// CHECK:        %fb0 = layout.load %kb0
// CHECK:        %fa1 = layout.load %ka1
// CHECK:        %fb1 = layout.load %kb1
// CHECK-NEXT:   %d0 = layout.mma %fa0, %fb0, %acc0
// CHECK-NEXT:   layout.async_wait {pending = 0 : i64}
// CHECK-NEXT:   layout.barrier
// CHECK-NEXT:   %ka0_1 = layout.tile %sa_1[%c0, %c0]
// CHECK-NEXT:   %kb0_1 = layout.tile %sb_1[%c0, %c0]
// CHECK-NEXT:   %fa0_1 = layout.load %ka0_1
// CHECK-NEXT:   %fb0_1 = layout.load %kb0_1
// CHECK-NEXT:   %d1 = layout.mma %fa1, %fb1, %d0
// CHECK-NOT:    layout.barrier
// CHECK:        layout.copy_async
// CHECK:        layout.copy_async
// CHECK:        %fa1_1 = layout.load %ka1_1
// CHECK:        %fb1_1 = layout.load %kb1_1
// CHECK-NEXT:   %d0_1 = layout.mma %fa0_1, %fb0_1, %d1
// CHECK-NEXT:   %d1_1 = layout.mma %fa1_1, %fb1_1, %d0_1
// CHECK-NEXT:   scf.yield %d1_1

// ROT-LABEL: func.func @gemm80
// ROT:        layout.copy_async
// ROT:        layout.async_wait {pending = 0 : i64}
// ROT-NEXT:   layout.barrier
// ROT-NEXT:   %ka0 = layout.tile %sa[%c0, %c0]
// ROT-NEXT:   %kb0 = layout.tile %sb[%c0, %c0]
// ROT-NEXT:   %fa0 = layout.load %ka0
// ROT-NEXT:   %fb0 = layout.load %kb0
// ROT-NEXT:   %acc, %{{.*}}, %{{.*}} = scf.for %kt = %c0 to %nk step %nstep iter_args(%acc0 = %zero, %[[A:.*]] = %fa0, %[[B:.*]] = %fb0)
// ROT-NOT:      layout.barrier
// ROT:          layout.copy_async
// ROT:          layout.copy_async
// ROT:          %d0 = layout.mma %[[A]], %[[B]], %acc0
// ROT-NEXT:     layout.async_wait {pending = 0 : i64}
// ROT-NEXT:     layout.barrier
// ROT:          %d1 = layout.mma %fa1, %fb1, %d0
// ROT:          %d0_1 = layout.mma
// ROT-NEXT:     layout.async_wait {pending = 0 : i64}
// ROT-NEXT:     layout.barrier
// ROT-NEXT:     %[[TA:.*]] = layout.tile %sa[%c0, %c0]
// ROT-NEXT:     %[[TB:.*]] = layout.tile %sb[%c0, %c0]
// ROT-NEXT:     %[[NA:.*]] = layout.load %[[TA]]
// ROT-NEXT:     %[[NB:.*]] = layout.load %[[TB]]
// ROT-NEXT:     %d1_1 = layout.mma %fa1_1, %fb1_1, %d0_1
// ROT-NEXT:     scf.yield %d1_1, %[[NA]], %[[NB]]
// ROT:        layout.async_wait {pending = 0 : i64}
// ROT:        layout.store %acc

// ROLLED-LABEL: func.func @gemm80
// ROLLED:        layout.async_wait {pending = 2 : i64}
// ROLLED-NEXT:   layout.barrier
// ROLLED-NEXT:   %[[S0A:.*]] = layout.slice %sa[%c0_p, _, _]
// ROLLED-NEXT:   %[[S0B:.*]] = layout.slice %sb[%c0_p, _, _]
// ROLLED-NEXT:   %ka0 = layout.tile %[[S0A]][%c0, %c0]
// ROLLED-NEXT:   %kb0 = layout.tile %[[S0B]][%c0, %c0]
// ROLLED-NEXT:   %fa0 = layout.load %ka0
// ROLLED-NEXT:   %fb0 = layout.load %kb0
// ROLLED-NEXT:   scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero, %stage = %c0_p, %[[A:.*]] = %fa0, %[[B:.*]] = %fb0)
// ROLLED:          %ahead = arith.select
// ROLLED-NOT:      layout.barrier
// ROLLED:          layout.copy_async
// ROLLED:          layout.copy_async
// ROLLED:          %d0 = layout.mma %[[A]], %[[B]], %acc0
// ROLLED-NEXT:     %[[INC:.*]] = arith.addi %stage, %c1_p
// ROLLED-NEXT:     %[[WRAP:.*]] = arith.cmpi eq, %[[INC]], %c3_p
// ROLLED-NEXT:     %[[NEXT:.*]] = arith.select %[[WRAP]], %c0_p, %[[INC]]
// ROLLED-NEXT:     layout.async_wait {pending = 2 : i64}
// ROLLED-NEXT:     layout.barrier
// ROLLED-NEXT:     %[[NA:.*]] = layout.slice %sa[%[[NEXT]], _, _]
// ROLLED-NEXT:     %[[NB:.*]] = layout.slice %sb[%[[NEXT]], _, _]
// ROLLED:          %[[FA:.*]] = layout.load
// ROLLED-NEXT:     %[[FB:.*]] = layout.load
// ROLLED-NEXT:     %d1 = layout.mma %fa1, %fb1, %d0
// ROLLED-NEXT:     scf.yield %d1, %[[NEXT]], %[[FA]], %[[FB]]

// OFF-LABEL: func.func @gemm80
// OFF:        %fa1 = layout.load %ka1
// OFF:        %d0 = layout.mma %fa0, %fb0, %acc0
// OFF-NEXT:   %d1 = layout.mma %fa1, %fb1, %d0
// OFF:        layout.async_wait {pending = 0 : i64}
// OFF-NEXT:   layout.barrier

// CUDA-LABEL: gemm80_kernel
// CUDA:      for (int kt = 0; kt < 4; kt += 2) {
// CUDA-NEXT:   tilec_cp_async_wait<0>();
// CUDA-NEXT:   __syncthreads();
// CUDA:        mma.sync
// CUDA:        tilec_cp_async_wait<0>();
// CUDA-NEXT:   __syncthreads();
// CUDA:        ldmatrix
// CUDA:        mma.sync
// CUDA:        tilec_cp_async_commit();

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
!GA = !layout.tensor<bf16, #layout.cute<(64,128):(128,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(128,64):(64,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(64,32):(128,1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<(32,64):(64,1)>, gmem>
!SA = !layout.tensor<bf16, #layout.cute<(64,32):(32,1)>, smem>
!SB = !layout.tensor<bf16, #layout.cute<(32,64):(64,1)>, smem>
!KA = !layout.tensor<bf16, #layout.cute<(64,16):(32,1)>, smem>
!KB = !layout.tensor<bf16, #layout.cute<(16,64):(64,1)>, smem>
!ACC = tensor<64x64xf32, #mma>
func.func @gemm80(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) attributes {tilec.target = "sm_80"} {
  %A = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %B = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %C = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %nk = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    %zero = arith.constant dense<0.0> : !ACC
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (!ACC) {
      %ta = layout.tile %A[%bx, %kt] {tile = array<i64: 64, 32>} : !GA -> !TA
      %tb = layout.tile %B[%kt, %by] {tile = array<i64: 32, 64>} : !GB -> !TB
      layout.copy %ta, %sa : !TA, !SA
      layout.copy %tb, %sb : !TB, !SB
      layout.barrier
      %ka0 = layout.tile %sa[%c0, %c0] {tile = array<i64: 64, 16>} : !SA -> !KA
      %kb0 = layout.tile %sb[%c0, %c0] {tile = array<i64: 16, 64>} : !SB -> !KB
      %fa0 = layout.load %ka0 : !KA -> tensor<64x16xbf16, #a>
      %fb0 = layout.load %kb0 : !KB -> tensor<16x64xbf16, #b>
      %ka1 = layout.tile %sa[%c0, %c1] {tile = array<i64: 64, 16>} : !SA -> !KA
      %kb1 = layout.tile %sb[%c1, %c0] {tile = array<i64: 16, 64>} : !SB -> !KB
      %fa1 = layout.load %ka1 : !KA -> tensor<64x16xbf16, #a>
      %fb1 = layout.load %kb1 : !KB -> tensor<16x64xbf16, #b>
      %d0 = layout.mma %fa0, %fb0, %acc0 : tensor<64x16xbf16, #a>, tensor<16x64xbf16, #b>, !ACC
      layout.barrier
      %d1 = layout.mma %fa1, %fb1, %d0 : tensor<64x16xbf16, #a>, tensor<16x64xbf16, #b>, !ACC
      scf.yield %d1 : !ACC
    }
    %tc = layout.tile %C[%bx, %by] {tile = array<i64: 64, 64>} : !GC -> !GC
    layout.store %acc, %tc : !ACC, !GC
  }
  func.return
}
