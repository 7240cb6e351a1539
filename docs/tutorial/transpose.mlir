// A 256x256 float32 transpose: dst[j][i] = src[i][j]. The destination view is
// column-major over a row-major buffer, so copying element (i, j) of one view to
// element (i, j) of the other transposes.
!Src = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!Dst = !layout.tensor<f32, #layout.cute<(256,256):(1,256)>, gmem>
func.func @transpose(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !Src
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !Dst
  layout.copy %a, %b : !Src, !Dst
  func.return
}
