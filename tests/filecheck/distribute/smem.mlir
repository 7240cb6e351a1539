// RUN: tilec %s -p distribute | filecheck %s
// RUN: tilec %s -p distribute --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @stage: equivalent after
// EQ: @thread_level: equivalent after
// EQ: @odd_tile: equivalent after
// Copies with a shared-memory side are partitioned with one thread layout on both
// views (layout.distribute) and their fragments copied; a barrier follows writes to
// shared memory.

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,64):(256,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(32,64):(64,1)>, smem>

// CHECK-LABEL: func.func @stage
// CHECK:         ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %[[TID:.*]]: index):
// CHECK:           %[[S:.*]] = layout.alloc
// CHECK-NEXT:      %[[FS:.*]] = layout.distribute %[[TA:.*]], %[[TID]] {threads = #layout.cute<(2,64):(64,1)>} : !layout.tensor<f32, #layout.cute<(32,64):(256,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(16,1):(512,64)>, gmem>
// CHECK-NEXT:      %[[FD:.*]] = layout.distribute %[[S]], %[[TID]] {threads = #layout.cute<(2,64):(64,1)>} : !layout.tensor<f32, #layout.cute<(32,64):(64,1)>, smem> -> !layout.tensor<f32, #layout.cute<(16,1):(128,64)>, smem>
// CHECK-NEXT:      layout.copy %[[FS]], %[[FD]]
// CHECK-NEXT:      layout.barrier
// CHECK-NEXT:      %[[GS:.*]] = layout.distribute %[[S]], %[[TID]] {threads = #layout.cute<(2,64):(64,1)>}
// CHECK-NEXT:      %[[GD:.*]] = layout.distribute %{{.*}}, %[[TID]] {threads = #layout.cute<(2,64):(64,1)>}
// CHECK-NEXT:      layout.copy %[[GS]], %[[GD]]
// CHECK-NEXT:    }
func.func @stage(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
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

// A thread-level copy (views made from the thread id) is left alone, and so is a
// copy into registers.
// CHECK-LABEL: func.func @thread_level
// CHECK:         layout.copy %[[F:.*]], %[[G:.*]] : !layout.tensor<f32, #layout.cute<(16,1):(512,64)>, gmem>, !layout.tensor<f32, #layout.cute<(16,1):(512,64)>, gmem>
// CHECK:         layout.copy %{{.*}}, %{{.*}} : !layout.tensor<f32, #layout.cute<(32,64):(256,1)>, gmem>, !layout.tensor<f32, #layout.cute<(32,64):(64,1)>, rmem>
// CHECK-NOT:     layout.load
func.func @thread_level(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 32, 64>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 32, 64>} : !G -> !T
    %f = layout.distribute %ta, %tid {threads = #layout.cute<(2,64):(64,1)>} : !T -> !layout.tensor<f32, #layout.cute<(16,1):(512,64)>, gmem>
    %g = layout.distribute %tb, %tid {threads = #layout.cute<(2,64):(64,1)>} : !T -> !layout.tensor<f32, #layout.cute<(16,1):(512,64)>, gmem>
    layout.copy %f, %g : !layout.tensor<f32, #layout.cute<(16,1):(512,64)>, gmem>, !layout.tensor<f32, #layout.cute<(16,1):(512,64)>, gmem>
    %r = layout.alloc : !layout.tensor<f32, #layout.cute<(32,64):(64,1)>, rmem>
    layout.copy %ta, %r : !T, !layout.tensor<f32, #layout.cute<(32,64):(64,1)>, rmem>
  }
  func.return
}

// Extents that are not powers of two have no blocked layout: fragments, masked
// where the threads do not divide the extent.
// CHECK-LABEL: func.func @odd_tile
// CHECK:         layout.distribute %{{.*}}, %{{.*}} {threads = #layout.cute<(1,32):(32,1)>} : !layout.tensor<f32, #layout.cute<(3,48):(256,1)>, gmem, masked> -> !layout.tensor<f32, #layout.cute<(3,2):(256,32)>, gmem, masked>
// CHECK-NOT:     layout.load
func.func @odd_tile(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 3, 48>} : !G -> !layout.tensor<f32, #layout.cute<(3,48):(256,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 3, 48>} : !G -> !layout.tensor<f32, #layout.cute<(3,48):(256,1)>, gmem, masked>
    layout.copy %ta, %tb : !layout.tensor<f32, #layout.cute<(3,48):(256,1)>, gmem, masked>, !layout.tensor<f32, #layout.cute<(3,48):(256,1)>, gmem, masked>
  }
  func.return
}
