// Transpose a 1021x1027 float32 matrix: a size that divides nothing.
//
// Rows of 1027 floats start off 16-byte boundaries, so no 16-byte vector is legal
// on either side. `tilec -p default` picks a 256x128 tile at 512 threads for such a
// transpose (docs/passes.md, `tile`): long runs on both sides, so few sectors are
// shared between neighbouring tiles. Tiles at the edges are masked; the threads of
// a tile that lies inside the matrix take an unmasked fast path.
//
//   tilec examples/transpose_odd.mlir --run cpu
//   tilec examples/transpose_odd.mlir -p default -t cuda
!Src = !layout.tensor<f32, #layout.cute<(1021,1027):(1027,1)>, gmem>
!Dst = !layout.tensor<f32, #layout.cute<(1021,1027):(1,1021)>, gmem>
func.func @transpose_odd(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !Src
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !Dst
  layout.copy %a, %b : !Src, !Dst
  func.return
}
