// RUN: tilec %s -p order-grid | filecheck %s
// RUN: tilec %s -p order-grid --check-equivalence | filecheck %s --check-prefix=EQ
// Block x goes to the block coordinate whose neighbouring ids take neighbouring tiles
// of the written views (read views break ties); results never change.

// EQ: @round_trip: equivalent after 'order-grid'
// EQ: @transpose: equivalent after 'order-grid'

// A row-major round trip tiled [rows, columns]: x moved rows 16 at a time (4 KiB
// apart); swapped, x walks the columns (64 bytes apart).
// CHECK-LABEL: func.func @round_trip
// CHECK:         %[[GX:.*]] = arith.constant 8 : index
// CHECK:         %[[GY:.*]] = arith.constant 4 : index
// CHECK:         layout.launch grid(%[[GY]], %[[GX]], %{{.*}}) threads(64) {
// CHECK-NEXT:    ^{{.*}}(%[[BX:.*]]: index, %[[BY:.*]]: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT:      layout.tile %{{.*}}[%[[BY]], %[[BX]]]
// CHECK-NEXT:      layout.tile %{{.*}}[%[[BY]], %[[BX]]]
!G = !layout.tensor<f32, #layout.cute<(128,64):(64,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
func.func @round_trip(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %gx = arith.constant 8 : index
  %gy = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%gx, %gy, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %s = layout.alloc : !S
    layout.copy %ta, %s : !T, !S
    layout.barrier
    layout.copy %s, %tb : !S, !T
  }
  func.return
}

// A transpose: x already walks the destination's contiguous mode; kept.
// CHECK-LABEL: func.func @transpose
// CHECK:         layout.launch grid(%[[X:[^,]*]], %[[Y:[^,]*]], %{{.*}}) threads(32) {
// CHECK-NEXT:    ^{{.*}}(%[[BX:.*]]: index, %[[BY:.*]]: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT:      layout.tile %{{.*}}[%[[BX]], %[[BY]]]
!A = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!B = !layout.tensor<f32, #layout.cute<(64,64):(1,64)>, gmem>
!TA = !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
!TB = !layout.tensor<f32, #layout.cute<(16,16):(1,64)>, gmem>
func.func @transpose(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !A
  %b = layout.view %dst : !layout.ptr<f32> -> !B
  %g = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g, %g, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 16, 16>} : !A -> !TA
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 16, 16>} : !B -> !TB
    layout.copy %ta, %tb : !TA, !TB
  }
  func.return
}
