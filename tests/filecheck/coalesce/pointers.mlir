// RUN: tilec %s -p 'coalesce,vectorize-pointers' | filecheck %s
// RUN: tilec %s -p 'coalesce,vectorize-pointers' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @memcpy_1d: equivalent after
// EQ: @memcpy_1d_odd: equivalent after
// EQ: @no_access: equivalent after
// Pointer tensors (Gluon's ptr + offsets) with the layout left open: `coalesce` reads
// the AxisInfo of the addresses (contiguity, divisibility) as Triton's Coalesce does.

// Offsets pid * 256 + arange(256) from a 16-byte aligned pointer: runs of 256
// consecutive f32 starting at multiples of 16 bytes, so 4 per thread (256 elements
// over 64 threads).
// CHECK-LABEL: func.func @memcpy_1d
// CHECK:         layout.ptr_load {{.*}} {vector = 4 : i64} : tensor<256x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>>
// CHECK:         layout.ptr_store {{.*}} {vector = 4 : i64}
#a = #layout.auto<{rank = 1, warps = 2}>
func.func @memcpy_1d(%in_ptr: !layout.ptr<f32, align 16>, %out_ptr: !layout.ptr<f32, align 16>, %xnumel: index)
    attributes {tilec.args = {xnumel = 1000 : index, in_ptr = 1000 : index, out_ptr = 1000 : index}} {
  %XBLOCK = arith.constant 256 : index
  %grid = arith.ceildivui %xnumel, %XBLOCK : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%grid, %c1, %c1) threads(64) {
  ^bb0(%pid: index, %by: index, %bz: index, %tid: index):
    %pid32 = arith.index_cast %pid : index to i32
    %xblock = arith.constant 256 : i32
    %start = arith.muli %pid32, %xblock : i32
    %indices = layout.arange {start = 0 : i64, end = 256 : i64} : tensor<256xi32, #a>
    %starts = layout.splat %start : i32 -> tensor<256xi32, #a>
    %offsets = arith.addi %starts, %indices : tensor<256xi32, #a>
    %in = layout.splat %in_ptr : !layout.ptr<f32, align 16> -> tensor<256x!layout.ptr<f32>, #a>
    %in_ptrs = layout.addptr %in, %offsets : tensor<256x!layout.ptr<f32>, #a>, tensor<256xi32, #a>
    %n32 = arith.index_cast %xnumel : index to i32
    %n = layout.splat %n32 : i32 -> tensor<256xi32, #a>
    %mask = layout.cmpi slt, %offsets, %n : tensor<256xi32, #a>
    %value = layout.ptr_load %in_ptrs mask %mask : tensor<256xi1, #a> : tensor<256x!layout.ptr<f32>, #a> -> tensor<256xf32, #a>
    %out = layout.splat %out_ptr : !layout.ptr<f32, align 16> -> tensor<256x!layout.ptr<f32>, #a>
    %out_ptrs = layout.addptr %out, %offsets : tensor<256x!layout.ptr<f32>, #a>, tensor<256xi32, #a>
    layout.ptr_store %value, %out_ptrs mask %mask : tensor<256xi1, #a> : tensor<256xf32, #a>, tensor<256x!layout.ptr<f32>, #a>
  }
  func.return
}

// A pointer aligned to its element only: one f32 per thread, lanes on consecutive
// elements.
// CHECK-LABEL: func.func @memcpy_1d_odd
// CHECK:         layout.ptr_load {{.*}} : tensor<256x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>>
func.func @memcpy_1d_odd(%in_ptr: !layout.ptr<f32>, %out_ptr: !layout.ptr<f32>, %xnumel: index)
    attributes {tilec.args = {xnumel = 1000 : index, in_ptr = 1000 : index, out_ptr = 1000 : index}} {
  %XBLOCK = arith.constant 256 : index
  %grid = arith.ceildivui %xnumel, %XBLOCK : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%grid, %c1, %c1) threads(64) {
  ^bb0(%pid: index, %by: index, %bz: index, %tid: index):
    %pid32 = arith.index_cast %pid : index to i32
    %xblock = arith.constant 256 : i32
    %start = arith.muli %pid32, %xblock : i32
    %indices = layout.arange {start = 0 : i64, end = 256 : i64} : tensor<256xi32, #a>
    %starts = layout.splat %start : i32 -> tensor<256xi32, #a>
    %offsets = arith.addi %starts, %indices : tensor<256xi32, #a>
    %in = layout.splat %in_ptr : !layout.ptr<f32> -> tensor<256x!layout.ptr<f32>, #a>
    %in_ptrs = layout.addptr %in, %offsets : tensor<256x!layout.ptr<f32>, #a>, tensor<256xi32, #a>
    %n32 = arith.index_cast %xnumel : index to i32
    %n = layout.splat %n32 : i32 -> tensor<256xi32, #a>
    %mask = layout.cmpi slt, %offsets, %n : tensor<256xi32, #a>
    %value = layout.ptr_load %in_ptrs mask %mask : tensor<256xi1, #a> : tensor<256x!layout.ptr<f32>, #a> -> tensor<256xf32, #a>
    %out = layout.splat %out_ptr : !layout.ptr<f32> -> tensor<256x!layout.ptr<f32>, #a>
    %out_ptrs = layout.addptr %out, %offsets : tensor<256x!layout.ptr<f32>, #a>, tensor<256xi32, #a>
    layout.ptr_store %value, %out_ptrs mask %mask : tensor<256xi1, #a> : tensor<256xf32, #a>, tensor<256x!layout.ptr<f32>, #a>
  }
  func.return
}

// A `#layout.auto` no access uses (only a slice of it is stored) becomes its default:
// one element per thread, lanes and warps along the last dim; dense constants of it
// get the chosen layout too.
// CHECK-LABEL: func.func @no_access
// CHECK:         arith.constant dense<2.000000e+00> : tensor<2x64xf32, #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 2], order = [1, 0]}>>
// CHECK:         layout.reduce {{.*}} -> tensor<2xf32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 2], order = [1, 0]}>}>>
#a2 = #layout.auto<{rank = 2, warps = 2}>
func.func @no_access(%p: !layout.ptr<f32, align 16>) {
  %v = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<2:1>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %t = arith.constant dense<2.0> : tensor<2x64xf32, #a2>
    %s = layout.reduce %t {axis = 1 : i64, kind = "max"} : tensor<2x64xf32, #a2> -> tensor<2xf32, #layout.slice<{dim = 1, parent = #a2}>>
    layout.store %s, %v : tensor<2xf32, #layout.slice<{dim = 1, parent = #a2}>>, !layout.tensor<f32, #layout.cute<2:1>, gmem>
  }
  func.return
}
