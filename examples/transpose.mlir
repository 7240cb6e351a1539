// Transpose a 1024x1024 float32 matrix: dst[j][i] = src[i][j].
//
// The source view is row-major, the destination view is column-major over a
// row-major buffer; copying element (i, j) of one view to element (i, j) of the
// other transposes. Nothing here says how: `tilec -p default` tiles the copy,
// loads each tile with a layout coalesced along the source's rows, converts it
// through shared memory, and stores it coalesced along the destination's rows.
//
//   tilec examples/transpose.mlir --run cpu
//   tilec examples/transpose.mlir -p default -t cuda
!Src = !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
!Dst = !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
func.func @transpose(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !Src
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !Dst
  layout.copy %a, %b : !Src, !Dst
  func.return
}
