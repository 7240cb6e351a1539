#in = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#out = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
!Gi = !layout.tensor<f32, #layout.cute<(512,512):(512,1)>, gmem>
!Go = !layout.tensor<f32, #layout.cute<(512,512):(1,512)>, gmem>
!Ti = !layout.tensor<f32, #layout.cute<(256,256):(512,1)>, gmem>
!To = !layout.tensor<f32, #layout.cute<(256,256):(1,512)>, gmem>
func.func @in_out(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !Gi
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !Go
  %g = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g, %g, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 256, 256>} : !Gi -> !Ti
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 256, 256>} : !Go -> !To
    %v = layout.load %ta : !Ti -> tensor<256x256xf32, #in>
    %w = layout.convert_layout %v : tensor<256x256xf32, #in> -> tensor<256x256xf32, #out>
    layout.store %w, %tb : tensor<256x256xf32, #out>, !To
  }
  func.return
}
