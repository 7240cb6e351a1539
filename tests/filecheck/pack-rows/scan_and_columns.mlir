// RUN: tilec %s -p 'pack-rows,coalesce,vectorize' | filecheck %s
// RUN: tilec %s -p 'pack-rows,coalesce,vectorize' --check-equivalence --arg m=7 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence --arg m=7 | filecheck %s --check-prefix=EQ
// EQ: @cumsum_short_rows: equivalent after
// EQ: @column_mask: equivalent after
// EQ: @scan_along_rows_stays: equivalent after
// `pack-rows` also packs a row-wise scan (a cumsum) and a kernel that masks its columns
// with `arange < N` (a layer norm's centred values): the column indices are the same
// for every row, so they stay one row and are broadcast over the packed rows.
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>
#c = #layout.slice<{dim = 0, parent = #a}>
!G = !layout.tensor<f32, #layout.cute<(?,100):(100,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,128):(100,1)>, gmem, masked>
!GI = !layout.tensor<i32, #layout.cute<(?,100):(100,1)>, gmem>
!TI = !layout.tensor<i32, #layout.cute<(1,128):(100,1)>, gmem, masked>

// A cumsum of rows of 100 f32: 8 rows per block, the scan along each row of the 8.
// CHECK-LABEL: func.func @cumsum_short_rows
// CHECK:         arith.constant 8 : index
// CHECK:         layout.tile %a[%bx, %c0] {tile = array<i64: 8, 128>}
// CHECK:         layout.scan {{.*}} {axis = 1 : i64, kind = "add"} : tensor<8x128xi32
func.func @cumsum_short_rows(%src: !layout.ptr<i32, align 16>, %dst: !layout.ptr<i32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<i32, align 16> -> !GI
  %b = layout.view %dst(%m) : !layout.ptr<i32, align 16> -> !GI
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 128>} : !GI -> !TI
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 128>} : !GI -> !TI
    %x = layout.load %ta : !TI -> tensor<1x128xi32, #a>
    %y = layout.scan %x {axis = 1 : i64, kind = "add"} : tensor<1x128xi32, #a>
    layout.store %y, %tb : tensor<1x128xi32, #a>, !TI
  }
  func.return
}

// x - max(x) where the column is < 100, else 0 (a max: exact in any order): the column indices (arange, a slice
// along dim 0) stay one row; their broadcast and the compare get 8 rows.
// CHECK-LABEL: func.func @column_mask
// CHECK:         layout.tile %a[%bx, %c0] {tile = array<i64: 8, 128>}
// CHECK:         layout.arange {start = 0 : i64, end = 128 : i64} : tensor<128xi32
// CHECK:         layout.expand_dims %cols {axis = 0 : i64} : {{.*}} -> tensor<1x128xi32
// CHECK:         layout.broadcast %c2 : tensor<1x128xi32, {{.*}} -> tensor<8x128xi32
// CHECK:         layout.cmpi slt, {{.*}} : tensor<8x128xi32
// CHECK:         layout.select {{.*}} : tensor<8x128xi1
func.func @column_mask(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 128>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 128>} : !G -> !T
    %zero = arith.constant 0.0 : f32
    %x = layout.load %ta, %zero : f32 : !T -> tensor<1x128xf32, #a>
    %s = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x128xf32, #a> -> tensor<1xf32, #r>
    %s1 = layout.expand_dims %s {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %sb = layout.broadcast %s1 : tensor<1x1xf32, #a> -> tensor<1x128xf32, #a>
    %xc = arith.subf %x, %sb : tensor<1x128xf32, #a>
    %cols = layout.arange {start = 0 : i64, end = 128 : i64} : tensor<128xi32, #c>
    %c2 = layout.expand_dims %cols {axis = 0 : i64} : tensor<128xi32, #c> -> tensor<1x128xi32, #a>
    %cb = layout.broadcast %c2 : tensor<1x128xi32, #a> -> tensor<1x128xi32, #a>
    %hundred = arith.constant 100 : i32
    %n = layout.splat %hundred : i32 -> tensor<1x128xi32, #a>
    %inside = layout.cmpi slt, %cb, %n : tensor<1x128xi32, #a>
    %z = layout.splat %zero : f32 -> tensor<1x128xf32, #a>
    %y = layout.select %inside, %xc, %z : tensor<1x128xi1, #a>, tensor<1x128xf32, #a>
    layout.store %y, %tb : tensor<1x128xf32, #a>, !T
  }
  func.return
}

// A scan along the columns (axis 0) is not a row-wise kernel: the launch stays.
// CHECK-LABEL: func.func @scan_along_rows_stays
// CHECK-NOT:     arith.ceildivui
// CHECK:         layout.tile %a[%bx, %c0] {tile = array<i64: 1, 128>}
func.func @scan_along_rows_stays(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 128>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 128>} : !G -> !T
    %x = layout.load %ta : !T -> tensor<1x128xf32, #a>
    %y = layout.scan %x {axis = 0 : i64, kind = "add"} : tensor<1x128xf32, #a>
    layout.store %y, %tb : tensor<1x128xf32, #a>, !T
  }
  func.return
}
