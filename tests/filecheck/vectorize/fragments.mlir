// RUN: tilec %s -p 'distribute,vectorize' | filecheck %s
// RUN: tilec %s -p 'distribute,vectorize{async=false}' | filecheck %s --check-prefix=SYNC
// RUN: tilec %s -p 'distribute,vectorize' --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @stage: equivalent after
// EQ: @half_aligned: equivalent after
// EQ: @scalar_f16: equivalent after
// EQ: @scalar_f32: equivalent after
// Fragment copies: both tiles vectorized, then distributed over vectors; gmem -> smem
// copies of 4/8/16-byte vectors become cp.async.

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,64):(256,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(32,64):(64,1)>, smem>

// CHECK-LABEL: func.func @stage
// CHECK:         %[[S:.*]] = layout.alloc
// CHECK-NEXT:    %[[VA:.*]] = layout.vectorize %[[TA:.*]] {vector = array<i64: 1, 4>} : !layout.tensor<f32, #layout.cute<(32,64):(256,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(32,16):(256,4)>, gmem, vec #layout.cute<(1,4):(256,1)>>
// CHECK-NEXT:    %[[VS:.*]] = layout.vectorize %[[S]] {vector = array<i64: 1, 4>}
// CHECK-NEXT:    %[[FA:.*]] = layout.distribute %[[VA]], %[[TID:.*]] {threads = #layout.cute<(8,16):(16,1)>}
// CHECK-NEXT:    %[[FS:.*]] = layout.distribute %[[VS]], %[[TID]] {threads = #layout.cute<(8,16):(16,1)>}
// CHECK-NEXT:    layout.copy_async %[[FA]], %[[FS]]
// CHECK-NEXT:    layout.async_wait {pending = 0 : i64}
// CHECK-NEXT:    layout.barrier
// CHECK-NEXT:    layout.vectorize %[[S]] {vector = array<i64: 1, 4>}
// CHECK-NEXT:    layout.vectorize %{{.*}} {vector = array<i64: 1, 4>}
// CHECK-NEXT:    layout.distribute
// CHECK-NEXT:    layout.distribute
// CHECK-NEXT:    layout.copy
// SYNC-LABEL:  func.func @stage
// SYNC-NOT:      layout.copy_async
// SYNC:          layout.copy
// SYNC-NEXT:     layout.barrier
func.func @stage(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !G
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c8, %c4, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 32, 64>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 32, 64>} : !G -> !T
    %s = layout.alloc : !S
    layout.copy %ta, %s : !T, !S
    layout.copy %s, %tb : !S, !T
  }
  func.return
}

// An f16 pointer aligned to 4 bytes: 2-element vectors, cp.async of 4 bytes.
// CHECK-LABEL: func.func @half_aligned
// CHECK:         layout.vectorize %{{.*}} {vector = array<i64: 1, 2>}
// CHECK:         layout.copy_async
func.func @half_aligned(%p: !layout.ptr<f16, align 4>) {
  %a = layout.view %p : !layout.ptr<f16, align 4> -> !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, smem>
    layout.copy %a, %s : !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, gmem>, !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, smem>
  }
  func.return
}

// Element-aligned f16: no vector, and 2-byte elements are too small for cp.async.
// CHECK-LABEL: func.func @scalar_f16
// CHECK-NOT:     layout.vectorize
// CHECK-NOT:     layout.copy_async
// CHECK:         layout.copy
func.func @scalar_f16(%p: !layout.ptr<f16>) {
  %a = layout.view %p : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, smem>
    layout.copy %a, %s : !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, gmem>, !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, smem>
  }
  func.return
}

// Element-aligned f32 without vectors still goes through cp.async (4 bytes).
// CHECK-LABEL: func.func @scalar_f32
// CHECK-NOT:     layout.vectorize
// CHECK:         layout.copy_async
func.func @scalar_f32(%p: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
    layout.copy %a, %s : !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>, !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
  }
  func.return
}
