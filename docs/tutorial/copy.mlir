// The left half of a 64x512 float32 matrix, copied into a contiguous 64x256 one:
// NumPy's dst[:] = src[:, :256]. The source view's rows are 512 elements apart.
!Src = !layout.tensor<f32, #layout.cute<(64,256):(512,1)>, gmem>
!Dst = !layout.tensor<f32, #layout.cute<(64,256):(256,1)>, gmem>
func.func @left_half(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !Src
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !Dst
  layout.copy %a, %b : !Src, !Dst
  func.return
}
