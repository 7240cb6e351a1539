// RUN: tilec %s -p remove-layout-conversions | filecheck %s
// RUN: tilec %s -p remove-layout-conversions --check-equivalence | filecheck %s --check-prefix=EQ
// The cost model counts bytes: a conversion goes to the narrower side of an `extf`, a
// `truncf` or a `layout.broadcast` (Triton's hoistConvertOnTopOfExtOrBroadcast), and
// where both sides move as many bytes the conversion stays where it is (the tie rule).

// EQ: @before_extf: equivalent
// EQ: @after_truncf: equivalent
// EQ: @tie_stays: equivalent
// EQ: @before_broadcast: equivalent

#A = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#B = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
!G16 = !layout.tensor<f16, #layout.cute<(32,32):(32,1)>, gmem>
!G32 = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
!C = !layout.tensor<f32, #layout.cute<(128,1):(1,1)>, gmem>
!W = !layout.tensor<f32, #layout.cute<(128,32):(32,1)>, gmem>

// f16 -> f32, then a conversion of the f32 value: the f16 value is converted instead
// (half the bytes) and extended in #B.
// CHECK-LABEL: func.func @before_extf
// CHECK:         %[[X:.*]] = layout.load {{.*}} -> tensor<32x32xf16, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    %[[C:.*]] = layout.convert_layout %[[X]] : tensor<32x32xf16, {{.*}} -> tensor<32x32xf16, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NEXT:    %[[E:.*]] = arith.extf %[[C]] : tensor<32x32xf16, {{.*}} to tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NEXT:    layout.store %[[E]]
func.func @before_extf(%p: !layout.ptr<f16>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f16> -> !G16
  %b = layout.view %q : !layout.ptr<f32> -> !G32
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G16 -> tensor<32x32xf16, #A>
    %e = arith.extf %x : tensor<32x32xf16, #A> to tensor<32x32xf32, #A>
    %w = layout.convert_layout %e : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    layout.store %w, %b : tensor<32x32xf32, #B>, !G32
  }
  func.return
}

// A conversion of an f32 value, then f32 -> f16: the f16 value is converted instead.
// CHECK-LABEL: func.func @after_truncf
// CHECK:         %[[X:.*]] = layout.load {{.*}} -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[X]] : tensor<32x32xf32, {{.*}} to tensor<32x32xf16, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    %[[C:.*]] = layout.convert_layout %[[T]] : tensor<32x32xf16, {{.*}} -> tensor<32x32xf16, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NEXT:    layout.store %[[C]]
func.func @after_truncf(%p: !layout.ptr<f32>, %q: !layout.ptr<f16>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G32
  %b = layout.view %q : !layout.ptr<f16> -> !G16
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G32 -> tensor<32x32xf32, #A>
    %w = layout.convert_layout %x : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    %t = arith.truncf %w : tensor<32x32xf32, #B> to tensor<32x32xf16, #B>
    layout.store %t, %b : tensor<32x32xf16, #B>, !G16
  }
  func.return
}

// negf keeps the width: moving the conversion below it moves as many bytes, so it
// stays where it is.
// CHECK-LABEL: func.func @tie_stays
// CHECK:         %[[X:.*]] = layout.load
// CHECK-NEXT:    %[[C:.*]] = layout.convert_layout %[[X]]
// CHECK-NEXT:    %[[N:.*]] = arith.negf %[[C]]
// CHECK-NEXT:    layout.store %[[N]]
func.func @tie_stays(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G32
  %b = layout.view %q : !layout.ptr<f32> -> !G32
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G32 -> tensor<32x32xf32, #A>
    %w = layout.convert_layout %x : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    %n = arith.negf %w : tensor<32x32xf32, #B>
    layout.store %n, %b : tensor<32x32xf32, #B>, !G32
  }
  func.return
}

// A column broadcast to 32 columns, then converted: the column (128 elements, as many as
// the block's threads, so not a load to repeat) is converted before the broadcast.
// CHECK-LABEL: func.func @before_broadcast
// CHECK:         %[[X:.*]] = layout.load {{.*}} -> tensor<128x1xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    %[[C:.*]] = layout.convert_layout %[[X]] : tensor<128x1xf32, {{.*}} -> tensor<128x1xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NEXT:    %[[Y:.*]] = layout.broadcast %[[C]] : {{.*}} -> tensor<128x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NEXT:    layout.store %[[Y]]
func.func @before_broadcast(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !C
  %b = layout.view %q : !layout.ptr<f32> -> !W
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !C -> tensor<128x1xf32, #A>
    %y = layout.broadcast %x : tensor<128x1xf32, #A> -> tensor<128x32xf32, #A>
    %w = layout.convert_layout %y : tensor<128x32xf32, #A> -> tensor<128x32xf32, #B>
    layout.store %w, %b : tensor<128x32xf32, #B>, !W
  }
  func.return
}
