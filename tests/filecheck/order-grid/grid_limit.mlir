// RUN: tilec %s -p order-grid | filecheck %s
// (Too many blocks for the CPU reference executor: no --check-equivalence here.)

// Swapping would give y 65536 blocks, past CUDA's limit of 65535: kept.
// CHECK-LABEL: func.func @too_tall
// CHECK:         %[[GX:.*]] = arith.constant 65536 : index
// CHECK:         layout.launch grid(%[[GX]], %{{.*}}, %{{.*}}) threads(1) {
!H = !layout.tensor<f32, #layout.cute<(65536,2):(2,1)>, gmem>
!TH = !layout.tensor<f32, #layout.cute<(1,1):(2,1)>, gmem>
func.func @too_tall(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !H
  %b = layout.view %dst : !layout.ptr<f32> -> !H
  %gx = arith.constant 65536 : index
  %gy = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%gx, %gy, %c1) threads(1) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 1, 1>} : !H -> !TH
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 1, 1>} : !H -> !TH
    layout.copy %ta, %tb : !TH, !TH
  }
  func.return
}
