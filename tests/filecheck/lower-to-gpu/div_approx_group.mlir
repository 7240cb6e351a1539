// RUN: tilec %s -p default | filecheck %s
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @sigmoid: equivalent after
// EQ: @wide: equivalent after
// EQ: @maybe_nan: equivalent after
// EQ: @unknown: equivalent after
// An arith.divf with fastmath<afn> on f32 whose divisors are numbers of a bounded range
// (passes/_float_range.py walks back through the ops that computed them) shares one
// approximate reciprocal among G quotients: cuda.div_approx_group, G = 4 where the
// divisors lie within [2^-31, 2^31] (the sigmoid's 1 + 2^(-|y| log2 e), the exponent's
// NaN turned into -150 by maxnumf: [1, 2]), G = 2 within [2^-62, 2^62] (1 + 2^min(y, 40),
// minnumf turning a NaN into 40). A divisor that may be NaN (maximumf propagates one)
// or whose range is not known keeps one div.approx a quotient. The reference executor
// computes every quotient x / d rounded once, before and after.

// CHECK-LABEL: "gpu.func"
// CHECK-COUNT-1: cuda.div_approx_group %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32, f32, f32, f32, f32 -> f32, f32, f32, f32
// CHECK-NOT:   arith.divf
// CHECK-LABEL: "gpu.func"
// CHECK-COUNT-2: cuda.div_approx_group %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32 -> f32, f32
// CHECK-NOT:   arith.divf
// CHECK-LABEL: "gpu.func"
// CHECK-NOT:   cuda.div_approx_group
// CHECK-COUNT-4: arith.divf %{{.*}}, %{{.*}} fastmath<afn> : f32
// CHECK-LABEL: "gpu.func"
// CHECK-NOT:   cuda.div_approx_group
// CHECK-COUNT-4: arith.divf %{{.*}}, %{{.*}} fastmath<afn> : f32

// CUDA:        float tilec_rcp_approx_ftz(float x) {
// CUDA:          asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
// CUDA-LABEL:  sigmoid_kernel(
// CUDA:          const float [[Q:q[_0-9]*]]_a = [[D0:t_[0-9]+]] * [[D1:t_[0-9]+]];
// CUDA-NEXT:     const float [[Q]]_b = [[D2:t_[0-9]+]] * [[D3:t_[0-9]+]];
// CUDA-NEXT:     const float [[Q]]_r = tilec_rcp_approx_ftz([[Q]]_a * [[Q]]_b);
// CUDA-NEXT:     const float [[Q]]_ra = [[Q]]_r * [[Q]]_b;
// CUDA-NEXT:     const float [[Q]]_rb = [[Q]]_r * [[Q]]_a;
// CUDA-NEXT:     const float [[Q]] = {{[a-z_0-9]+}} * ([[D1]] * [[Q]]_ra);
// CUDA-NEXT:     const float {{q_[0-9]+}} = {{[a-z_0-9]+}} * ([[D0]] * [[Q]]_ra);
// CUDA-NEXT:     const float {{q_[0-9]+}} = {{[a-z_0-9]+}} * ([[D3]] * [[Q]]_rb);
// CUDA-NEXT:     const float {{q_[0-9]+}} = {{[a-z_0-9]+}} * ([[D2]] * [[Q]]_rb);
// CUDA-LABEL:  wide_kernel(
// CUDA:          const float [[P:q[_0-9]*]]_r = tilec_rcp_approx_ftz([[E0:t_[0-9]+]] * [[E1:t_[0-9]+]]);
// CUDA-NEXT:     const float [[P]] = {{[a-z_0-9]+}} * ([[E1]] * [[P]]_r);
// CUDA-NEXT:     const float {{q_[0-9]+}} = {{[a-z_0-9]+}} * ([[E0]] * [[P]]_r);
// CUDA-LABEL:  maybe_nan_kernel(
// CUDA-NOT:      tilec_rcp_approx_ftz(
// CUDA:          tilec_div_approx_ftz(
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(4,32):(32,1)>, gmem>
func.func @sigmoid(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %o = layout.view %q : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %y = layout.load %a : !G -> tensor<4x32xf32, #b>
    %ay = math.absf %y : tensor<4x32xf32, #b>
    %c = arith.constant -1.44269502 : f32
    %cs = layout.splat %c : f32 -> tensor<4x32xf32, #b>
    %t0 = arith.mulf %ay, %cs : tensor<4x32xf32, #b>
    %floor = arith.constant -150.0 : f32
    %floors = layout.splat %floor : f32 -> tensor<4x32xf32, #b>
    %t = arith.maxnumf %t0, %floors : tensor<4x32xf32, #b>
    %e = math.exp2 %t fastmath<afn> : tensor<4x32xf32, #b>
    %one = arith.constant 1.0 : f32
    %ones = layout.splat %one : f32 -> tensor<4x32xf32, #b>
    %d = arith.addf %e, %ones : tensor<4x32xf32, #b>
    %ye = arith.mulf %y, %e : tensor<4x32xf32, #b>
    %n = arith.maximumf %y, %ye : tensor<4x32xf32, #b>
    %s = arith.divf %n, %d fastmath<afn> : tensor<4x32xf32, #b>
    layout.store %s, %o : tensor<4x32xf32, #b>, !G
  }
  func.return
}
func.func @wide(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %o = layout.view %q : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %y = layout.load %a : !G -> tensor<4x32xf32, #b>
    %cap = arith.constant 40.0 : f32
    %caps = layout.splat %cap : f32 -> tensor<4x32xf32, #b>
    %t = arith.minnumf %y, %caps : tensor<4x32xf32, #b>
    %e = math.exp2 %t fastmath<afn> : tensor<4x32xf32, #b>
    %one = arith.constant 1.0 : f32
    %ones = layout.splat %one : f32 -> tensor<4x32xf32, #b>
    %d = arith.addf %e, %ones : tensor<4x32xf32, #b>
    %s = arith.divf %y, %d fastmath<afn> : tensor<4x32xf32, #b>
    layout.store %s, %o : tensor<4x32xf32, #b>, !G
  }
  func.return
}
func.func @maybe_nan(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %o = layout.view %q : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %y = layout.load %a : !G -> tensor<4x32xf32, #b>
    %ay = math.absf %y : tensor<4x32xf32, #b>
    %c = arith.constant -1.44269502 : f32
    %cs = layout.splat %c : f32 -> tensor<4x32xf32, #b>
    %t0 = arith.mulf %ay, %cs : tensor<4x32xf32, #b>
    %floor = arith.constant -150.0 : f32
    %floors = layout.splat %floor : f32 -> tensor<4x32xf32, #b>
    %t = arith.maximumf %t0, %floors : tensor<4x32xf32, #b>
    %e = math.exp2 %t fastmath<afn> : tensor<4x32xf32, #b>
    %one = arith.constant 1.0 : f32
    %ones = layout.splat %one : f32 -> tensor<4x32xf32, #b>
    %d = arith.addf %e, %ones : tensor<4x32xf32, #b>
    %s = arith.divf %y, %d fastmath<afn> : tensor<4x32xf32, #b>
    layout.store %s, %o : tensor<4x32xf32, #b>, !G
  }
  func.return
}
func.func @unknown(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %o = layout.view %q : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %y = layout.load %a : !G -> tensor<4x32xf32, #b>
    %d = layout.load %o : !G -> tensor<4x32xf32, #b>
    %s = arith.divf %y, %d fastmath<afn> : tensor<4x32xf32, #b>
    layout.store %s, %o : tensor<4x32xf32, #b>, !G
  }
  func.return
}
