// layout.prefetch: the block asks L2 for a contiguous view of global memory (a row)
// ahead of its loads. Round trip in custom and generic form; no value changes (the
// executor ignores it: equivalent after the lowering); `lower-to-gpu` makes it one
// `cuda.prefetch_l2` of the view's bytes from its first element, issued by thread 0, and
// the cuda target a `cp.async.bulk.prefetch.L2` of their 16-byte-aligned interior
// (sm_90); on sm_80 (no bulk copies) it lowers to nothing.
// RUN: tilec %s --split-input-file | tilec --split-input-file | filecheck %s
// RUN: tilec %s --split-input-file --print-op-generic | tilec --split-input-file | filecheck %s
// RUN: tilec %s --split-input-file -p lower-to-gpu,canonicalize --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s --split-input-file -p lower-to-gpu,canonicalize | filecheck %s --check-prefix=GPU
// RUN: tilec %s --split-input-file -p lower-to-gpu,canonicalize | tilec --split-input-file | filecheck %s --check-prefix=GPU
// EQ: @prefetched_rows: equivalent after
// EQ: @no_bulk_copies: equivalent after

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
!G = !layout.tensor<f16, #layout.cute<(?,1000):(1000,1)>, gmem>
!R = !layout.tensor<f16, #layout.cute<(1,1000):(1000,1)>, gmem, masked>
!T = !layout.tensor<f16, #layout.cute<(1,512):(1000,1)>, gmem, masked>

// CHECK-LABEL: func.func @prefetched_rows
// CHECK: layout.prefetch %{{.*}} {cache = "evict_last"} : !layout.tensor<f16, #layout.cute<(1,1000):(1000,1)>, gmem, masked>
// CHECK: layout.prefetch %{{.*}} : !layout.tensor<f16, #layout.cute<(1,1000):(1000,1)>, gmem, masked>
// GPU-LABEL: func.func @prefetched_rows
// GPU: %[[ROW:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// GPU: %[[T0:.*]] = arith.cmpi eq, %tid, %{{.*}} : index
// GPU: scf.if %[[T0]] {
// GPU-NEXT: cuda.prefetch_l2 %src[%[[ROW]]], 2000 {cache = "evict_last"{{.*}}} : memref<?xf16>
// GPU: cuda.prefetch_l2 %dst[%[[ROW]]], 2000 : memref<?xf16>
func.func @prefetched_rows(%src: !layout.ptr<f16, align 2>, %dst: !layout.ptr<f16, align 2>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 2> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 2> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %row = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1000>} : !G -> !R
    layout.prefetch %row {cache = "evict_last"} : !R
    %out = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1000>} : !G -> !R
    layout.prefetch %out : !R
    %zero = arith.constant 0.0 : f16
    %t = layout.tile %a[%bx, %c1] {tile = array<i64: 1, 512>} : !G -> !T
    %x = layout.load %t, %zero : f16 : !T -> tensor<1x512xf16, #b>
    %o = layout.tile %b[%bx, %c1] {tile = array<i64: 1, 512>} : !G -> !T
    layout.store %x, %o : tensor<1x512xf16, #b>, !T
  }
  func.return
}

// -----

// sm_80: no bulk copies, no prefetch.
// CHECK-LABEL: func.func @no_bulk_copies
// CHECK: layout.prefetch
// GPU-LABEL: func.func @no_bulk_copies
// GPU-NOT: cuda.prefetch_l2
// GPU: func.return
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
!G = !layout.tensor<f16, #layout.cute<(?,1000):(1000,1)>, gmem>
!R = !layout.tensor<f16, #layout.cute<(1,1000):(1000,1)>, gmem, masked>
module attributes {tilec.target = "sm_80"} {
func.func @no_bulk_copies(%src: !layout.ptr<f16, align 2>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 2> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %row = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1000>} : !G -> !R
    layout.prefetch %row : !R
  }
  func.return
}
}
