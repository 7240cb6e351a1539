// Fused permute + cast + scale, the "transpose to bf16" of training code:
// dst[j, i] = bf16(scale * src[i, j]) for a 1024x1024 float32 src. Each block loads a
// 64x64 tile with a layout coalesced for the row-major source (16 bytes per thread),
// scales and rounds it to bf16 in registers, converts the layout to one coalesced for
// the transposed destination (through shared memory), and stores it.
//
//   tilec examples/permute_cast_scale.mlir --run cpu
//   tilec examples/permute_cast_scale.mlir --run gpu --check
#in = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]}>
#out = #layout.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 8], order = [0, 1]}>
!Gi = !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
!Go = !layout.tensor<bf16, #layout.cute<(1024,1024):(1,1024)>, gmem>
!Ti = !layout.tensor<f32, #layout.cute<(64,64):(1024,1)>, gmem>
!To = !layout.tensor<bf16, #layout.cute<(64,64):(1,1024)>, gmem>
func.func @permute_cast_scale(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<bf16, align 16>, %scale: f32) attributes {tilec.args = {scale = 0.5 : f32}} {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !Gi
  %b = layout.view %dst : !layout.ptr<bf16, align 16> -> !Go
  %c16 = arith.constant 16 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c16, %c16, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 64, 64>} : !Gi -> !Ti
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 64, 64>} : !Go -> !To
    %v = layout.load %ta : !Ti -> tensor<64x64xf32, #in>
    %s = layout.splat %scale : f32 -> tensor<64x64xf32, #in>
    %w = arith.mulf %v, %s : tensor<64x64xf32, #in>
    %h = arith.truncf %w : tensor<64x64xf32, #in> to tensor<64x64xbf16, #in>
    %o = layout.convert_layout %h : tensor<64x64xbf16, #in> -> tensor<64x64xbf16, #out>
    layout.store %o, %tb : tensor<64x64xbf16, #out>, !To
  }
  func.return
}
