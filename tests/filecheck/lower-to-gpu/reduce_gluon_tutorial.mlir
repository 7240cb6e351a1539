// RUN: tilec %s --split-input-file -p lower-to-gpu -t cuda | filecheck %s
// RUN: tilec %s --split-input-file -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @rows_over_lanes: equivalent after
// EQ: @row_per_thread: equivalent after
// The Gluon layouts tutorial's 128x128xf32 row reduction in its two layouts.
// BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0]): every element of a row is owned by a
// different thread: butterfly shuffles within each warp (5 lane bits), then the 4
// warps' partials of each row through shared memory in one round (one barrier): each
// lane reads one warp's partial and two more shuffles (the warp bits) combine them.
// BlockedLayout([1, 128], [32, 1], [4, 1], [0, 1]): each thread owns one row: no
// communication at all.

// CHECK-LABEL: rows_over_lanes_kernel(
// CHECK:         __shared__ alignas(16) float red[512];
// CHECK-COUNT-640: __shfl_sync(0xffffffffu
// CHECK:         // reduce across 4 warps via smem: one round of 128 partials per thread, 0 bank conflicts per write, 0 per read
// CHECK:         __syncthreads();
// CHECK-NOT:     __syncthreads();
// CHECK-COUNT-256: __shfl_sync(0xffffffffu
// CHECK-NOT:     __syncthreads();
// CHECK-NOT:     __shfl_sync
// CHECK:         }
#a = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#sa = #layout.slice<{dim = 1, parent = #a}>
!G = !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
!R = !layout.tensor<f32, #layout.cute<128:1>, gmem>
func.func @rows_over_lanes(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !R
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G -> tensor<128x128xf32, #a>
    %s = layout.reduce %v {axis = 1 : i64, kind = "add"} : tensor<128x128xf32, #a> -> tensor<128xf32, #sa>
    layout.store %s, %b : tensor<128xf32, #sa>, !R
  }
  func.return
}

// -----

// CHECK-LABEL: row_per_thread_kernel(
// CHECK-NOT:     __shared__
// CHECK-NOT:     __shfl_sync
// CHECK-NOT:     __syncthreads
// CHECK:         }
#t = #layout.blocked<{sizePerThread = [1, 128], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>
#st = #layout.slice<{dim = 1, parent = #t}>
!H = !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<128:1>, gmem>
func.func @row_per_thread(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !H
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !S
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !H -> tensor<128x128xf32, #t>
    %s = layout.reduce %v {axis = 1 : i64, kind = "add"} : tensor<128x128xf32, #t> -> tensor<128xf32, #st>
    layout.store %s, %b : tensor<128xf32, #st>, !S
  }
  func.return
}
