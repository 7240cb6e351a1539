// RUN: tilec %s -p 'reread-order{prefetch=true}' | filecheck %s
// RUN: tilec %s -p 'reread-order{prefetch=true},reread-order{prefetch=true}' | filecheck %s
// RUN: tilec %s -p 'reread-order{cache_hints=true prefetch=true}' | filecheck %s --check-prefix=HINT
// RUN: tilec %s -p 'reread-order{prefetch=true}' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'reread-order{cache_hints=true prefetch=true},choose-warps{l2_rows=true},coalesce,vectorize,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'reread-order{cache_hints=true prefetch=true},choose-warps{l2_rows=true},coalesce,vectorize,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize' -t cuda | filecheck %s --check-prefix=CUDA
// EQ: @two_pass: equivalent after
// `reread-order{prefetch}` (sm_90: bulk copies): before the first of two loops over a
// row's chunks, the block asks L2 for the row whole (`layout.prefetch` of the 1 x 5000
// tile at the chunks' row; once, also when the pass runs twice), so that all of its
// bytes are in flight at once; with `cache_hints` under evict_last. The weight (not
// re-read in chunks by both loops) is not prefetched. No value changes. The cuda target
// issues it from thread 0 (`tilec_prefetch_l2`, 20000 bytes). (Maxima: exact in any order,
// also with the warps `choose-warps{l2_rows}` picks.)
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>
#c = #layout.slice<{dim = 0, parent = #a}>
!G = !layout.tensor<f32, #layout.cute<(?,5000):(5000,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,1024):(5000,1)>, gmem, masked>
!W = !layout.tensor<f32, #layout.cute<5000:1>, gmem>
!WT = !layout.tensor<f32, #layout.cute<1024:1>, gmem, masked>

// CHECK-LABEL: func.func @two_pass
// CHECK:         %[[ROW:.*]] = layout.tile %a[%bx, %{{.*}}] {tile = array<i64: 1, 5000>}
// CHECK-NEXT:    layout.prefetch %[[ROW]] : !layout.tensor<f32, #layout.cute<(1,5000):(5000,1)>, gmem, masked>
// CHECK-NOT:     layout.prefetch
// CHECK:         scf.for
// HINT-LABEL: func.func @two_pass
// HINT:         layout.prefetch %{{.*}} {cache = "evict_last"}
// CUDA-LABEL: two_pass_kernel(
// CUDA:         tilec_prefetch_l2<1>(src + {{.*}}, 20000ull);
// CUDA:         for (
func.func @two_pass(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %weight: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G
  %w = layout.view %weight : !layout.ptr<f32, align 16> -> !W
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant 0.0 : f32
    %q0 = layout.splat %zero : f32 -> tensor<1xf32, #r>
    %lo = arith.constant 0 : index
    %hi = arith.constant 5 : index
    %one = arith.constant 1 : index
    %q = scf.for %j = %lo to %hi step %one iter_args(%acc = %q0) -> (tensor<1xf32, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      %x = layout.load %t, %zero : f32 : !T -> tensor<1x1024xf32, #a>
      %s = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
      %n = arith.maximumf %acc, %s : tensor<1xf32, #r>
      scf.yield %n : tensor<1xf32, #r>
    }
    %e = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %qb = layout.broadcast %e : tensor<1x1xf32, #a> -> tensor<1x1024xf32, #a>
    scf.for %j = %lo to %hi step %one {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      %x = layout.load %t, %zero : f32 : !T -> tensor<1x1024xf32, #a>
      %tw = layout.tile %w[%j] {tile = array<i64: 1024>} : !W -> !WT
      %wv = layout.load %tw : !WT -> tensor<1024xf32, #c>
      %we = layout.expand_dims %wv {axis = 0 : i64} : tensor<1024xf32, #c> -> tensor<1x1024xf32, #a>
      %wb = layout.broadcast %we : tensor<1x1024xf32, #a> -> tensor<1x1024xf32, #a>
      %y = arith.subf %x, %qb : tensor<1x1024xf32, #a>
      %z = arith.mulf %y, %wb : tensor<1x1024xf32, #a>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      layout.store %z, %to : tensor<1x1024xf32, #a>, !T
    }
  }
  func.return
}
