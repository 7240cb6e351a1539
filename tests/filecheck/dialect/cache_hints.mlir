// `cache` on layout.load / layout.store of global memory: an L2 eviction priority
// (`reread-order{cache_hints}` sets it). Round trip in custom and generic form; the
// executor ignores it (equivalent after the lowering); `lower-to-gpu` gives the global
// accesses a `cache` attribute and the cuda target emits them through `tilec_ld_l2` /
// `tilec_st_l2` (PTX createpolicy + .L2::cache_hint), scalar and as vectors.
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s --print-op-generic | tilec | filecheck %s
// RUN: tilec %s -p lower-to-gpu,canonicalize --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p lower-to-gpu,canonicalize | filecheck %s --check-prefix=GPU
// RUN: tilec %s -p lower-to-gpu,canonicalize -t cuda | filecheck %s --check-prefix=CUDA
// EQ: @hinted_rows: equivalent after
// EQ: @hinted_vectors: equivalent after

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
!G = !layout.tensor<f16, #layout.cute<(?,1000):(1000,1)>, gmem>
!T = !layout.tensor<f16, #layout.cute<(1,512):(1000,1)>, gmem, masked>
!G8 = !layout.tensor<f32, #layout.cute<(?,512):(512,1)>, gmem>
!T8 = !layout.tensor<f32, #layout.cute<(1,512):(512,1)>, gmem, masked>

// CHECK-LABEL: func.func @hinted_rows
// CHECK: layout.load %{{.*}}, %{{.*}} : f16 {cache = "evict_last"} : !layout.tensor<f16, #layout.cute<(1,512):(1000,1)>, gmem, masked> -> tensor<1x512xf16,
// CHECK: layout.store %{{.*}}, %{{.*}} {cache = "evict_first"} : tensor<1x512xf16,
// The kernels follow the host functions.
// GPU: memref.load %src[%{{.*}}] {cache = "evict_last"
// GPU: memref.store %{{.*}}, %dst[%{{.*}}] {cache = "evict_first"
// CUDA-LABEL: tilec_l2_policy() {
// CUDA: createpolicy.fractional.L2::evict_last.b64
// CUDA: createpolicy.fractional.L2::evict_first.b64
// CUDA-LABEL: tilec_ld_l2(const T* a) {
// CUDA: ld.global.L2::cache_hint.b16
// CUDA: st.global.L2::cache_hint.v4.b32
// CUDA-LABEL: hinted_rows_kernel(
// CUDA: tilec_ld_l2<1, 1>(src + {{.*}});
// CUDA: tilec_st_l2<0>(dst + {{.*}}, {{.*}});
func.func @hinted_rows(%src: !layout.ptr<f16, align 2>, %dst: !layout.ptr<f16, align 2>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 2> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 2> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant 0.0 : f16
    %k1 = arith.constant 1 : index
    %t = layout.tile %a[%bx, %k1] {tile = array<i64: 1, 512>} : !G -> !T
    %x = layout.load %t, %zero : f16 {cache = "evict_last"} : !T -> tensor<1x512xf16, #b>
    %y = arith.addf %x, %x : tensor<1x512xf16, #b>
    %o = layout.tile %b[%bx, %k1] {tile = array<i64: 1, 512>} : !G -> !T
    layout.store %y, %o {cache = "evict_first"} : tensor<1x512xf16, #b>, !T
  }
  func.return
}

// Vectors of 16 bytes (`vector = 4` of f32): the hinted access moves them whole.
// GPU: vector.load %src[%{{.*}}] {cache = "evict_first"
// GPU: vector.store %{{.*}}, %dst[%{{.*}}] {cache = "evict_last"
// CUDA-LABEL: hinted_vectors_kernel(
// CUDA: tilec_ld_l2<0, 1>(reinterpret_cast<const f32x4*>(src + {{.*}}));
// CUDA: tilec_st_l2<1>(reinterpret_cast<f32x4*>(dst + {{.*}}), {{.*}});
func.func @hinted_vectors(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G8
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G8
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %t = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 512>} : !G8 -> !T8
    %x = layout.load %t {cache = "evict_first", vector = 4 : i64} : !T8 -> tensor<1x512xf32, #b>
    %o = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 512>} : !G8 -> !T8
    layout.store %x, %o {cache = "evict_last", vector = 4 : i64} : tensor<1x512xf32, #b>, !T8
  }
  func.return
}
