// Mojo's `elements = tensor.load[4](x, y); tensor.store[4](x, y, elements * 2)` at
// element coordinates (layout.read / layout.write {width = 4}): where the first
// element's index is known a multiple of 4 (y = 4 * j, rows of 32) and the buffer
// 16-byte aligned, one vector access each; where it is not (y = 3 * j), one scalar
// access per lane. The reference executor runs both before and after.
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s
// EQ: @load4: equivalent after 'default'
// EQ: @load4_unaligned: equivalent after 'default'

// CHECK-LABEL: load4_kernel(
// CHECK:         const f32x4 v = *reinterpret_cast<const f32x4*>(a + [[OFF:t_[0-9]+]]);
// CHECK:         *reinterpret_cast<f32x4*>(b + [[OFF]]) =
// CHECK-LABEL: load4_unaligned_kernel(
// CHECK-NOT:     reinterpret_cast
// CHECK-COUNT-4: = a[
// CHECK-COUNT-4: b[{{t_[0-9]+}}] =
// CHECK-NOT:     reinterpret_cast
!A = !layout.tensor<f32, #layout.cute<(8,32):(32,1)>, gmem>
func.func @load4(%a: !layout.ptr<f32, align 16>, %b: !layout.ptr<f32, align 16>) {
  %A = layout.view %a : !layout.ptr<f32, align 16> -> !A
  %B = layout.view %b : !layout.ptr<f32, align 16> -> !A
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %x = arith.divui %tid, %c8 : index
    %j = arith.remui %tid, %c8 : index
    %y = arith.muli %j, %c4 : index
    %elements = layout.read %A[%x, %y] {width = 4 : i64} : !A -> vector<4xf32>
    %two = arith.constant dense<2.0> : vector<4xf32>
    %d = arith.mulf %elements, %two : vector<4xf32>
    layout.write %d, %B[%x, %y] {width = 4 : i64} : vector<4xf32>, !A
  }
  func.return
}
func.func @load4_unaligned(%a: !layout.ptr<f32, align 16>, %b: !layout.ptr<f32, align 16>) {
  %A = layout.view %a : !layout.ptr<f32, align 16> -> !A
  %B = layout.view %b : !layout.ptr<f32, align 16> -> !A
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %x = arith.divui %tid, %c8 : index
    %j = arith.remui %tid, %c8 : index
    %c3 = arith.constant 3 : index
    %y = arith.muli %j, %c3 : index
    %elements = layout.read %A[%x, %y] {width = 4 : i64} : !A -> vector<4xf32>
    %two = arith.constant dense<2.0> : vector<4xf32>
    %d = arith.mulf %elements, %two : vector<4xf32>
    layout.write %d, %B[%x, %y] {width = 4 : i64} : vector<4xf32>, !A
  }
  func.return
}
