// software-pipeline{rolled=true} on the sm_80 GEMM loop (the input of cp_async.mlir:
// block-level copies made cp.async by `distribute` and `vectorize`, mma.sync): each
// buffer one staged allocation (S x 2048 elements), the loop carrying the stage besides
// the accumulator (cp.async counts commit groups, so no phase); each step waits until
// its own tile's groups have landed (pending = (S-2) x 2), meets the block, copies the
// tile S-1 ahead (past the end the last one again) into the stage the step before read,
// then computes on its own stage; async_wait {pending = 0} after the loop.
// The default (`rolled=auto`) takes this form for a cp.async loop.
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3 rolled=true}" | filecheck %s
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3}" | filecheck %s
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3 rolled=auto}" | filecheck %s
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=2 rolled=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3 rolled=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=4 rolled=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3 rolled=true},vectorize-pointers,vectorize-element-loops,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3 rolled=true},vectorize-pointers,vectorize-element-loops,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize" -t cuda | filecheck %s --check-prefix=CUDA

// EQ: @gemm80: equivalent after

// CHECK-LABEL: func.func @gemm80
// CHECK:      %sa = layout.alloc : !layout.tensor<bf16, #layout.cute<(3,64,32):(2048,32,1)>, smem>
// CHECK-NEXT: %sb = layout.alloc : !layout.tensor<bf16, #layout.cute<(3,32,64):(2048,64,1)>, smem>
// CHECK:      layout.slice %sa[%c0_p, _, _]
// CHECK:      layout.copy_async
// CHECK:      layout.slice %sa[%c1_p, _, _]
// CHECK:      scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero, %stage = %c0_p)
// CHECK-NEXT:   %[[SA:.*]] = layout.slice %sa[%stage, _, _]
// CHECK-NEXT:   %[[SB:.*]] = layout.slice %sb[%stage, _, _]
// CHECK:        %ahead = arith.select
// CHECK-NEXT:   layout.async_wait {pending = 2 : i64}
// CHECK-NEXT:   layout.barrier
// CHECK:        layout.slice %sa[%ahead, _, _]
// CHECK:        layout.copy_async
// CHECK:        layout.copy_async
// CHECK:        layout.load %[[SA]]
// CHECK:        layout.load %[[SB]]
// CHECK:        layout.mma
// CHECK:        scf.yield
// CHECK:      layout.async_wait {pending = 0 : i64}

// CUDA:       #pragma unroll 1
// CUDA-NEXT:  for (int kt = 0; kt < 4; ++kt) {
// CUDA:         tilec_cp_async_wait<2>();
// CUDA-NOT:     tilec_cp_async_wait<2>();
// CUDA:         mma.sync.aligned
// CUDA-NOT:     tilec_cp_async_wait<2>();
// CUDA:       tilec_cp_async_wait<0>();

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
      %fa = layout.load %sa : !SA -> tensor<64x32xbf16, #a>
      %fb = layout.load %sb : !SB -> tensor<32x64xbf16, #b>
      %d = layout.mma %fa, %fb, %acc0 : tensor<64x32xbf16, #a>, tensor<32x64xbf16, #b>, !ACC
      layout.barrier
      scf.yield %d : !ACC
    }
    %tc = layout.tile %C[%bx, %by] {tile = array<i64: 64, 64>} : !GC -> !GC
    layout.store %acc, %tc : !ACC, !GC
  }
  func.return
}
