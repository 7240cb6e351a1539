// layout.prefetch_l1: each thread asks L1 for the elements of a global view that a
// layout.load into `like` would give it, reading nothing. Round trip in custom and
// generic form; no value changes (the executor reads nothing, only checks that each
// element asked for lies inside its buffer, at both levels: equivalent after the lowering); `lower-to-gpu` makes it one `cuda.prefetch_l1` per distinct element of a
// thread's registers (guarded per element where the view is masked, with a fast path
// where the thread's part is inside), and the cuda target a `prefetch.global.L1`.
// RUN: tilec %s --split-input-file | tilec --split-input-file | filecheck %s
// RUN: tilec %s --split-input-file --print-op-generic | tilec --split-input-file | filecheck %s
// RUN: tilec %s --split-input-file -p lower-to-gpu,canonicalize --check-equivalence --arg m=37 | filecheck %s --check-prefix=EQ
// RUN: tilec %s --split-input-file -p lower-to-gpu,canonicalize | filecheck %s --check-prefix=GPU
// RUN: tilec %s --split-input-file -p lower-to-gpu,canonicalize | tilec --split-input-file | filecheck %s --check-prefix=GPU
// RUN: tilec %s --split-input-file -p lower-to-gpu,canonicalize -t cuda | filecheck %s --check-prefix=CUDA
// EQ: @scales_ahead: equivalent after
// EQ: @one_element: equivalent after

// A column of a row-major scale matrix (M x 16), the rows of a 64-row tile clipped at M:
// each thread holds two rows (a slice of a blocked 64 x 4 layout), prefetched 8 columns on.
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [16, 2], warpsPerCTA = [2, 1], order = [1, 0]}>
#s = #layout.slice<{dim = 1, parent = #b}>
!G = !layout.tensor<f32, #layout.cute<(?,16):(16,1)>, gmem>
!C = !layout.tensor<f32, #layout.cute<?:16>, gmem>
!T = !layout.tensor<f32, #layout.cute<64:16>, gmem, masked>
!O = !layout.tensor<f32, #layout.cute<?:1>, gmem>
!OT = !layout.tensor<f32, #layout.cute<64:1>, gmem, masked>

// CHECK-LABEL: func.func @scales_ahead
// CHECK: layout.prefetch_l1 %{{.*}} {like = tensor<64xf32, #layout.slice<{{.*}}>>} : !layout.tensor<f32, #layout.cute<64:16>, gmem, masked>
// GPU-LABEL: func.func @scales_ahead
// GPU: scf.if
// GPU: cuda.prefetch_l1 %src[%{{.*}}] : memref<?xf32>
// GPU: cuda.prefetch_l1 %src[%{{.*}}] : memref<?xf32>
// GPU: } else {
// GPU: scf.if
// GPU-NEXT: cuda.prefetch_l1 %src[%{{.*}}] : memref<?xf32>
// CUDA-LABEL: scales_ahead
// CUDA: asm volatile("prefetch.global.L1 [%0];" :: "l"(src + {{.*}}));
func.func @scales_ahead(%src: !layout.ptr<f32, align 4>, %dst: !layout.ptr<f32, align 4>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 4> -> !G
  %o = layout.view %dst(%m) : !layout.ptr<f32, align 4> -> !O
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  layout.launch grid(%c2, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %col = layout.slice %a[_, %c0] : !G -> !C
    %t = layout.tile %col[%bx] {tile = array<i64: 64>} : !C -> !T
    %ahead = layout.slice %a[_, %c8] : !G -> !C
    %tp = layout.tile %ahead[%bx] {tile = array<i64: 64>} : !C -> !T
    layout.prefetch_l1 %tp {like = tensor<64xf32, #s>} : !T
    %x = layout.load %t : !T -> tensor<64xf32, #s>
    %ot = layout.tile %o[%bx] {tile = array<i64: 64>} : !O -> !OT
    layout.store %x, %ot : tensor<64xf32, #s>, !OT
  }
  func.return
}

// -----

// One element that every thread holds (a blocked layout of one element over the block).
// CHECK-LABEL: func.func @one_element
// CHECK: layout.prefetch_l1 %{{.*}} {like = tensor<1xf32, #layout.blocked<{{.*}}>>} : !layout.tensor<f32, #layout.cute<1:1>, gmem>
// GPU-LABEL: func.func @one_element
// GPU: "gpu.func"
// GPU: cuda.prefetch_l1 %src[%{{.*}}] : memref<16xf32>
// GPU-NOT: cuda.prefetch_l1
// GPU: "gpu.return"
#one = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
!V = !layout.tensor<f32, #layout.cute<16:1>, gmem>
!E = !layout.tensor<f32, #layout.cute<1:1>, gmem>
func.func @one_element(%src: !layout.ptr<f32, align 4>, %m: index) {
  %a = layout.view %src : !layout.ptr<f32, align 4> -> !V
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c3 = arith.constant 3 : index
    %e = layout.tile %a[%c3] {tile = array<i64: 1>} : !V -> !E
    layout.prefetch_l1 %e {like = tensor<1xf32, #one>} : !E
  }
  func.return
}
