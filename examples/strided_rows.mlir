// Every second row of a 1024x512 float32 matrix into a contiguous 512x512 one:
// PyTorch's `x[::2].contiguous()`. The source view's row stride is 2*512.
!Src = !layout.tensor<f32, #layout.cute<(512,512):(1024,1)>, gmem>
!Dst = !layout.tensor<f32, #layout.cute<(512,512):(512,1)>, gmem>
func.func @strided_rows(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !Src
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !Dst
  layout.copy %a, %b : !Src, !Dst
  func.return
}
