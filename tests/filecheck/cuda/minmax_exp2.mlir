// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @minmax: equivalent after
// EQ: @row_max: equivalent after
// arith.maximumf / minimumf (and the max reductions made of them): f32, and f16 / bf16
// through float, use PTX max.NaN / min.NaN on sm_80 and newer (one instruction, no
// branch, the same NaN and signed-zero semantics as the generic helper kept for f64);
// math.exp2 with fastmath<afn> is one ex2.approx.ftz.

// CHECK:       float tilec_ex2_approx_ftz(float x) {
// CHECK:         asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
// CHECK:       T tilec_maximumf(T a, T b) {
// CHECK:       #if __CUDA_ARCH__ >= 800
// CHECK:       float tilec_maximumf<float>(float a, float b) {
// CHECK-NEXT:    float r;
// CHECK-NEXT:    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
// CHECK:       T tilec_minimumf(T a, T b) {
// CHECK:       float tilec_minimumf<float>(float a, float b) {
// CHECK-NEXT:    float r;
// CHECK-NEXT:    asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
// CHECK-LABEL: minmax_kernel(
// CHECK:         tilec_maximumf(
// CHECK:         tilec_minimumf(
// CHECK:         tilec_ex2_approx_ftz(
// CHECK:         static_cast<__half>(tilec_maximumf(static_cast<float>(
// CHECK:         const double {{.*}} = tilec_maximumf(
// CHECK-LABEL: row_max_kernel(
// CHECK-COUNT-3: tilec_maximumf(
// CHECK:         __shfl_sync
// CHECK-NEXT:    tilec_maximumf(
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(4,32):(32,1)>, gmem>
!H = !layout.tensor<f16, #layout.cute<(4,32):(32,1)>, gmem>
!D = !layout.tensor<f64, #layout.cute<(4,32):(32,1)>, gmem>
func.func @minmax(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>, %hp: !layout.ptr<f16>, %dp: !layout.ptr<f64>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %h = layout.view %hp : !layout.ptr<f16> -> !H
  %d = layout.view %dp : !layout.ptr<f64> -> !D
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G -> tensor<4x32xf32, #b>
    %y = layout.load %b : !G -> tensor<4x32xf32, #b>
    %mx = arith.maximumf %x, %y : tensor<4x32xf32, #b>
    %mn = arith.minimumf %x, %y : tensor<4x32xf32, #b>
    %e = math.exp2 %mn fastmath<afn> : tensor<4x32xf32, #b>
    layout.store %mx, %a : tensor<4x32xf32, #b>, !G
    layout.store %e, %b : tensor<4x32xf32, #b>, !G
    %xh = layout.load %h : !H -> tensor<4x32xf16, #b>
    %mh = arith.maximumf %xh, %xh : tensor<4x32xf16, #b>
    layout.store %mh, %h : tensor<4x32xf16, #b>, !H
    %xd = layout.load %d : !D -> tensor<4x32xf64, #b>
    %md = arith.maximumf %xd, %xd : tensor<4x32xf64, #b>
    layout.store %md, %d : tensor<4x32xf64, #b>, !D
  }
  func.return
}

!R = !layout.tensor<f32, #layout.cute<(4):(1)>, gmem>
func.func @row_max(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %r = layout.view %q : !layout.ptr<f32> -> !R
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G -> tensor<4x32xf32, #b>
    %m = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<4x32xf32, #b> -> tensor<4xf32, #layout.slice<{dim = 1, parent = #b}>>
    layout.store %m, %r : tensor<4xf32, #layout.slice<{dim = 1, parent = #b}>>, !R
  }
  func.return
}
