// RUN: tilec %s -p lower-to-gpu | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @rowsum: equivalent after
// Elementwise arith on registers, a row sum within threads and across lanes (shuffles),
// and a store of the sliced (broadcast) result from one owner per element.
#bl = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#sl = #layout.slice<{dim = 1, parent = #bl}>
!G = !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, gmem>
!R = !layout.tensor<f32, #layout.cute<16:1>, gmem>
func.func @rowsum(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !R
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a {vector = 4 : i64} : !G -> tensor<16x32xf32, #bl>
    %two = arith.constant 2.0 : f32
    %t = layout.splat %two : f32 -> tensor<16x32xf32, #bl>
    %w = arith.mulf %v, %t : tensor<16x32xf32, #bl>
    %s = layout.reduce %w {axis = 1 : i64, kind = "add"} : tensor<16x32xf32, #bl> -> tensor<16xf32, #sl>
    layout.store %s, %b : tensor<16xf32, #sl>, !R
  }
  func.return
}
// The butterfly across the row's 8 lanes reads lane ^ 1, lane ^ 2, lane ^ 4:
// CHECK-LABEL: func.func @rowsum
// CHECK: "gpu.func"
// CHECK-DAG: %[[C1:[0-9]+]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:[0-9]+]] = arith.constant 2 : index
// CHECK-DAG: %[[C4:[0-9]+]] = arith.constant 4 : index
// CHECK: vector.load %src
// CHECK-COUNT-4: arith.mulf
// CHECK-COUNT-3: arith.addf
// CHECK: arith.xori %[[LANE:[0-9]+]], %[[C1]] : index
// CHECK: cuda.shfl_idx
// CHECK: arith.xori %[[LANE]], %[[C2]] : index
// CHECK: cuda.shfl_idx
// CHECK: arith.xori %[[C4]], %[[LANE]] : index
// CHECK: cuda.shfl_idx
// CHECK-NOT: cuda.shfl_idx
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %dst
