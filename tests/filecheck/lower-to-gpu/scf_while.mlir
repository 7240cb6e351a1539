// RUN: tilec %s -p lower-to-gpu | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p lower-to-gpu -t cuda | filecheck %s --check-prefix=CUDA
// A distributed tensor through scf.while: it enters `before` as its per-thread
// registers (one SSA value each), scf.condition forwards them to `after` and to the
// results; in CUDA a `while (true)` whose condition assigns the results and breaks.

// EQ: @while_sum: equivalent

#bl = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, gmem>

// The sum of the four 16x32 row blocks of src: 4 registers per thread and the index.
// CHECK-LABEL: "gpu.module"() <{sym_name = "while_sum_kernels"}>
// CHECK:         %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[R:[0-9]+]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = scf.while (%{{.*}} = %[[Z]], %{{.*}} = %[[Z]], %{{.*}} = %[[Z]], %{{.*}} = %[[Z]], %{{.*}} = %{{.*}}) : (f32, f32, f32, f32, index) -> (f32, f32, f32, f32, index) {
// CHECK:           arith.cmpi ult
// CHECK-NEXT:      scf.condition(%{{.*}}) %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32, index
// CHECK:         } do {
// CHECK:           memref.load %src
// CHECK-COUNT-4:   arith.addf
// CHECK:           scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32, index
// CHECK:         memref.store %[[R]], %dst
// CUDA-LABEL: while_sum_kernel(
// CUDA:         while (true) {
// CUDA:           if (!{{.*}}) break;
// CUDA:         }
func.func @while_sum(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !T
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant dense<0.0> : tensor<16x32xf32, #bl>
    %sum, %n = scf.while (%acc = %zero, %i = %c0) : (tensor<16x32xf32, #bl>, index) -> (tensor<16x32xf32, #bl>, index) {
      %go = arith.cmpi ult, %i, %c4 : index
      scf.condition(%go) %acc, %i : tensor<16x32xf32, #bl>, index
    } do {
    ^bb1(%acc2: tensor<16x32xf32, #bl>, %j: index):
      %t = layout.tile %a[%j, %c0] {tile = array<i64: 16, 32>} : !G -> !T
      %v = layout.load %t : !T -> tensor<16x32xf32, #bl>
      %s = arith.addf %acc2, %v : tensor<16x32xf32, #bl>
      %j1 = arith.addi %j, %c1 : index
      scf.yield %s, %j1 : tensor<16x32xf32, #bl>, index
    }
    layout.store %sum, %b : tensor<16x32xf32, #bl>, !T
  }
  func.return
}
