// Gluon layouts tutorial, `memcpy_1d_kernel`, line by line with pointer tensors
// (docs/tutorial.md, "Pointer tensors"): each program copies XBLOCK = 256 elements of
// xnumel with BlockedLayout([1], [32], [4], [0]) and a mask for the last block.
//
//   pid = gl.program_id(0)                          %bx
//   start = pid * XBLOCK                            %start = arith.muli
//   indices = gl.arange(0, XBLOCK, layout=layout)   layout.arange
//   offsets = start + indices                       layout.splat + arith.addi
//   in_ptrs = in_ptr + offsets                      layout.splat %in_ptr + layout.addptr
//   mask = offsets < xnumel                         layout.cmpi slt
//   value = gl.load(in_ptrs, mask=mask)             layout.ptr_load ... mask
//   out_ptrs = out_ptr + offsets                    layout.addptr
//   gl.store(out_ptrs, value, mask=mask)            layout.ptr_store ... mask
//
// The host side is `memcpy_1d_impl`: grid = cdiv(xnumel, XBLOCK). The buffers hold
// xnumel elements (tilec.args: 1000, the tutorial's test size).
//
//   tilec examples/gluon_memcpy_1d_ptr.mlir --run cpu
//   tilec examples/gluon_memcpy_1d_ptr.mlir --run gpu --check
#layout = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
!P = tensor<256x!layout.ptr<f32>, #layout>
!I = tensor<256xi32, #layout>
!M = tensor<256xi1, #layout>
!F = tensor<256xf32, #layout>
func.func @memcpy_1d(%in_ptr: !layout.ptr<f32, align 16>, %out_ptr: !layout.ptr<f32, align 16>, %xnumel: index)
    attributes {tilec.args = {xnumel = 1000 : index, in_ptr = 1000 : index, out_ptr = 1000 : index}} {
  %XBLOCK = arith.constant 256 : index
  %grid = arith.ceildivui %xnumel, %XBLOCK : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%grid, %c1, %c1) threads(128) {
  ^bb0(%pid: index, %by: index, %bz: index, %tid: index):
    %pid32 = arith.index_cast %pid : index to i32
    %xblock = arith.constant 256 : i32
    %start = arith.muli %pid32, %xblock : i32
    %indices = layout.arange {start = 0 : i64, end = 256 : i64} : !I
    %starts = layout.splat %start : i32 -> !I
    %offsets = arith.addi %starts, %indices : !I
    %in = layout.splat %in_ptr : !layout.ptr<f32, align 16> -> !P
    %in_ptrs = layout.addptr %in, %offsets : !P, !I
    %n32 = arith.index_cast %xnumel : index to i32
    %n = layout.splat %n32 : i32 -> !I
    %mask = layout.cmpi slt, %offsets, %n : !I
    %value = layout.ptr_load %in_ptrs mask %mask : !M : !P -> !F
    %out = layout.splat %out_ptr : !layout.ptr<f32, align 16> -> !P
    %out_ptrs = layout.addptr %out, %offsets : !P, !I
    layout.ptr_store %value, %out_ptrs mask %mask : !M : !F, !P
  }
  func.return
}
