// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default --check-equivalence --arg m=3 --arg g=3 | filecheck %s --check-prefix=EQ
// EQ: @rows_of_grid: equivalent after
// EQ: @other_grid: equivalent after
// EQ: @tall_tile: equivalent after
// A masked row tile `[%bx, 0]` of one row over a view of `%m` rows, launched over a
// grid of `%m` blocks (a row kernel as a user writes it): the block ids are exactly the
// rows, so the tile's row check (`bx < m`) is dropped; the column check stays (100 is
// not a multiple of the 128 tile). A grid of another value keeps the row check, and so
// does a tile of several rows (its last rows may pass M).
#l = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(?,100):(100,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,128):(100,1)>, gmem, masked>
!T2 = !layout.tensor<f32, #layout.cute<(2,128):(100,1)>, gmem, masked>

// CHECK-LABEL: rows_of_grid_kernel(
// CHECK-NOT:     < m
// CHECK:         < 100
// CHECK-NOT:     < m
// CHECK:       {{^}$}}
func.func @rows_of_grid(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 128>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 128>} : !G -> !T
    %ninf = arith.constant 0xFF800000 : f32
    %x = layout.load %ta, %ninf : f32 : !T -> tensor<1x128xf32, #l>
    layout.store %x, %tb : tensor<1x128xf32, #l>, !T
  }
  func.return
}

// CHECK-LABEL: other_grid_kernel(
// CHECK:         bx < m
func.func @other_grid(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index, %g: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%g, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 128>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 128>} : !G -> !T
    %ninf = arith.constant 0xFF800000 : f32
    %x = layout.load %ta, %ninf : f32 : !T -> tensor<1x128xf32, #l>
    layout.store %x, %tb : tensor<1x128xf32, #l>, !T
  }
  func.return
}

// CHECK-LABEL: tall_tile_kernel(
// CHECK:         < m
#l2 = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [2, 1], order = [1, 0]}>
func.func @tall_tile(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 2, 128>} : !G -> !T2
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 2, 128>} : !G -> !T2
    %ninf = arith.constant 0xFF800000 : f32
    %x = layout.load %ta, %ninf : f32 : !T2 -> tensor<2x128xf32, #l2>
    layout.store %x, %tb : tensor<2x128xf32, #l2>, !T2
  }
  func.return
}
