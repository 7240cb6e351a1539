// RUN: tilec %s -p "coarsen-grid{min_waves=0}" | filecheck %s
// RUN: tilec %s -p "coarsen-grid" | filecheck %s --check-prefix=WAVES
// RUN: tilec %s -p "coarsen-grid{min_waves=0}" --check-equivalence | filecheck %s --check-prefix=EQ
// Launches that keep one tile a block.

// EQ: @big_tiles: equivalent after 'coarsen-grid{min_waves=0}'

// A 64x64 f32 tile at 256 threads loads 16 KiB a block; 8 blocks a multiprocessor (by
// threads) hold 128 KiB in flight, more than sm_90's 61 KB.
// CHECK-LABEL: func.func @big_tiles
// CHECK-NOT:     scf.for
// CHECK:         func.return
!G = !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,64):(128,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
func.func @big_tiles(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c2, %c2, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%by, %bx] {tile = array<i64: 64, 64>} : !G -> !T
    %tb = layout.tile %b[%by, %bx] {tile = array<i64: 64, 64>} : !G -> !T
    %s = layout.alloc : !S
    layout.copy %ta, %s : !T, !S
    layout.barrier
    layout.copy %s, %tb : !S, !T
  }
  func.return
}

// Small tiles in a grid that, coarsened, would not fill two rounds of resident blocks
// (the default `min_waves`): left; with min_waves=0 coarsened.
// WAVES-LABEL: func.func @small_grid
// WAVES-NOT:     scf.for
// WAVES:         func.return
// CHECK-LABEL: func.func @small_grid
// CHECK:         scf.for
!G2 = !layout.tensor<f32, #layout.cute<(32,64):(64,1)>, gmem>
!T2 = !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
!S2 = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
func.func @small_grid(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G2
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G2
  %gx = arith.constant 4 : index
  %gy = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%gx, %gy, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%by, %bx] {tile = array<i64: 16, 16>} : !G2 -> !T2
    %tb = layout.tile %b[%by, %bx] {tile = array<i64: 16, 16>} : !G2 -> !T2
    %s = layout.alloc : !S2
    layout.copy %ta, %s : !T2, !S2
    layout.barrier
    layout.copy %s, %tb : !S2, !T2
  }
  func.return
}

// A body that is not straight-line work on one tile (a loop): left.
// CHECK-LABEL: func.func @with_loop
// CHECK:         layout.launch grid(%gx, %gy, %c1)
// CHECK-NOT:     tilec.num_stages
// CHECK:         func.return
func.func @with_loop(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G2
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G2
  %gx = arith.constant 4 : index
  %gy = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%gx, %gy, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S2
    %c0 = arith.constant 0 : index
    %n = arith.constant 1 : index
    scf.for %i = %c0 to %n step %n {
      %ta = layout.tile %a[%by, %bx] {tile = array<i64: 16, 16>} : !G2 -> !T2
      %tb = layout.tile %b[%by, %bx] {tile = array<i64: 16, 16>} : !G2 -> !T2
      layout.copy %ta, %s : !T2, !S2
      layout.barrier
      layout.copy %s, %tb : !S2, !T2
    }
  }
  func.return
}
