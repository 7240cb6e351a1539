// software-pipeline on accelerate-matmul's sm_80 loop, whose compute is
// `load sa; load sb; barrier; mma`: the compute writes no memory, so its barrier only
// ordered the fragment loads before the next step's copies into the buffers, which
// the schedule's barrier at the top of each step does. It is dropped (plain and
// rolled), and the fragment loads of a step run on under the mma of the one before.
// @writes keeps its barrier: its compute stores to a shared buffer of its own, and the
// barrier orders that store before the other threads' loads. (`rolled=false` asks
// for the unrolled form, the default for cp.async loops being the rolled one.)
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3 rolled=false}" | filecheck %s
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3 rolled=true}" | filecheck %s --check-prefix=ROLLED
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3 rolled=false}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3 rolled=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3 rolled=false},vectorize-pointers,vectorize-element-loops,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3 rolled=false},vectorize-pointers,vectorize-element-loops,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize" -t cuda | filecheck %s --check-prefix=CUDA

// EQ: @gemm80: equivalent after
// EQ: @writes: equivalent after

// CHECK-LABEL: func.func @gemm80
// CHECK:      scf.for %kt
// CHECK-NEXT:   layout.async_wait {pending = 2 : i64}
// CHECK-NEXT:   layout.barrier
// CHECK-NOT:    layout.barrier
// CHECK:        %fa = layout.load %sa
// CHECK-NEXT:   %fb = layout.load %sb
// CHECK-NEXT:   %d = layout.mma %fa, %fb, %acc0
// CHECK:        layout.async_wait {pending = 2 : i64}
// CHECK-NEXT:   layout.barrier
// CHECK-NOT:    layout.barrier
// CHECK:        layout.mma
// CHECK:      layout.async_wait {pending = 0 : i64}

// ROLLED-LABEL: func.func @gemm80
// ROLLED:      scf.for %kt
// ROLLED:        layout.barrier
// ROLLED-NOT:    layout.barrier
// ROLLED:        layout.mma
// ROLLED:        scf.yield

// CHECK-LABEL: func.func @writes
// CHECK:      scf.for %kt
// CHECK-NEXT:   layout.async_wait {pending = 2 : i64}
// CHECK-NEXT:   layout.barrier
// CHECK:        %fa = layout.load %sa
// CHECK-NEXT:   layout.store %fa, %sc
// CHECK-NEXT:   layout.barrier
// CHECK-NEXT:   %fc = layout.load %sc

// CUDA-LABEL: gemm80_kernel(
// CUDA:       tilec_cp_async_wait<2>();
// CUDA-NEXT:  __syncthreads();
// CUDA-NOT:   __syncthreads();
// CUDA:       mma.sync.aligned.m16n8k16
// CUDA:       tilec_cp_async_wait<2>();
// CUDA-NEXT:  __syncthreads();
// CUDA-NOT:   __syncthreads();
// CUDA:       mma.sync.aligned.m16n8k16
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
      layout.barrier
      %d = layout.mma %fa, %fb, %acc0 : tensor<64x32xbf16, #a>, tensor<32x64xbf16, #b>, !ACC
      scf.yield %d : !ACC
    }
    %tc = layout.tile %C[%bx, %by] {tile = array<i64: 64, 64>} : !GC -> !GC
    layout.store %acc, %tc : !ACC, !GC
  }
  func.return
}

func.func @writes(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) attributes {tilec.target = "sm_80"} {
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
    %sc = layout.alloc : !SA
    %zero = arith.constant dense<0.0> : !ACC
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (!ACC) {
      %ta = layout.tile %A[%bx, %kt] {tile = array<i64: 64, 32>} : !GA -> !TA
      %tb = layout.tile %B[%kt, %by] {tile = array<i64: 32, 64>} : !GB -> !TB
      layout.copy %ta, %sa : !TA, !SA
      layout.copy %tb, %sb : !TB, !SB
      layout.barrier
      %fa = layout.load %sa : !SA -> tensor<64x32xbf16, #a>
      layout.store %fa, %sc : tensor<64x32xbf16, #a>, !SA
      layout.barrier
      %fc = layout.load %sc : !SA -> tensor<64x32xbf16, #a>
      %fb = layout.load %sb : !SB -> tensor<32x64xbf16, #b>
      layout.barrier
      %d = layout.mma %fc, %fb, %acc0 : tensor<64x32xbf16, #a>, tensor<32x64xbf16, #b>, !ACC
      scf.yield %d : !ACC
    }
    %tc = layout.tile %C[%bx, %by] {tile = array<i64: 64, 64>} : !GC -> !GC
    layout.store %acc, %tc : !ACC, !GC
  }
  func.return
}
