// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @approx_tanh: equivalent after
// math.tanh with fastmath<afn> on f32 is PTX tanh.approx.f32 (one MUFU.TANH, 2^-10.987
// relative: dialects/math_functions.TANH_APPROX_ERROR), as the GEMM epilogue's silu_tanh
// takes it with an fma: h (1 + tanh h). f64, f16 and the op without flags keep CUDA's
// tanh / tanhf. The reference executor computes tanh in float64 (--check refuses afn).

// CHECK:       float tilec_tanh_approx(float x) {
// CHECK:         asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
// CHECK-LABEL: approx_tanh_kernel(
// CHECK:         const float [[H:.*]] = {{.*}} * 0.5f;
// CHECK:         const float [[T:.*]] = tilec_tanh_approx([[H]]);
// CHECK:         const float {{.*}} = fmaf([[H]], [[T]], [[H]]);
// CHECK:         const float {{.*}} = tanhf(
// CHECK:         const double {{.*}} = tanh(
// CHECK:         const __half {{.*}} = static_cast<__half>(tanhf(
// CHECK-NOT:     tilec_tanh_approx(
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(4,32):(32,1)>, gmem>
!H = !layout.tensor<f16, #layout.cute<(4,32):(32,1)>, gmem>
!D = !layout.tensor<f64, #layout.cute<(4,32):(32,1)>, gmem>
func.func @approx_tanh(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>, %dp: !layout.ptr<f64>, %hp: !layout.ptr<f16>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %d = layout.view %dp : !layout.ptr<f64> -> !D
  %h = layout.view %hp : !layout.ptr<f16> -> !H
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G -> tensor<4x32xf32, #b>
    %half = arith.constant dense<0.5> : tensor<4x32xf32, #b>
    %hx = arith.mulf %x, %half : tensor<4x32xf32, #b>
    %t = math.tanh %hx fastmath<afn> : tensor<4x32xf32, #b>
    %silu = math.fma %hx, %t, %hx : tensor<4x32xf32, #b>
    layout.store %silu, %a : tensor<4x32xf32, #b>, !G
    %exact = math.tanh %x : tensor<4x32xf32, #b>
    layout.store %exact, %b : tensor<4x32xf32, #b>, !G
    %xd = layout.load %d : !D -> tensor<4x32xf64, #b>
    %td = math.tanh %xd fastmath<afn> : tensor<4x32xf64, #b>
    layout.store %td, %d : tensor<4x32xf64, #b>, !D
    %xh = layout.load %h : !H -> tensor<4x32xf16, #b>
    %th = math.tanh %xh fastmath<afn> : tensor<4x32xf16, #b>
    layout.store %th, %h : tensor<4x32xf16, #b>, !H
  }
  func.return
}
