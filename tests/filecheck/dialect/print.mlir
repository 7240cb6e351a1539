// layout.print and cuda.printf: round trip (verifier errors: invalid_print.mlir;
// lowering and output: lower-to-gpu/print.mlir).
// RUN: tilec %s | tilec | filecheck %s

// CHECK-LABEL: func.func @views
// CHECK: layout.print %t : !layout.tensor<f32, #layout.cute<(4,8):(16,1)>, gmem>
// CHECK: layout.print %v : !layout.tensor<f32, #layout.cute<(2,4):(16,4)>, gmem, vec #layout.cute<(1,4):(16,1)>>
// CHECK: layout.print %s : !layout.tensor<bf16, #layout.composed<swizzle<1,2,3> o 0 o (8,8):(8,1)>, smem>
!G = !layout.tensor<f32, #layout.cute<(8,16):(16,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(4,8):(16,1)>, gmem>
!A = !layout.tensor<f32, #layout.cute<(2,16):(16,1)>, gmem>
!V = !layout.tensor<f32, #layout.cute<(2,4):(16,4)>, gmem, vec #layout.cute<(1,4):(16,1)>>
!S = !layout.tensor<bf16, #layout.composed<swizzle<1,2,3> o 0 o (8,8):(8,1)>, smem>
func.func @views(%g: !G, %a: !A) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %t = layout.tile %g[%by, %bx] {tile = array<i64: 4, 8>} : !G -> !T
    layout.print %t : !T
    %v = layout.vectorize %a {vector = array<i64: 1, 4>} : !A -> !V
    layout.print %v : !V
    %s = layout.alloc : !S
    layout.print %s : !S
  }
  func.return
}

// CHECK-LABEL: func.func @distributed
// CHECK: layout.print %x : tensor<8x8xf32, #layout.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>>
#b = #layout.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
!G8 = !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
func.func @distributed(%a: !G8) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G8 -> tensor<8x8xf32, #b>
    layout.print %x : tensor<8x8xf32, #b>
  }
  func.return
}

// CHECK-LABEL: func.func @printf
// CHECK: cuda.printf "%10.4g %6d\0A" %x, %i : f32, i32
// CHECK: cuda.printf "header:\0A"
func.func @printf(%x: f32, %i: i32) {
  cuda.printf "%10.4g %6d\n" %x, %i : f32, i32
  cuda.printf "header:\n"
  func.return
}
