// Gluon tutorial, 1D memcpy: copy 2^20 float32 elements. The default pipeline
// picks the tile and a blocked thread layout whose threads each move 16 bytes.
//
//   tilec examples/memcpy_1d.mlir -p default -t cuda
!V = !layout.tensor<f32, #layout.cute<1048576:1>, gmem>
func.func @memcpy_1d(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !V
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !V
  layout.copy %a, %b : !V, !V
  func.return
}
