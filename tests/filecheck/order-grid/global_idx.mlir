// RUN: tilec %s -p order-grid | filecheck %s
// RUN: tilec %s -p order-grid --check-equivalence | filecheck %s --check-prefix=EQ
// Regression (found writing seed 000's copy_from_async_example): a launch that reads
// layout.global_idx keeps its block order. The swap moved the hardware block x to the
// tile's column coordinate, but global_idx x = block x * 16 + thread x still read block
// x, so the computed element of each tile came out transposed between blocks.

// EQ: @computed_tile: equivalent after 'order-grid'

// CHECK-LABEL: func.func @computed_tile
// CHECK:         %[[G8:.*]] = arith.constant 8 : index
// CHECK:         %[[G4:.*]] = arith.constant 4 : index
// CHECK:         layout.launch grid(%[[G8]], %[[G4]], %{{.*}}) threads(16, 16) {
!G = !layout.tensor<f32, #layout.cute<(128,64):(64,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
func.func @computed_tile(%dst: !layout.ptr<f32>) {
  %b = layout.view %dst : !layout.ptr<f32> -> !G
  %gx = arith.constant 8 : index
  %gy = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%gx, %gy, %c1) threads(16, 16) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %x = layout.global_idx x
    %y = layout.global_idx y
    %tx = layout.thread_idx x
    %ty = layout.thread_idx y
    %c64 = arith.constant 64 : index
    %row = arith.muli %x, %c64 : index
    %i = arith.addi %row, %y : index
    %i64 = arith.index_cast %i : index to i64
    %v = arith.sitofp %i64 : i64 to f32
    layout.write %v, %tb[%tx, %ty] : f32, !T
  }
  func.return
}
