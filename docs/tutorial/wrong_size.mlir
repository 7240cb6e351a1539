// A mistake: the destination view has half as many elements as the source.
!Src = !layout.tensor<f32, #layout.cute<(64,256):(512,1)>, gmem>
!Dst = !layout.tensor<f32, #layout.cute<(64,128):(128,1)>, gmem>
func.func @wrong_size(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !Src
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !Dst
  layout.copy %a, %b : !Src, !Dst
  func.return
}
