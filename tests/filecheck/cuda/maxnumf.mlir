// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @num_minmax: equivalent after
// arith.maxnumf / minnumf (the other operand where one is NaN: p.maximum / p.minimum
// with propagate_nan=False) print as CUDA's fmaxf / fminf on f32 (one FMNMX), fmax /
// fmin on f64, and through float for f16.

// CHECK-LABEL: num_minmax_kernel(
// CHECK:         const float {{.*}} = fmaxf({{.*}}, {{.*}});
// CHECK:         const float {{.*}} = fminf({{.*}}, {{.*}});
// CHECK:         const double {{.*}} = fmax({{.*}}, {{.*}});
// CHECK:         const __half {{.*}} = static_cast<__half>(fminf(static_cast<float>({{.*}}), static_cast<float>({{.*}})));
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(4,32):(32,1)>, gmem>
!H = !layout.tensor<f16, #layout.cute<(4,32):(32,1)>, gmem>
!D = !layout.tensor<f64, #layout.cute<(4,32):(32,1)>, gmem>
func.func @num_minmax(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>, %dp: !layout.ptr<f64>, %hp: !layout.ptr<f16>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %d = layout.view %dp : !layout.ptr<f64> -> !D
  %h = layout.view %hp : !layout.ptr<f16> -> !H
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G -> tensor<4x32xf32, #b>
    %y = layout.load %b : !G -> tensor<4x32xf32, #b>
    %mx = arith.maxnumf %x, %y : tensor<4x32xf32, #b>
    %mn = arith.minnumf %mx, %y : tensor<4x32xf32, #b>
    layout.store %mn, %a : tensor<4x32xf32, #b>, !G
    %xd = layout.load %d : !D -> tensor<4x32xf64, #b>
    %md = arith.maxnumf %xd, %xd : tensor<4x32xf64, #b>
    layout.store %md, %d : tensor<4x32xf64, #b>, !D
    %xh = layout.load %h : !H -> tensor<4x32xf16, #b>
    %mh = arith.minnumf %xh, %xh : tensor<4x32xf16, #b>
    layout.store %mh, %h : tensor<4x32xf16, #b>, !H
  }
  func.return
}
