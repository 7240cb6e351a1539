// layout.compose (CuTe's composition(tensor, tiler)) inside a launch: block j copies
// the by-mode strided sub-tensor of tile j of CuTe's 24x16 example (every 3rd row,
// every 2nd column of the tile's 24x8 columns); the index arithmetic folds to constants.
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s
// EQ: @strided_subtensor: equivalent after 'default'
// CHECK-LABEL: strided_subtensor_kernel(
// CHECK-COUNT-32: dst[
!G = !layout.tensor<f32, #layout.cute<(24,16):(1,24)>, gmem>
!H = !layout.tensor<f32, #layout.cute<(24,8):(1,24)>, gmem>
!C = !layout.tensor<f32, #layout.cute<(8,4):(3,48)>, gmem>
!D = !layout.tensor<f32, #layout.cute<(8,4):(1,8)>, gmem>
!O = !layout.tensor<f32, #layout.cute<(8,4,2):(1,8,32)>, gmem>
func.func @strided_subtensor(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !G
  %o = layout.view %dst : !layout.ptr<f32> -> !O
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c2, %c1, %c1) threads(1) {
  ^bb0(%j: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %t = layout.tile %a[%c0, %j] {tile = array<i64: 24, 8>} : !G -> !H
    %s = layout.compose %t {tiler = [#layout.cute<8:3>, #layout.cute<4:2>]} : !H -> !C
    %d = layout.slice %o[_, _, %j] : !O -> !D
    layout.copy %s, %d : !C, !D
  }
  func.return
}
