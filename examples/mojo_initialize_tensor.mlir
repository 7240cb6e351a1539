// Mojo's LayoutTensor guide, `initialize_tensor_from_cpu_example`, as the seed writes it:
// a 32x8 row-major float32 tensor incremented in place by one thread per element,
// `tensor[global_idx.x, global_idx.y] = tensor[global_idx.x, global_idx.y] + 1` under
// `if global_idx.x < 32 and global_idx.y < 8`, with 8x8 blocks on a 4x4 grid (the seed's
// over-provisioned grid: num_blocks = 32 * 8 // 64 = 4 in both dimensions, so most
// blocks find no element). `threads(8, 8)` is the seed's block_dim=(8, 8), and
// `layout.global_idx x` its global_idx.x.
//
//   tilec examples/mojo_initialize_tensor.mlir --run cpu
//   tilec examples/mojo_initialize_tensor.mlir -p default -t cuda
//   tilec examples/mojo_initialize_tensor.mlir --run gpu --check
!T = !layout.tensor<f32, #layout.cute<(32,8):(8,1)>, gmem>
func.func @initialize_tensor(%buf: !layout.ptr<f32>) {
  %tensor = layout.view %buf : !layout.ptr<f32> -> !T
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c4, %c1) threads(8, 8) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %gx = layout.global_idx x
    %gy = layout.global_idx y
    %in_x = arith.cmpi ult, %gx, %c32 : index
    %in_y = arith.cmpi ult, %gy, %c8 : index
    %in = arith.andi %in_x, %in_y : i1
    scf.if %in {
      %x = layout.read %tensor[%gx, %gy] : !T -> f32
      %one = arith.constant 1.0 : f32
      %y = arith.addf %x, %one : f32
      layout.write %y, %tensor[%gx, %gy] : f32, !T
    }
  }
  func.return
}
