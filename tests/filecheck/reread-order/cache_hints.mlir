// RUN: tilec %s -p 'reread-order{cache_hints=true}' | filecheck %s
// RUN: tilec %s -p reread-order | filecheck %s --check-prefix=OFF
// RUN: tilec %s -p 'reread-order{cache_hints=true}' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'reread-order{cache_hints=true},choose-warps,coalesce,vectorize,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'reread-order{cache_hints=true},choose-warps,coalesce,vectorize,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize' -t cuda | filecheck %s --check-prefix=CUDA
// EQ: @two_pass: equivalent after
// OFF-NOT: cache =
// `reread-order{cache_hints}`: the loads and stores of a two-pass row kernel carry L2
// eviction priorities: the first loop's loads of the re-read row `evict_last`, the
// second loop's loads of it and its stores `evict_first`; the weight, read by every
// block, and the rest keep the default. No value changes (equivalent, also after the
// lowering); `coalesce`, which gives each access its own layout, keeps the hints, and
// the cuda target emits the accesses through `tilec_ld_l2` / `tilec_st_l2` (rows of
// 5000 f32: 16-byte vectors).
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>
#c = #layout.slice<{dim = 0, parent = #a}>
!G = !layout.tensor<f32, #layout.cute<(?,5000):(5000,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,1024):(5000,1)>, gmem, masked>
!W = !layout.tensor<f32, #layout.cute<5000:1>, gmem>
!WT = !layout.tensor<f32, #layout.cute<1024:1>, gmem, masked>

// CHECK-LABEL: func.func @two_pass
// CHECK:         scf.for
// CHECK:           layout.load %{{.*}}, %{{.*}} : f32 {cache = "evict_last"} : !layout.tensor<f32, #layout.cute<(1,1024):(5000,1)>, gmem, masked>
// CHECK:         scf.for
// CHECK:           arith.subi
// CHECK:           layout.load %{{.*}}, %{{.*}} : f32 {cache = "evict_first"} : !layout.tensor<f32, #layout.cute<(1,1024):(5000,1)>, gmem, masked>
// CHECK:           layout.load %{{.*}} : !layout.tensor<f32, #layout.cute<1024:1>, gmem, masked>
// CHECK:           layout.store %{{.*}}, %{{.*}} {cache = "evict_first"}
// CUDA-LABEL: two_pass_kernel(
// CUDA:         tilec_ld_l2<1, 1>(reinterpret_cast<const f32x4*>(src + {{.*}}))
// CUDA:         tilec_ld_l2<0, 1>(reinterpret_cast<const f32x4*>(src + {{.*}}))
// CUDA:         *reinterpret_cast<const f32x4*>(weight + {{.*}})
// CUDA:         tilec_st_l2<0>(reinterpret_cast<f32x4*>(dst + {{.*}}), {{.*}})
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
      %x2 = arith.mulf %x, %x : tensor<1x1024xf32, #a>
      %s = layout.reduce %x2 {axis = 1 : i64, kind = "max"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
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
      %y = arith.mulf %x, %qb : tensor<1x1024xf32, #a>
      %z = arith.mulf %y, %wb : tensor<1x1024xf32, #a>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      layout.store %z, %to : tensor<1x1024xf32, #a>, !T
    }
  }
  func.return
}
