// layout.make_tensor_like / layout.make_fragment_like: round trip (verifier errors:
// invalid_like.mlir; lowering: lower-to-gpu/fragment_like.mlir). The result types are
// CuTe's: make_tensor_like follows the view's stride order, make_fragment_like puts
// mode 0 first, column-major; a stride-0 leaf keeps stride 0.
// RUN: tilec %s | tilec | filecheck %s

// CHECK-LABEL: func.func @likes
// CHECK: layout.make_tensor_like %t : !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, rmem>
// CHECK: layout.make_fragment_like %t : !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(4,8):(1,4)>, rmem>
// CHECK: layout.make_fragment_like %n : !layout.tensor<f32, #layout.cute<((2,2),(4,2)):((0,16),(2,100))>, smem> -> !layout.tensor<f32, #layout.cute<((2,2),(4,2)):((0,1),(2,8))>, rmem>
// CHECK: layout.make_tensor_like %n : !layout.tensor<f32, #layout.cute<((2,2),(4,2)):((0,16),(2,100))>, smem> -> !layout.tensor<f32, #layout.cute<((2,2),(4,2)):((0,4),(1,8))>, rmem>
!T = !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, gmem>
!N = !layout.tensor<f32, #layout.cute<((2,2),(4,2)):((0,16),(2,100))>, smem>
func.func @likes(%t: !T) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %a = layout.make_tensor_like %t : !T -> !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, rmem>
    %b = layout.make_fragment_like %t : !T -> !layout.tensor<f32, #layout.cute<(4,8):(1,4)>, rmem>
    %s = layout.alloc : !layout.tensor<f32, #layout.cute<1600:1>, smem>
    %n = layout.view %s : !layout.tensor<f32, #layout.cute<1600:1>, smem> -> !N
    %c = layout.make_fragment_like %n : !N -> !layout.tensor<f32, #layout.cute<((2,2),(4,2)):((0,1),(2,8))>, rmem>
    %d = layout.make_tensor_like %n : !N -> !layout.tensor<f32, #layout.cute<((2,2),(4,2)):((0,4),(1,8))>, rmem>
  }
  func.return
}
