// `--run cpu` fails (exit 1) when an output element is never written: here a 1x1 grid
// of 32x32 tiles covers half of a 64x32 output (driver/run_unwritten.mlir: the same
// program marked `{tilec.partial}` runs).
// RUN: not tilec %s --run cpu 2>&1 | filecheck %s

// CHECK: unwritten_output.mlir:[[# @LINE + 4]]:1: error: @half: 1024 of the 2048 element(s) of output %dst were never written (the first at flat index 1024; seed 0): the grid or the tiles do not cover the output. If the program writes part of %dst on purpose, mark the argument `{tilec.partial}`
!G = !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @half(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !G
  %b = layout.view %dst : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 32, 32>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 32, 32>} : !G -> !T
    %v = layout.load %ta : !T -> tensor<32x32xf32, #b>
    layout.store %v, %tb : tensor<32x32xf32, #b>, !T
  }
  func.return
}
