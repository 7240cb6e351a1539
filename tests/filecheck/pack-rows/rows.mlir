// RUN: tilec %s -p 'pack-rows,coalesce,vectorize' | filecheck %s
// RUN: tilec %s -p 'pack-rows,coalesce,vectorize' --check-equivalence --arg m=7 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence --arg m=7 | filecheck %s --check-prefix=EQ
// EQ: @short_rows: equivalent after
// EQ: @long_rows: equivalent after
// EQ: @explicit_layout: equivalent after
// EQ: @block_id_used: equivalent after
// EQ: @static_rows: equivalent after
// EQ: @row_invariant_2d: equivalent after
// EQ: @nested_rows: equivalent after
// `pack-rows` gives a block several rows of a row-wise kernel whose rows are short and
// whose layouts are left to the compiler (`#layout.auto`); other launches stay as written.
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>
#c = #layout.slice<{dim = 0, parent = #a}>
!G = !layout.tensor<f32, #layout.cute<(?,100):(100,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,128):(100,1)>, gmem, masked>
!W = !layout.tensor<f32, #layout.cute<100:1>, gmem>
!WT = !layout.tensor<f32, #layout.cute<128:1>, gmem, masked>

// Rows of 100 f32 under a 128 tile, 128 threads: 8 rows per block (each thread 32 bytes),
// the grid ceil(M / 8); the weights (expand_dims along axis 0) stay one row, broadcast
// over the 8; the splat constant gets 8 rows; the warps go along the rows.
// CHECK-LABEL: func.func @short_rows
// CHECK:         %[[R:.*]] = arith.constant 8 : index
// CHECK:         %[[G:.*]] = arith.ceildivui %m, %[[R]] : index
// CHECK:         layout.launch grid(%[[G]],
// CHECK:         layout.tile %a[%bx, %c0] {tile = array<i64: 8, 128>}
// CHECK:         layout.load {{.*}} {vector = 4 : i64{{(, uniform_mask)?}}} : {{.*}} -> tensor<8x128xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK:         layout.expand_dims %wt {axis = 0 : i64} : {{.*}} -> tensor<1x128xf32
// CHECK:         layout.broadcast %w1 : tensor<1x128xf32, {{.*}} -> tensor<8x128xf32
// CHECK:         arith.constant dense<2.000000e+00> : tensor<8x128xf32
// CHECK:         layout.reduce {{.*}} -> tensor<8xf32
func.func @short_rows(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %w: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G
  %wv = layout.view %w : !layout.ptr<f32, align 16> -> !W
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 128>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 128>} : !G -> !T
    %tw = layout.tile %wv[%c0] {tile = array<i64: 128>} : !W -> !WT
    %ninf = arith.constant 0xFF800000 : f32
    %x = layout.load %ta, %ninf : f32 : !T -> tensor<1x128xf32, #a>
    %wt = layout.load %tw : !WT -> tensor<128xf32, #c>
    %w1 = layout.expand_dims %wt {axis = 0 : i64} : tensor<128xf32, #c> -> tensor<1x128xf32, #a>
    %wb = layout.broadcast %w1 : tensor<1x128xf32, #a> -> tensor<1x128xf32, #a>
    %two = arith.constant dense<2.0> : tensor<1x128xf32, #a>
    %mx = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x128xf32, #a> -> tensor<1xf32, #r>
    %mb1 = layout.expand_dims %mx {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %mb = layout.broadcast %mb1 : tensor<1x1xf32, #a> -> tensor<1x128xf32, #a>
    %d = arith.subf %x, %mb : tensor<1x128xf32, #a>
    %dw = arith.mulf %d, %wb : tensor<1x128xf32, #a>
    %y = arith.mulf %dw, %two : tensor<1x128xf32, #a>
    layout.store %y, %tb : tensor<1x128xf32, #a>, !T
  }
  func.return
}

// Rows of 1000 (a 1024 tile) are long enough: one row per block.
// CHECK-LABEL: func.func @long_rows
// CHECK-NOT:     arith.ceildivui
// CHECK:         layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>}
#b1 = #layout.auto<{rank = 2, warps = 4}>
#r1 = #layout.slice<{dim = 1, parent = #b1}>
func.func @long_rows(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,1000):(1000,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,1000):(1000,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f32, #layout.cute<(?,1000):(1000,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f32, #layout.cute<(?,1000):(1000,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
    %x = layout.load %ta : !layout.tensor<f32, #layout.cute<(1,1024):(1000,1)>, gmem, masked> -> tensor<1x1024xf32, #b1>
    %y = arith.addf %x, %x : tensor<1x1024xf32, #b1>
    layout.store %y, %tb : tensor<1x1024xf32, #b1>, !layout.tensor<f32, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
  }
  func.return
}

// A layout the author wrote: the shapes are the author's too.
// CHECK-LABEL: func.func @explicit_layout
// CHECK-NOT:     arith.ceildivui
// CHECK:         layout.tile %a[%bx, %c0] {tile = array<i64: 1, 128>}
#e = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
func.func @explicit_layout(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,100):(100,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,100):(100,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 128>} : !layout.tensor<f32, #layout.cute<(?,100):(100,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,128):(100,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 128>} : !layout.tensor<f32, #layout.cute<(?,100):(100,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,128):(100,1)>, gmem, masked>
    %x = layout.load %ta : !layout.tensor<f32, #layout.cute<(1,128):(100,1)>, gmem, masked> -> tensor<1x128xf32, #e>
    layout.store %x, %tb : tensor<1x128xf32, #e>, !layout.tensor<f32, #layout.cute<(1,128):(100,1)>, gmem, masked>
  }
  func.return
}

// The block id is used beyond the row tiles (here: the row of a second view is bx + 1,
// a shift the packed tiles would not keep): left alone.
// CHECK-LABEL: func.func @block_id_used
// CHECK-NOT:     arith.ceildivui
// CHECK:         layout.tile %a[%bx, %c0] {tile = array<i64: 1, 128>}
#u = #layout.auto<{rank = 2, warps = 4}>
func.func @block_id_used(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,100):(100,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,100):(100,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %n = arith.addi %bx, %c1 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 128>} : !layout.tensor<f32, #layout.cute<(?,100):(100,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,128):(100,1)>, gmem, masked>
    %tb = layout.tile %b[%n, %c0] {tile = array<i64: 1, 128>} : !layout.tensor<f32, #layout.cute<(?,100):(100,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,128):(100,1)>, gmem, masked>
    %x = layout.load %ta : !layout.tensor<f32, #layout.cute<(1,128):(100,1)>, gmem, masked> -> tensor<1x128xf32, #u>
    layout.store %x, %tb : tensor<1x128xf32, #u>, !layout.tensor<f32, #layout.cute<(1,128):(100,1)>, gmem, masked>
  }
  func.return
}

// A static row count (the grid is the same constant): 20 rows of 64 f16, 4 warps:
// 32 bytes per thread make 32 rows per block, one block covers the 20 (masked).
// CHECK-LABEL: func.func @static_rows
// CHECK:         %[[R:.*]] = arith.constant 32 : index
// CHECK:         %[[G:.*]] = arith.ceildivui %c20, %[[R]] : index
// CHECK:         layout.tile %a[%bx, %c0] {tile = array<i64: 32, 64>} {{.*}} -> !layout.tensor<f16, #layout.cute<(32,64):(64,1)>, gmem, masked>
#s = #layout.auto<{rank = 2, warps = 4}>
func.func @static_rows(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>) {
  %a = layout.view %src : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(20,64):(64,1)>, gmem>
  %b = layout.view %dst : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(20,64):(64,1)>, gmem>
  %c1 = arith.constant 1 : index
  %c20 = arith.constant 20 : index
  layout.launch grid(%c20, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 64>} : !layout.tensor<f16, #layout.cute<(20,64):(64,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,64):(64,1)>, gmem>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 64>} : !layout.tensor<f16, #layout.cute<(20,64):(64,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,64):(64,1)>, gmem>
    %x = layout.load %ta : !layout.tensor<f16, #layout.cute<(1,64):(64,1)>, gmem> -> tensor<1x64xf16, #s>
    %m = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x64xf16, #s> -> tensor<1xf16, #layout.slice<{dim = 1, parent = #s}>>
    %m1 = layout.expand_dims %m {axis = 1 : i64} : tensor<1xf16, #layout.slice<{dim = 1, parent = #s}>> -> tensor<1x1xf16, #s>
    %mb = layout.broadcast %m1 : tensor<1x1xf16, #s> -> tensor<1x64xf16, #s>
    %y = arith.subf %x, %mb : tensor<1x64xf16, #s>
    layout.store %y, %tb : tensor<1x64xf16, #s>, !layout.tensor<f16, #layout.cute<(1,64):(64,1)>, gmem>
  }
  func.return
}

// A row-invariant tensor loaded as one 2-D row (a 1 x 128 view, not indexed by the block)
// would keep its view's shape while the rows around it grow: left alone.
// CHECK-LABEL: func.func @row_invariant_2d
// CHECK-NOT:     arith.ceildivui
// CHECK:         layout.tile %a[%bx, %c0] {tile = array<i64: 1, 128>}
#v = #layout.auto<{rank = 2, warps = 4}>
func.func @row_invariant_2d(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %w: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,128):(128,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,128):(128,1)>, gmem>
  %wv = layout.view %w : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1,128):(128,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 128>} : !layout.tensor<f32, #layout.cute<(?,128):(128,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,128):(128,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 128>} : !layout.tensor<f32, #layout.cute<(?,128):(128,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,128):(128,1)>, gmem, masked>
    %x = layout.load %ta : !layout.tensor<f32, #layout.cute<(1,128):(128,1)>, gmem, masked> -> tensor<1x128xf32, #v>
    %wt = layout.load %wv : !layout.tensor<f32, #layout.cute<(1,128):(128,1)>, gmem> -> tensor<1x128xf32, #v>
    %y = arith.mulf %x, %wt : tensor<1x128xf32, #v>
    layout.store %y, %tb : tensor<1x128xf32, #v>, !layout.tensor<f32, #layout.cute<(1,128):(128,1)>, gmem, masked>
  }
  func.return
}

// Rows of a nested mode ((3,7) rows of 64 i8): a packed tile of 64 rows does not fit
// the mode (building it is a LayoutError), so the launch stays as written.
// CHECK-LABEL: func.func @nested_rows
// CHECK-NOT:     arith.ceildivui
// CHECK:         layout.tile %a[%bx, %c0] {tile = array<i64: 1, 64>}
#n = #layout.auto<{rank = 2, warps = 4}>
!NG = !layout.tensor<i8, #layout.cute<((3,7),64):((64,192),1)>, gmem>
!NT = !layout.tensor<i8, #layout.cute<(1,64):(64,1)>, gmem>
func.func @nested_rows(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !NG
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !NG
  %c1 = arith.constant 1 : index
  %c21 = arith.constant 21 : index
  layout.launch grid(%c21, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 64>} : !NG -> !NT
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 64>} : !NG -> !NT
    %x = layout.load %ta : !NT -> tensor<1x64xi8, #n>
    layout.store %x, %tb : tensor<1x64xi8, #n>, !NT
  }
  func.return
}
