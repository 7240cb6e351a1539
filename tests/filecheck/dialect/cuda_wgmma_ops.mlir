// The GPU-level warpgroup MMA ops of the `cuda` dialect (dialects/cuda_wgmma.py):
// round trip and verifier errors.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: tilec %S/Inputs/cuda_wgmma_ops.mlir | tilec | filecheck %s

// CHECK-LABEL: func.func @k
// CHECK:      cuda.wgmma_fence
// CHECK-NEXT: %d, %d_1, %d_2, %d_3 = cuda.wgmma %a[%ia], %b[%ib], %c, %c, %c, %c {n = 8 : i64, a_desc = array<i64: 128, 0, 1024>, b_desc = array<i64: 0, 128, 256>} : memref<1024xbf16, 3 : i64>, memref<128xbf16, 3 : i64>, f32, f32, f32, f32 -> f32, f32, f32, f32
// CHECK-NEXT: cuda.wgmma %h[%ia], %h[%ib], {{.*}} {n = 16 : i64, a_desc = array<i64: 64, 0, 512>, b_desc = array<i64: 32, 0, 256>} : memref<2048xf16, 3 : i64>, memref<2048xf16, 3 : i64>, f32, f32, f32, f32, f32, f32, f32, f32 -> f32, f32, f32, f32, f32, f32, f32, f32
// CHECK-NEXT: cuda.wgmma %a[%ia], %a[%ib], {{.*}} {n = 8 : i64, a_desc = array<i64: 128, 0, 1024>, b_desc = array<i64: 128, 2048, 1024>, a_mn_major, b_mn_major} :
// CHECK:      cuda.wgmma %q[%ia], %p[%ib], %c, %c, %c, %c {n = 8 : i64, a_desc = array<i64: 128, 0, 1024>, b_desc = array<i64: 128, 0, 1024>} : memref<2048xf8E4M3FN, 3 : i64>, memref<2048xf8E5M2, 3 : i64>, f32, f32, f32, f32 -> f32, f32, f32, f32
// CHECK:      cuda.wgmma_rs %a[%ib], %x, %x, %x, %x, %x, %x, %x, %x, %c, %c, %c, %c {n = 8 : i64, b_desc = array<i64: 128, 0, 1024>, b_mn_major} : memref<1024xbf16, 3 : i64>, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, f32, f32, f32, f32 -> f32, f32, f32, f32
// CHECK-NEXT: cuda.wgmma_commit_group
// CHECK-NEXT: %e, %e_1, %e_2, %e_3 = cuda.wgmma_wait_group 1, %d, %d_1, %d_2, %d_3 : f32, f32, f32, f32 -> f32, f32, f32, f32
// CHECK-NEXT: cuda.wgmma_wait_group 0
// CHECK-NEXT: %c2 = arith.addf %c, %c : f32
// CHECK-NEXT: %e2, %e2_1, %e2_2, %e2_3 = cuda.wgmma_wait_group 0, %e, %e_1, %e_2, %e_3 : f32, f32, f32, f32 -> f32, f32, f32, f32 after %c, %c2 : f32, f32

func.func @global(%i: index, %c: f32, %g: memref<1024xbf16>) {
  %a = memref.alloca() {alignment = 1024 : i64} : memref<1024xbf16, 3 : i64>
  %f = memref.alloca() {alignment = 1024 : i64} : memref<1024xf32, 3 : i64>
  %u = memref.alloca() : memref<1024xbf16, 3 : i64>
  // expected-error @+1 {{'cuda.wgmma' operand a must be a 1-D shared-memory memref, got memref<1024xbf16>}}
  %d:4 = cuda.wgmma %g[%i], %a[%i], %c, %c, %c, %c {n = 8 : i64, a_desc = array<i64: 0, 128, 256>, b_desc = array<i64: 0, 128, 256>} : memref<1024xbf16>, memref<1024xbf16, 3 : i64>, f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}

// -----

func.func @f32_operand(%i: index, %c: f32, %g: memref<1024xbf16>) {
  %a = memref.alloca() {alignment = 1024 : i64} : memref<1024xbf16, 3 : i64>
  %f = memref.alloca() {alignment = 1024 : i64} : memref<1024xf32, 3 : i64>
  %u = memref.alloca() : memref<1024xbf16, 3 : i64>
  // expected-error @+1 {{'cuda.wgmma' multiplies bf16, f16, f8E4M3FN or f8E5M2, got b of f32}}
  %d:4 = cuda.wgmma %a[%i], %f[%i], %c, %c, %c, %c {n = 8 : i64, a_desc = array<i64: 0, 128, 256>, b_desc = array<i64: 0, 128, 256>} : memref<1024xbf16, 3 : i64>, memref<1024xf32, 3 : i64>, f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}

// -----

func.func @desc_len(%i: index, %c: f32, %g: memref<1024xbf16>) {
  %a = memref.alloca() {alignment = 1024 : i64} : memref<1024xbf16, 3 : i64>
  %f = memref.alloca() {alignment = 1024 : i64} : memref<1024xf32, 3 : i64>
  %u = memref.alloca() : memref<1024xbf16, 3 : i64>
  // expected-error @+1 {{'cuda.wgmma' a_desc is [swizzle, LBO, SBO] in bytes, got [128, 0]}}
  %d:4 = cuda.wgmma %a[%i], %a[%i], %c, %c, %c, %c {n = 8 : i64, a_desc = array<i64: 128, 0>, b_desc = array<i64: 0, 128, 256>} : memref<1024xbf16, 3 : i64>, memref<1024xbf16, 3 : i64>, f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}

// -----

func.func @swizzle(%i: index, %c: f32, %g: memref<1024xbf16>) {
  %a = memref.alloca() {alignment = 1024 : i64} : memref<1024xbf16, 3 : i64>
  %f = memref.alloca() {alignment = 1024 : i64} : memref<1024xf32, 3 : i64>
  %u = memref.alloca() : memref<1024xbf16, 3 : i64>
  // expected-error @+1 {{'cuda.wgmma' b_desc: wgmma swizzle must be 0, 32, 64 or 128 bytes, got 16}}
  %d:4 = cuda.wgmma %a[%i], %a[%i], %c, %c, %c, %c {n = 8 : i64, a_desc = array<i64: 0, 128, 256>, b_desc = array<i64: 16, 0, 256>} : memref<1024xbf16, 3 : i64>, memref<1024xbf16, 3 : i64>, f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}

// -----

func.func @sbo(%i: index, %c: f32, %g: memref<1024xbf16>) {
  %a = memref.alloca() {alignment = 1024 : i64} : memref<1024xbf16, 3 : i64>
  %f = memref.alloca() {alignment = 1024 : i64} : memref<1024xf32, 3 : i64>
  %u = memref.alloca() : memref<1024xbf16, 3 : i64>
  // expected-error @+1 {{'cuda.wgmma' a_desc: wgmma descriptor sbo must be a multiple of 16 below 2^18 bytes, got 100}}
  %d:4 = cuda.wgmma %a[%i], %a[%i], %c, %c, %c, %c {n = 8 : i64, a_desc = array<i64: 0, 128, 100>, b_desc = array<i64: 0, 128, 256>} : memref<1024xbf16, 3 : i64>, memref<1024xbf16, 3 : i64>, f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}

// -----

func.func @align(%i: index, %c: f32, %g: memref<1024xbf16>) {
  %a = memref.alloca() {alignment = 1024 : i64} : memref<1024xbf16, 3 : i64>
  %f = memref.alloca() {alignment = 1024 : i64} : memref<1024xf32, 3 : i64>
  %u = memref.alloca() : memref<1024xbf16, 3 : i64>
  // expected-error @+1 {{'cuda.wgmma' operand b with a 128-byte swizzle needs its buffer aligned to 1024 bytes, but its memref.alloca asks for 16}}
  %d:4 = cuda.wgmma %a[%i], %u[%i], %c, %c, %c, %c {n = 8 : i64, a_desc = array<i64: 128, 0, 1024>, b_desc = array<i64: 128, 0, 1024>} : memref<1024xbf16, 3 : i64>, memref<1024xbf16, 3 : i64>, f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}

// -----

func.func @n(%i: index, %c: f32, %g: memref<1024xbf16>) {
  %a = memref.alloca() {alignment = 1024 : i64} : memref<1024xbf16, 3 : i64>
  %f = memref.alloca() {alignment = 1024 : i64} : memref<1024xf32, 3 : i64>
  %u = memref.alloca() : memref<1024xbf16, 3 : i64>
  // expected-error @+1 {{'cuda.wgmma' n must be a multiple of 8 in [8, 256], got 12}}
  %d:6 = cuda.wgmma %a[%i], %a[%i], %c, %c, %c, %c, %c, %c {n = 12 : i64, a_desc = array<i64: 0, 128, 256>, b_desc = array<i64: 0, 128, 256>} : memref<1024xbf16, 3 : i64>, memref<1024xbf16, 3 : i64>, f32, f32, f32, f32, f32, f32 -> f32, f32, f32, f32, f32, f32
  func.return
}

// -----

func.func @count(%i: index, %c: f32, %g: memref<1024xbf16>) {
  %a = memref.alloca() {alignment = 1024 : i64} : memref<1024xbf16, 3 : i64>
  %f = memref.alloca() {alignment = 1024 : i64} : memref<1024xf32, 3 : i64>
  %u = memref.alloca() : memref<1024xbf16, 3 : i64>
  // expected-error @+1 {{'cuda.wgmma' with n = 16 takes and gives 8 f32 accumulators per thread, got 4 and 4}}
  %d:4 = cuda.wgmma %a[%i], %a[%i], %c, %c, %c, %c {n = 16 : i64, a_desc = array<i64: 0, 128, 256>, b_desc = array<i64: 0, 128, 256>} : memref<1024xbf16, 3 : i64>, memref<1024xbf16, 3 : i64>, f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}

// -----

func.func @mixed(%i: index, %c: f32, %g: memref<1024xbf16>) {
  %a = memref.alloca() {alignment = 1024 : i64} : memref<1024xbf16, 3 : i64>
  %f = memref.alloca() {alignment = 1024 : i64} : memref<1024xf32, 3 : i64>
  %u = memref.alloca() : memref<1024xbf16, 3 : i64>
  %h = memref.alloca() : memref<1024xf16, 3 : i64>
  // expected-error @+1 {{'cuda.wgmma': a and b must have one element type (or both be 8-bit floats), got bf16 and f16}}
  %d:4 = cuda.wgmma %a[%i], %h[%i], %c, %c, %c, %c {n = 8 : i64, a_desc = array<i64: 0, 128, 256>, b_desc = array<i64: 0, 128, 256>} : memref<1024xbf16, 3 : i64>, memref<1024xf16, 3 : i64>, f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}

// -----

func.func @fp8_with_bf16(%i: index, %c: f32) {
  %a = memref.alloca() {alignment = 1024 : i64} : memref<1024xbf16, 3 : i64>
  %q = memref.alloca() {alignment = 1024 : i64} : memref<2048xf8E4M3FN, 3 : i64>
  // expected-error @+1 {{'cuda.wgmma': a and b must have one element type (or both be 8-bit floats), got e4m3 and bf16}}
  %d:4 = cuda.wgmma %q[%i], %a[%i], %c, %c, %c, %c {n = 8 : i64, a_desc = array<i64: 128, 0, 1024>, b_desc = array<i64: 128, 0, 1024>} : memref<2048xf8E4M3FN, 3 : i64>, memref<1024xbf16, 3 : i64>, f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}

// -----

func.func @fp8_mn_major(%i: index, %c: f32) {
  %q = memref.alloca() {alignment = 1024 : i64} : memref<2048xf8E4M3FN, 3 : i64>
  // expected-error @+1 {{'cuda.wgmma': 8-bit float operands must be K-major (wgmma has no transpose for them)}}
  %d:4 = cuda.wgmma %q[%i], %q[%i], %c, %c, %c, %c {n = 8 : i64, a_desc = array<i64: 128, 0, 1024>, b_desc = array<i64: 128, 0, 1024>, b_mn_major} : memref<2048xf8E4M3FN, 3 : i64>, memref<2048xf8E4M3FN, 3 : i64>, f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}

// -----

func.func @fp8_rs(%i: index, %c: f32) {
  %q = memref.alloca() {alignment = 1024 : i64} : memref<2048xf8E4M3FN, 3 : i64>
  %x = arith.constant 1.0 : f8E4M3FN
  // expected-error @+1 {{'cuda.wgmma_rs' takes bf16 or f16 (8-bit operands: cuda.wgmma, both in shared memory)}}
  %d:4 = cuda.wgmma_rs %q[%i], %x, %x, %x, %x, %x, %x, %x, %x, %c, %c, %c, %c {n = 8 : i64, b_desc = array<i64: 128, 0, 1024>} : memref<2048xf8E4M3FN, 3 : i64>, f8E4M3FN, f8E4M3FN, f8E4M3FN, f8E4M3FN, f8E4M3FN, f8E4M3FN, f8E4M3FN, f8E4M3FN, f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}

// -----

func.func @pending(%i: index, %c: f32, %g: memref<1024xbf16>) {
  %a = memref.alloca() {alignment = 1024 : i64} : memref<1024xbf16, 3 : i64>
  %f = memref.alloca() {alignment = 1024 : i64} : memref<1024xf32, 3 : i64>
  %u = memref.alloca() : memref<1024xbf16, 3 : i64>
  // expected-error @+1 {{'cuda.wgmma_wait_group' pending must be in [0, 7], got 8}}
  cuda.wgmma_wait_group 8
  func.return
}

// -----

func.func @wait_type(%i: index, %c: f32, %g: memref<1024xbf16>) {
  %a = memref.alloca() {alignment = 1024 : i64} : memref<1024xbf16, 3 : i64>
  %f = memref.alloca() {alignment = 1024 : i64} : memref<1024xf32, 3 : i64>
  %u = memref.alloca() : memref<1024xbf16, 3 : i64>
  // expected-error @+1 {{'cuda.wgmma_wait_group' passes f32 accumulators}}
  %e = cuda.wgmma_wait_group 0, %i : index -> index
  func.return
}

// -----

func.func @wait_after_type(%i: index, %c: f32) {
  // expected-error @+1 {{'cuda.wgmma_wait_group' is issued after f32 values}}
  %e = cuda.wgmma_wait_group 0, %c : f32 -> f32 after %i : index
  func.return
}

// -----

func.func @rs_a_type(%i: index, %c: f32, %y: f16) {
  %a = memref.alloca() {alignment = 1024 : i64} : memref<1024xbf16, 3 : i64>
  // expected-error @+1 {{'cuda.wgmma_rs' takes 8 elements of A of b's element type (bf16) per thread}}
  %r:4 = cuda.wgmma_rs %a[%i], %y, %y, %y, %y, %y, %y, %y, %y, %c, %c, %c, %c {n = 8 : i64, b_desc = array<i64: 128, 0, 1024>} : memref<1024xbf16, 3 : i64>, f16, f16, f16, f16, f16, f16, f16, f16, f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}

// -----

func.func @rs_accs(%i: index, %c: f32, %x: bf16) {
  %a = memref.alloca() {alignment = 1024 : i64} : memref<1024xbf16, 3 : i64>
  // expected-error @+1 {{'cuda.wgmma_rs' with n = 16 takes and gives 8 f32 accumulators per thread, got 4 and 4}}
  %r:4 = cuda.wgmma_rs %a[%i], %x, %x, %x, %x, %x, %x, %x, %x, %c, %c, %c, %c {n = 16 : i64, b_desc = array<i64: 128, 0, 1024>} : memref<1024xbf16, 3 : i64>, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}
