// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @normalise: equivalent after
// EQ: @divide: equivalent after
// arith.divf with fastmath<arcp> (or fast) on f32 / f64 is x * (1 / y), each step
// rounded (dialects/math_functions.reciprocal_division): the CUDA target prints it so
// and the reference executor computes it so, bit for bit. A row normalised by its sum
// (the divisor broadcast along the row) takes one reciprocal per thread, not one IEEE
// division per element. Without arcp, and for f16, the division stays.

// CHECK-LABEL: normalise_kernel(
// CHECK:         __shfl_sync
// CHECK:         const float [[Q:.*]] = [[X:.*]] * (1.0f / [[S:.*]]);
// CHECK:         const float {{.*}} = {{.*}} * (1.0f / [[S]]);
// CHECK:         const double {{.*}} = {{.*}} * (1.0 / {{.*}});
// CHECK:         const float {{.*}} = {{[^*]*}} / {{[^*]*}};
// CHECK:         const __half {{.*}} = {{.*}} / {{.*}};
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#r = #layout.slice<{dim = 1, parent = #b}>
!G = !layout.tensor<f32, #layout.cute<(4,32):(32,1)>, gmem>
!H = !layout.tensor<f16, #layout.cute<(4,32):(32,1)>, gmem>
!D = !layout.tensor<f64, #layout.cute<(4,32):(32,1)>, gmem>
func.func @normalise(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>, %w: !layout.ptr<f32>, %hp: !layout.ptr<f16>, %dp: !layout.ptr<f64>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %c = layout.view %w : !layout.ptr<f32> -> !G
  %h = layout.view %hp : !layout.ptr<f16> -> !H
  %d = layout.view %dp : !layout.ptr<f64> -> !D
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G -> tensor<4x32xf32, #b>
    %s = layout.reduce %x {axis = 1 : i64, kind = "add"} : tensor<4x32xf32, #b> -> tensor<4xf32, #r>
    %e = layout.expand_dims %s {axis = 1 : i64} : tensor<4xf32, #r> -> tensor<4x1xf32, #b>
    %sb = layout.broadcast %e : tensor<4x1xf32, #b> -> tensor<4x32xf32, #b>
    %y = arith.divf %x, %sb fastmath<arcp> : tensor<4x32xf32, #b>
    layout.store %y, %b : tensor<4x32xf32, #b>, !G
    %xd = layout.load %d : !D -> tensor<4x32xf64, #b>
    %yd = arith.divf %xd, %xd fastmath<fast> : tensor<4x32xf64, #b>
    layout.store %yd, %d : tensor<4x32xf64, #b>, !D
    %z = arith.divf %x, %sb : tensor<4x32xf32, #b>
    layout.store %z, %c : tensor<4x32xf32, #b>, !G
    %xh = layout.load %h : !H -> tensor<4x32xf16, #b>
    %yh = arith.divf %xh, %xh fastmath<arcp> : tensor<4x32xf16, #b>
    layout.store %yh, %h : tensor<4x32xf16, #b>, !H
  }
  func.return
}

// CHECK-LABEL: divide_kernel(
// CHECK:         * (1.0f /
func.func @divide(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>, %r: !layout.ptr<f32>, %w: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %c = layout.view %r : !layout.ptr<f32> -> !G
  %d = layout.view %w : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G -> tensor<4x32xf32, #b>
    %y = layout.load %b : !G -> tensor<4x32xf32, #b>
    %fast = arith.divf %x, %y fastmath<arcp> : tensor<4x32xf32, #b>
    layout.store %fast, %c : tensor<4x32xf32, #b>, !G
    %ieee = arith.divf %x, %y : tensor<4x32xf32, #b>
    layout.store %ieee, %d : tensor<4x32xf32, #b>, !G
  }
  func.return
}
