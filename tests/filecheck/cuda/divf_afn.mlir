// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @approx_divide: equivalent after
// arith.divf with fastmath<afn> alone on f32 is the hardware's approximate quotient
// (dialects/math_functions.approximate_division): PTX div.approx.ftz.f32, one MUFU.RCP
// and a multiply, as SiLU's y / (1 + e^-y) in the GEMM epilogue takes it. fastmath<fast>
// (afn and arcp) stays x * (1 / y); f64 and f16 keep their division; without flags the
// IEEE quotient. The reference executor computes x / y for afn (--check refuses it).

// CHECK:       float tilec_div_approx_ftz(float x, float y) {
// CHECK:         asm("div.approx.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
// CHECK-LABEL: approx_divide_kernel(
// CHECK:         const float [[Q:.*]] = tilec_div_approx_ftz([[X:.*]], [[Y:.*]]);
// CHECK:         const float {{.*}} = {{.*}} * (1.0f / {{.*}});
// CHECK:         const float {{.*}} = {{[^*(]*}} / {{[^*]*}};
// CHECK:         const double {{.*}} = {{[^*(]*}} / {{[^*]*}};
// CHECK:         const __half {{.*}} = {{.*}} / {{.*}};
// CHECK-NOT:     tilec_div_approx_ftz(
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(4,32):(32,1)>, gmem>
!H = !layout.tensor<f16, #layout.cute<(4,32):(32,1)>, gmem>
!D = !layout.tensor<f64, #layout.cute<(4,32):(32,1)>, gmem>
func.func @approx_divide(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>, %r: !layout.ptr<f32>, %w: !layout.ptr<f32>, %dp: !layout.ptr<f64>, %hp: !layout.ptr<f16>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %c = layout.view %r : !layout.ptr<f32> -> !G
  %e = layout.view %w : !layout.ptr<f32> -> !G
  %d = layout.view %dp : !layout.ptr<f64> -> !D
  %h = layout.view %hp : !layout.ptr<f16> -> !H
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G -> tensor<4x32xf32, #b>
    %y = layout.load %b : !G -> tensor<4x32xf32, #b>
    %approx = arith.divf %x, %y fastmath<afn> : tensor<4x32xf32, #b>
    layout.store %approx, %a : tensor<4x32xf32, #b>, !G
    %fast = arith.divf %x, %y fastmath<fast> : tensor<4x32xf32, #b>
    layout.store %fast, %c : tensor<4x32xf32, #b>, !G
    %ieee = arith.divf %x, %y : tensor<4x32xf32, #b>
    layout.store %ieee, %e : tensor<4x32xf32, #b>, !G
    %xd = layout.load %d : !D -> tensor<4x32xf64, #b>
    %yd = arith.divf %xd, %xd fastmath<afn> : tensor<4x32xf64, #b>
    layout.store %yd, %d : tensor<4x32xf64, #b>, !D
    %xh = layout.load %h : !H -> tensor<4x32xf16, #b>
    %yh = arith.divf %xh, %xh fastmath<afn> : tensor<4x32xf16, #b>
    layout.store %yh, %h : tensor<4x32xf16, #b>, !H
  }
  func.return
}
