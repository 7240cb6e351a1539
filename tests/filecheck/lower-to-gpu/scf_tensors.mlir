// RUN: tilec %s -p lower-to-gpu | filecheck %s
// RUN: tilec %s -p lower-to-gpu -t cuda | filecheck %s --check-prefix=CUDA
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @loop_sum: equivalent after
// EQ: @branch: equivalent after
// Distributed tensors through scf.for (loop-carried) and scf.if (results): a tensor is
// its per-thread registers, so it is carried as one SSA value per register.

#bl = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, gmem>
!H = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>

// The sum of the four 16x32 row blocks of src: 4 registers per thread are carried.
// CHECK-LABEL: "gpu.module"() <{sym_name = "loop_sum_kernels"}>
// CHECK:         %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[R:[0-9]+]], %{{.*}}, %{{.*}}, %{{.*}} = scf.for %i = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[Z]], %{{.*}} = %[[Z]], %{{.*}} = %[[Z]], %{{.*}} = %[[Z]]) -> (f32, f32, f32, f32) {
// CHECK:           vector.load %src
// CHECK-COUNT-4:   arith.addf
// CHECK:           scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32
// CHECK:         vector.broadcast %[[R]] 
// CHECK:         vector.store {{.*}}, %dst
// CUDA-LABEL: loop_sum_kernel(
// CUDA:         for (int {{.*}} = 0; {{.*}} < 4; ++{{.*}}) {
func.func @loop_sum(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !T
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant dense<0.0> : tensor<16x32xf32, #bl>
    %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<16x32xf32, #bl>) {
      %t = layout.tile %a[%i, %c0] {tile = array<i64: 16, 32>} : !G -> !T
      %v = layout.load %t {vector = 4 : i64} : !T -> tensor<16x32xf32, #bl>
      %s = arith.addf %acc, %v : tensor<16x32xf32, #bl>
      scf.yield %s : tensor<16x32xf32, #bl>
    }
    layout.store %sum, %b {vector = 4 : i64} : tensor<16x32xf32, #bl>, !T
  }
  func.return
}

// A branch on the block index chooses between two tensors computed in it: block 0
// squares its 16x32 tile, block 1 doubles it.
// CHECK-LABEL: "gpu.module"() <{sym_name = "branch_kernels"}>
// CHECK:         %[[C:.*]] = arith.cmpi eq, %bx, %{{.*}} : index
// CHECK:         %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = scf.if %[[C]] -> (f32, f32, f32, f32) {
// CHECK-COUNT-4:   arith.mulf
// CHECK:           scf.yield
// CHECK:         } else {
// CHECK-COUNT-4:   arith.addf
// CHECK:           scf.yield
// CHECK:         }
// CUDA-LABEL: branch_kernel(
// CUDA:         if ({{.*}}) {
// CUDA:         } else {
func.func @branch(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !H
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !H
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  layout.launch grid(%c2, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 16, 32>} : !H -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 16, 32>} : !H -> !T
    %v = layout.load %ta {vector = 4 : i64} : !T -> tensor<16x32xf32, #bl>
    %first = arith.cmpi eq, %bx, %c0 : index
    %w = scf.if %first -> (tensor<16x32xf32, #bl>) {
      %x = arith.mulf %v, %v : tensor<16x32xf32, #bl>
      scf.yield %x : tensor<16x32xf32, #bl>
    } else {
      %y = arith.addf %v, %v : tensor<16x32xf32, #bl>
      scf.yield %y : tensor<16x32xf32, #bl>
    }
    layout.store %w, %tb {vector = 4 : i64} : tensor<16x32xf32, #bl>, !T
  }
  func.return
}
