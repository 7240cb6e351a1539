// An mbarrier array and a staged shared buffer lowered: the barriers are one
// `memref<3xi64, 3>`, thread 0 inits each word; `mbarrier_at` and the TMA load's stage
// are `memref.subview`s at run-time offsets (the stage's offset a multiple of the
// 1024-byte alignment the swizzle needs); the CUDA prints them as pointers into the
// buffers, and the same program runs equal before and after.
// RUN: tilec %s -p lower-to-gpu | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p lower-to-gpu,canonicalize -t cuda | filecheck %s --check-prefix=CUDA
// EQ: @staged_ring: equivalent after

// CHECK-LABEL: func.func @staged_ring
// CHECK:      %smem = memref.alloca() {alignment = 1024 : i64} : memref<6144xf32, 3 : i64>
// CHECK:      %mbars = memref.alloca() {alignment = 8 : i64} : memref<3xi64, 3 : i64>
// CHECK:      memref.subview %mbars[0] [1] [1]
// CHECK:      cuda.mbarrier_init
// CHECK:      scf.for
// CHECK:      %mbar = memref.subview %mbars[%{{.*}}] [1] [1] : memref<3xi64, 3 : i64> to memref<1xi64, strided<[1], offset: ?>, 3 : i64>
// CHECK:      memref.subview %smem[%{{.*}}] [2048] [1] : memref<6144xf32, 3 : i64> to memref<2048xf32, strided<[1], offset: ?>, 3 : i64>
// CHECK:      cuda.tma_load

// CUDA-LABEL: staged_ring_kernel
// CUDA:       __shared__ alignas(1024) float smem[6144];
// CUDA:       long long mbars[3];
// CUDA:       long long* const mbar = mbars + i;
// CUDA:       float* const {{.*}} = smem + {{.*}};

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,32):(256,1)>, gmem>
!SS = !layout.tensor<f32, #layout.composed<swizzle<3,2,3> o 0 o (3,64,32):(2048,32,1)>, smem>
!S = !layout.tensor<f32, #layout.composed<swizzle<3,2,3> o 0 o (64,32):(32,1)>, smem>
func.func @staged_ring(%src: !layout.ptr<f32, align 16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %g = layout.view %src : !layout.ptr<f32, align 16> -> !G
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %buf = layout.alloc : !SS
    %bars = layout.mbarrier_array {count = 1 : i64, stages = 3 : i64}
    scf.for %i = %c0 to %c3 step %c1 {
      %s = layout.slice %buf[%i, _, _] : !SS -> !S
      %b = layout.mbarrier_at %bars[%i] : !layout.mbarriers<3>
      %t = layout.tile %g[%i, %i] {tile = array<i64: 64, 32>} : !G -> !T
      layout.mbarrier_arrive %b {tx = 8192 : i64}
      layout.tma_load %t, %s, %b : !T, !S
      layout.mbarrier_wait %b, %c0
    }
  }
  func.return
}
