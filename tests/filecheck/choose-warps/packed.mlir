// RUN: tilec %s -p 'pack-rows,choose-warps' | filecheck %s
// RUN: tilec %s -p 'pack-rows,choose-warps' --check-equivalence --arg m=7 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence --arg m=7 | filecheck %s --check-prefix=EQ
// EQ: @short_rows: equivalent after
// EQ: @no_access: equivalent after
// EQ: @written_layout: equivalent after
// `choose-warps` after `pack-rows`: short rows are packed for the 128 threads a
// `threads(auto)` launch has until the warps are chosen (32 bytes per thread), and the
// packed tile then keeps 4 warps; a launch that loads and stores nothing keeps 128.
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>
!G = !layout.tensor<f32, #layout.cute<(?,100):(100,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,128):(100,1)>, gmem, masked>

// Rows of 100 f32 under a 128 tile: 8 rows per block (8 x 128 x 4 = 4 KiB), 4 warps.
// CHECK-LABEL: func.func @short_rows
// CHECK:         layout.launch grid(%{{.*}}, %c1, %c1) threads(128) {
// CHECK:         layout.load {{.*}} -> tensor<8x128xf32, #layout.auto<{rank = 2, warps = 4}>>
// CHECK:         layout.reduce {{.*}} -> tensor<8xf32, #layout.slice<{dim = 1, parent = #layout.auto<{rank = 2, warps = 4}>}>>
func.func @short_rows(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 128>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 128>} : !G -> !T
    %ninf = arith.constant 0xFF800000 : f32
    %x = layout.load %ta, %ninf : f32 : !T -> tensor<1x128xf32, #a>
    %mx = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x128xf32, #a> -> tensor<1xf32, #r>
    %mb1 = layout.expand_dims %mx {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %mb = layout.broadcast %mb1 : tensor<1x1xf32, #a> -> tensor<1x128xf32, #a>
    %d = arith.subf %x, %mb : tensor<1x128xf32, #a>
    layout.store %d, %tb : tensor<1x128xf32, #a>, !T
  }
  func.return
}

// CHECK-LABEL: func.func @no_access
// CHECK:         layout.launch grid(%m, %m, %m) threads(128) {
func.func @no_access(%m: index) {
  layout.launch grid(%m, %m, %m) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %z = arith.constant dense<1.0> : tensor<1x128xf32, #a>
  }
  func.return
}

// A layout written in an open launch pins its threads: 128, now written (the 16 KiB
// tile would otherwise get 8 warps).
// CHECK-LABEL: func.func @written_layout
// CHECK:         layout.launch grid(%c1, %c1, %c1) threads(128) {
// CHECK:         tensor<1x4096xf32, #layout.auto<{rank = 2, warps = 4}>>
func.func @written_layout(%p: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1,4096):(4096,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !layout.tensor<f32, #layout.cute<(1,4096):(4096,1)>, gmem> -> tensor<1x4096xf32, #a>
    %z = arith.constant dense<1.0> : tensor<1x4096xf32, #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
  }
  func.return
}
