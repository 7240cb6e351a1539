// A host-function constant used inside the launch is lowered once at the top of the
// kernel: it was lowered where it was first used, in one branch of an scf.if, and the
// other scf.if used that branch's value, which does not dominate it (found by the
// dominance check of the verifier, which runs after every pass).
// RUN: tilec %s -p lower-to-gpu | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ

// EQ: @host_constant: equivalent after 'default'
// CHECK-LABEL: "gpu.func"()
// CHECK:       %tid = "gpu.thread_id"()
// CHECK-NEXT:  %f = arith.constant 7.500000e-01 : f32
// CHECK:       scf.if
// CHECK:       scf.if
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
!V = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
func.func @host_constant(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>, %out: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !V
  %b = layout.view %dst : !layout.ptr<f32> -> !V
  %c = layout.view %out : !layout.ptr<f32> -> !V
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 7.500000e-01 : f32
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %first = arith.cmpi eq, %bx, %c0 : index
    %x = scf.if %first -> (tensor<32x32xf32, #b>) {
      %v = layout.load %a : !V -> tensor<32x32xf32, #b>
      scf.yield %v : tensor<32x32xf32, #b>
    } else {
      %s = layout.splat %f : f32 -> tensor<32x32xf32, #b>
      scf.yield %s : tensor<32x32xf32, #b>
    }
    layout.store %x, %b : tensor<32x32xf32, #b>, !V
    %y = scf.if %first -> (tensor<32x32xf32, #b>) {
      %v = layout.load %a : !V -> tensor<32x32xf32, #b>
      scf.yield %v : tensor<32x32xf32, #b>
    } else {
      %s = layout.splat %f : f32 -> tensor<32x32xf32, #b>
      scf.yield %s : tensor<32x32xf32, #b>
    }
    layout.store %y, %c : tensor<32x32xf32, #b>, !V
  }
  func.return
}
