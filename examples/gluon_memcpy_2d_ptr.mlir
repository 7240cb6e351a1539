// Gluon layouts tutorial, `memcpy_2d_kernel`, line by line with pointer tensors
// (docs/tutorial.md, "Pointer tensors"): each program copies an XBLOCK x YBLOCK =
// 16 x 128 tile of an xnumel x ynumel tensor with any strides (in elements), with
// BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0]); the 1-D indices live in its slices.
//
//   pid_x = gl.program_id(0); pid_y = gl.program_id(1)        %bx, %by
//   start_x = pid_x * XBLOCK; start_y = pid_y * YBLOCK          arith.muli
//   indices_x = start_x + gl.arange(0, XBLOCK, layout=SliceLayout(dim=1, parent=layout))
//   indices_y = start_y + gl.arange(0, YBLOCK, layout=SliceLayout(dim=0, parent=layout))
//   in_offsets = xstride_in * indices_x[:, None] + ystride_in * indices_y[None, :]
//   out_offsets = xstride_out * indices_x[:, None] + ystride_out * indices_y[None, :]
//   mask = (indices_x[:, None] < xnumel) & (indices_y[None, :] < ynumel)
//   value = gl.load(in_ptr + in_offsets, mask=mask)
//   gl.store(out_ptr + out_offsets, value, mask=mask)
//
// `x[:, None]` is layout.expand_dims then layout.broadcast to the tile (Gluon
// broadcasts implicitly). The host side is `memcpy_2d_impl`: grid = (cdiv(xnumel,
// XBLOCK), cdiv(ynumel, YBLOCK)). tilec.args gives the tutorial's test shape 100 x 200,
// row-major; `--arg xstride_in=1 --arg ystride_in=100` reads the input transposed.
//
//   tilec examples/gluon_memcpy_2d_ptr.mlir --run cpu
//   tilec examples/gluon_memcpy_2d_ptr.mlir --run gpu --check
#layout = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#sx = #layout.slice<{dim = 1, parent = #layout}>
#sy = #layout.slice<{dim = 0, parent = #layout}>
!P = tensor<16x128x!layout.ptr<f32>, #layout>
!I = tensor<16x128xi32, #layout>
!M = tensor<16x128xi1, #layout>
!F = tensor<16x128xf32, #layout>
func.func @memcpy_2d(%in_ptr: !layout.ptr<f32, align 16>, %out_ptr: !layout.ptr<f32, align 16>,
                     %xnumel: index, %ynumel: index, %xstride_in: index, %ystride_in: index,
                     %xstride_out: index, %ystride_out: index)
    attributes {tilec.args = {xnumel = 100 : index, ynumel = 200 : index,
                              xstride_in = 200 : index, ystride_in = 1 : index,
                              xstride_out = 200 : index, ystride_out = 1 : index,
                              in_ptr = 20000 : index, out_ptr = 20000 : index}} {
  %XBLOCK = arith.constant 16 : index
  %YBLOCK = arith.constant 128 : index
  %gx = arith.ceildivui %xnumel, %XBLOCK : index
  %gy = arith.ceildivui %ynumel, %YBLOCK : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%gx, %gy, %c1) threads(128) {
  ^bb0(%pid_x: index, %pid_y: index, %bz: index, %tid: index):
    %px = arith.index_cast %pid_x : index to i32
    %py = arith.index_cast %pid_y : index to i32
    %xblock = arith.constant 16 : i32
    %yblock = arith.constant 128 : i32
    %start_x = arith.muli %px, %xblock : i32
    %start_y = arith.muli %py, %yblock : i32
    %ax = layout.arange {start = 0 : i64, end = 16 : i64} : tensor<16xi32, #sx>
    %ay = layout.arange {start = 0 : i64, end = 128 : i64} : tensor<128xi32, #sy>
    %sx0 = layout.splat %start_x : i32 -> tensor<16xi32, #sx>
    %sy0 = layout.splat %start_y : i32 -> tensor<128xi32, #sy>
    %indices_x = arith.addi %sx0, %ax : tensor<16xi32, #sx>
    %indices_y = arith.addi %sy0, %ay : tensor<128xi32, #sy>
    // indices_x[:, None] and indices_y[None, :], broadcast to the tile
    %ix1 = layout.expand_dims %indices_x {axis = 1 : i64} : tensor<16xi32, #sx> -> tensor<16x1xi32, #layout>
    %iy1 = layout.expand_dims %indices_y {axis = 0 : i64} : tensor<128xi32, #sy> -> tensor<1x128xi32, #layout>
    %ix = layout.broadcast %ix1 : tensor<16x1xi32, #layout> -> !I
    %iy = layout.broadcast %iy1 : tensor<1x128xi32, #layout> -> !I
    // strides and extents as i32 tensors
    %xsi = arith.index_cast %xstride_in : index to i32
    %ysi = arith.index_cast %ystride_in : index to i32
    %xso = arith.index_cast %xstride_out : index to i32
    %yso = arith.index_cast %ystride_out : index to i32
    %xn = arith.index_cast %xnumel : index to i32
    %yn = arith.index_cast %ynumel : index to i32
    %xsi_t = layout.splat %xsi : i32 -> !I
    %ysi_t = layout.splat %ysi : i32 -> !I
    %xso_t = layout.splat %xso : i32 -> !I
    %yso_t = layout.splat %yso : i32 -> !I
    %xn_t = layout.splat %xn : i32 -> !I
    %yn_t = layout.splat %yn : i32 -> !I
    // in_offsets = xstride_in * indices_x[:, None] + ystride_in * indices_y[None, :]
    %i0 = arith.muli %xsi_t, %ix : !I
    %i1 = arith.muli %ysi_t, %iy : !I
    %in_offsets = arith.addi %i0, %i1 : !I
    %o0 = arith.muli %xso_t, %ix : !I
    %o1 = arith.muli %yso_t, %iy : !I
    %out_offsets = arith.addi %o0, %o1 : !I
    // mask = (indices_x[:, None] < xnumel) & (indices_y[None, :] < ynumel)
    %mx = layout.cmpi slt, %ix, %xn_t : !I
    %my = layout.cmpi slt, %iy, %yn_t : !I
    %mask = arith.andi %mx, %my : !M
    %in = layout.splat %in_ptr : !layout.ptr<f32, align 16> -> !P
    %in_ptrs = layout.addptr %in, %in_offsets : !P, !I
    %value = layout.ptr_load %in_ptrs mask %mask : !M : !P -> !F
    %out = layout.splat %out_ptr : !layout.ptr<f32, align 16> -> !P
    %out_ptrs = layout.addptr %out, %out_offsets : !P, !I
    layout.ptr_store %value, %out_ptrs mask %mask : !M : !F, !P
  }
  func.return
}
