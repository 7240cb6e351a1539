// layout.copy_chunk_async: round trip (a 16-byte chunk of i8, one with an L2 prefetch size, one through L1, and a 2-D source of f32
// chunks of 4, one index per mode; one uncommitted, closed by a committing wait); verifier errors:
// copy_chunk_async_errors.mlir. Lowered: tile/box_tiles_issue.mlir.
// RUN: tilec %s | tilec | filecheck %s

// CHECK-LABEL: func.func @chunks
// CHECK: layout.copy_chunk_async %g[%i], %s[%j] {width = 16 : i64} : !layout.tensor<i8, #layout.cute<(?):(1)>, gmem>, !layout.tensor<i8, #layout.cute<(4096):(1)>, smem>
// CHECK: layout.copy_chunk_async %g[%i], %s[%j] {width = 16 : i64, prefetch = 256 : i64} : !layout.tensor<i8, #layout.cute<(?):(1)>, gmem>, !layout.tensor<i8, #layout.cute<(4096):(1)>, smem>
// CHECK: layout.copy_chunk_async %g[%i], %s[%j] {width = 16 : i64, l1} : !layout.tensor<i8, #layout.cute<(?):(1)>, gmem>, !layout.tensor<i8, #layout.cute<(4096):(1)>, smem>
// CHECK: layout.copy_chunk_async %m[%i, %j], %t[%j, %i] {width = 4 : i64} : !layout.tensor<f32, #layout.cute<(8,64):(64,1)>, gmem>, !layout.tensor<f32, #layout.cute<(64,8):(8,1)>, smem>
// CHECK: layout.async_wait {pending = 0 : i64}
// CHECK: layout.copy_chunk_async %g[%i], %s[%j] {width = 16 : i64, uncommitted} : !layout.tensor<i8, #layout.cute<(?):(1)>, gmem>, !layout.tensor<i8, #layout.cute<(4096):(1)>, smem>
// CHECK: layout.async_wait {pending = 0 : i64, commit}
!G = !layout.tensor<i8, #layout.cute<(?):(1)>, gmem>
!S = !layout.tensor<i8, #layout.cute<(4096):(1)>, smem>
!M = !layout.tensor<f32, #layout.cute<(8,64):(64,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,8):(8,1)>, smem>
func.func @chunks(%g: !G, %m: !M, %i: index, %j: index) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %t = layout.alloc : !T
    layout.copy_chunk_async %g[%i], %s[%j] {width = 16 : i64} : !G, !S
    layout.copy_chunk_async %g[%i], %s[%j] {width = 16 : i64, prefetch = 256 : i64} : !G, !S
    layout.copy_chunk_async %g[%i], %s[%j] {width = 16 : i64, l1} : !G, !S
    layout.copy_chunk_async %m[%i, %j], %t[%j, %i] {width = 4 : i64} : !M, !T
    layout.async_wait {pending = 0}
    layout.copy_chunk_async %g[%i], %s[%j] {width = 16 : i64, uncommitted} : !G, !S
    layout.async_wait {pending = 0, commit}
  }
  func.return
}
