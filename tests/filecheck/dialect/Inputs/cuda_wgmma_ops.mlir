func.func @k(%ia: index, %ib: index, %c: f32) {
  %a = memref.alloca() {alignment = 1024 : i64} : memref<1024xbf16, 3 : i64>
  %b = memref.alloca() : memref<128xbf16, 3 : i64>
  %h = memref.alloca() {alignment = 512 : i64} : memref<2048xf16, 3 : i64>
  cuda.wgmma_fence
  %d:4 = cuda.wgmma %a[%ia], %b[%ib], %c, %c, %c, %c {n = 8 : i64, a_desc = array<i64: 128, 0, 1024>, b_desc = array<i64: 0, 128, 256>} : memref<1024xbf16, 3 : i64>, memref<128xbf16, 3 : i64>, f32, f32, f32, f32 -> f32, f32, f32, f32
  %g:8 = cuda.wgmma %h[%ia], %h[%ib], %c, %c, %c, %c, %c, %c, %c, %c {n = 16 : i64, a_desc = array<i64: 64, 0, 512>, b_desc = array<i64: 32, 0, 256>} : memref<2048xf16, 3 : i64>, memref<2048xf16, 3 : i64>, f32, f32, f32, f32, f32, f32, f32, f32 -> f32, f32, f32, f32, f32, f32, f32, f32
  %t:4 = cuda.wgmma %a[%ia], %a[%ib], %c, %c, %c, %c {n = 8 : i64, a_desc = array<i64: 128, 0, 1024>, b_desc = array<i64: 128, 2048, 1024>, a_mn_major, b_mn_major} : memref<1024xbf16, 3 : i64>, memref<1024xbf16, 3 : i64>, f32, f32, f32, f32 -> f32, f32, f32, f32
  %q = memref.alloca() {alignment = 1024 : i64} : memref<2048xf8E4M3FN, 3 : i64>
  %p = memref.alloca() {alignment = 1024 : i64} : memref<2048xf8E5M2, 3 : i64>
  %f8:4 = cuda.wgmma %q[%ia], %p[%ib], %c, %c, %c, %c {n = 8 : i64, a_desc = array<i64: 128, 0, 1024>, b_desc = array<i64: 128, 0, 1024>} : memref<2048xf8E4M3FN, 3 : i64>, memref<2048xf8E5M2, 3 : i64>, f32, f32, f32, f32 -> f32, f32, f32, f32
  %x = arith.constant 1.0 : bf16
  %r:4 = cuda.wgmma_rs %a[%ib], %x, %x, %x, %x, %x, %x, %x, %x, %c, %c, %c, %c {n = 8 : i64, b_desc = array<i64: 128, 0, 1024>, b_mn_major} : memref<1024xbf16, 3 : i64>, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, f32, f32, f32, f32 -> f32, f32, f32, f32
  cuda.wgmma_commit_group
  %e:4 = cuda.wgmma_wait_group 1, %d#0, %d#1, %d#2, %d#3 : f32, f32, f32, f32 -> f32, f32, f32, f32
  cuda.wgmma_wait_group 0
  %c2 = arith.addf %c, %c : f32
  %e2:4 = cuda.wgmma_wait_group 0, %e#0, %e#1, %e#2, %e#3 : f32, f32, f32, f32 -> f32, f32, f32, f32 after %c, %c2 : f32, f32
  func.return
}
