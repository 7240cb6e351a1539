// RUN: tilec %s -p default | filecheck %s
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @share: equivalent after
// EQ: @plain: equivalent after
// A math.exp2 with fastmath<afn> and tilec.exp2_fma = k is computed on the FMA pipe
// (cuda.ex2_fma: clamp, Cody-Waite shift, degree-5 polynomial, exponent by an integer
// add; no MUFU) in k of every 8 of a thread's registers, those r with (r k) mod 8 < k
// (3: registers 0, 3, 6), and by ex2.approx (one MUFU.EX2) in the others; without the
// attribute every register keeps ex2.approx. The reference executor computes 2^x
// rounded once before, 2^x of x clamped to [-125, 127] after (equal on these inputs).

// CHECK-LABEL: "gpu.func"
// CHECK:         cuda.ex2_fma %{{.*}} : f32
// CHECK-NEXT:    math.exp2 %{{.*}} fastmath<afn> : f32
// CHECK-NEXT:    math.exp2 %{{.*}} fastmath<afn> : f32
// CHECK-NEXT:    cuda.ex2_fma %{{.*}} : f32
// CHECK-NEXT:    math.exp2 %{{.*}} fastmath<afn> : f32
// CHECK-NEXT:    math.exp2 %{{.*}} fastmath<afn> : f32
// CHECK-NEXT:    cuda.ex2_fma %{{.*}} : f32
// CHECK-NEXT:    math.exp2 %{{.*}} fastmath<afn> : f32
// CHECK-NOT:     tilec.exp2_fma
// CHECK-LABEL: "gpu.func"
// CHECK-NOT:     cuda.ex2_fma
// CHECK-COUNT-8: math.exp2 %{{.*}} fastmath<afn> : f32

// CUDA:        float tilec_ex2_fma(float x) {
// CUDA-NEXT:     x = fminf(fmaxf(x, -125.0f), 127.0f);
// CUDA-NEXT:     const float t = x + 12582912.0f;
// CUDA-NEXT:     const float f = x - (t - 12582912.0f);
// CUDA-COUNT-5:  fmaf(
// CUDA:          return __uint_as_float(__float_as_uint(p) + (__float_as_uint(t) << 23));
// CUDA-LABEL:  share_kernel(
// CUDA-COUNT-3:  tilec_ex2_fma(
// CUDA-LABEL:  plain_kernel(
// CUDA-NOT:      tilec_ex2_fma(
// CUDA-COUNT-8:  tilec_ex2_approx_ftz(
#b = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(8,32):(32,1)>, gmem>
func.func @share(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %o = layout.view %q : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %y = layout.load %a : !G -> tensor<8x32xf32, #b>
    %e = math.exp2 %y fastmath<afn> {tilec.exp2_fma = 3 : i64} : tensor<8x32xf32, #b>
    layout.store %e, %o : tensor<8x32xf32, #b>, !G
  }
  func.return
}
func.func @plain(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %o = layout.view %q : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %y = layout.load %a : !G -> tensor<8x32xf32, #b>
    %e = math.exp2 %y fastmath<afn> : tensor<8x32xf32, #b>
    layout.store %e, %o : tensor<8x32xf32, #b>, !G
  }
  func.return
}
