// RUN: tilec %s -p remove-layout-conversions | filecheck %s
// RUN: tilec %s -p remove-layout-conversions --check-equivalence | filecheck %s --check-prefix=EQ
// A conversion of a small load (fewer elements than the block has threads: Triton's
// rule) becomes a load in the wanted layout: its second read hits the lines the first
// brought into the cache, which costs fewer bytes than a shared-memory round trip.
// Larger loads are anchors and keep their layout.

// EQ: @reload_small: equivalent
// EQ: @reload_twice: equivalent
// EQ: @big_load_anchor: equivalent
// EQ: @reload_masked: equivalent
// EQ: @reload_vector: equivalent after

#A = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#B = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#SA = #layout.slice<{dim = 1, parent = #A}>
#SB = #layout.slice<{dim = 1, parent = #B}>
!G1 = !layout.tensor<f32, #layout.cute<(32):(1)>, gmem>
!G2 = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>

// 32 elements for 128 threads: loaded again in #SB; no conversion is left.
// CHECK-LABEL: func.func @reload_small
// CHECK-NOT:     layout.convert_layout
// CHECK:         %[[X:.*]] = layout.load %{{.*}} : !layout.tensor<f32, #layout.cute<(32):(1)>, gmem> -> tensor<32xf32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NOT:     layout.convert_layout
// CHECK-NEXT:    layout.store %[[X]]
// CHECK-NOT:     layout.convert_layout
// CHECK:         func.return
func.func @reload_small(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G1
  %b = layout.view %q : !layout.ptr<f32> -> !G1
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G1 -> tensor<32xf32, #SA>
    %y = layout.convert_layout %x : tensor<32xf32, #SA> -> tensor<32xf32, #SB>
    layout.store %y, %b : tensor<32xf32, #SB>, !G1
  }
  func.return
}

// Used in both layouts: the small load is issued in each (two loads, no conversion).
// CHECK-LABEL: func.func @reload_twice
// CHECK:         %[[X:.*]] = layout.load {{.*}} -> tensor<32xf32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    %[[Y:.*]] = layout.load {{.*}} -> tensor<32xf32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NOT:     layout.convert_layout
// CHECK:         layout.store %[[Y]]
// CHECK-NEXT:    layout.store %[[X]]
func.func @reload_twice(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>, %r: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G1
  %b = layout.view %q : !layout.ptr<f32> -> !G1
  %c = layout.view %r : !layout.ptr<f32> -> !G1
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G1 -> tensor<32xf32, #SA>
    %y = layout.convert_layout %x : tensor<32xf32, #SA> -> tensor<32xf32, #SB>
    layout.store %y, %b : tensor<32xf32, #SB>, !G1
    layout.store %x, %c : tensor<32xf32, #SA>, !G1
  }
  func.return
}

// 1024 elements for 128 threads: the load is an anchor; the conversion stays.
// CHECK-LABEL: func.func @big_load_anchor
// CHECK:         layout.load {{.*}} -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    layout.convert_layout
// CHECK-NEXT:    layout.store
func.func @big_load_anchor(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G2 -> tensor<32x32xf32, #A>
    %y = layout.convert_layout %x : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B>
    layout.store %y, %b : tensor<32x32xf32, #B>, !G2
  }
  func.return
}

// A masked small load: its mask (an arange compared with a splat) is recomputed in #SB
// too, and the load issued again there.
// CHECK-LABEL: func.func @reload_masked
// CHECK-NOT:     layout.convert_layout
// CHECK:         %[[I:.*]] = layout.arange {{.*}} : tensor<32xi32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [4, 1]
// CHECK:         %[[M:.*]] = layout.cmpi slt, %[[I]], %{{.*}} : tensor<32xi32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NEXT:    %[[X:.*]] = layout.load %{{.*}} mask %[[M]] : {{.*}} -> tensor<32xf32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NOT:     layout.convert_layout
// CHECK:         layout.store %[[X]]
func.func @reload_masked(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G1
  %b = layout.view %q : !layout.ptr<f32> -> !G1
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.5 : f32
  %h = arith.constant 16 : i32
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %i = layout.arange {start = 0 : i64, end = 32 : i64} : tensor<32xi32, #SA>
    %k = layout.splat %h : i32 -> tensor<32xi32, #SA>
    %m = layout.cmpi slt, %i, %k : tensor<32xi32, #SA>
    %x = layout.load %a, %z : f32 mask %m : tensor<32xi1, #SA> : !G1 -> tensor<32xf32, #SA>
    %y = layout.convert_layout %x : tensor<32xf32, #SA> -> tensor<32xf32, #SB>
    layout.store %y, %b : tensor<32xf32, #SB>, !G1
  }
  func.return
}

// A re-issued load drops the vector width chosen for the first load's layout (4 floats
// per thread there, 1 in the wanted layout): the new load is scalar.
#V4 = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#V1 = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
!G64 = !layout.tensor<f32, #layout.cute<(64):(1)>, gmem>
// CHECK-LABEL: func.func @reload_vector
// CHECK-NOT:     layout.convert_layout
// CHECK:         layout.load %{{[a-z0-9]+}} : !layout.tensor<f32, #layout.cute<(64):(1)>, gmem> -> tensor<64xf32, #layout.blocked<{sizePerThread = [1]
// CHECK-NOT:     layout.convert_layout
// CHECK:         func.return
func.func @reload_vector(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !G64
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !G64
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a {vector = 4 : i64} : !G64 -> tensor<64xf32, #V4>
    %y = layout.convert_layout %x : tensor<64xf32, #V4> -> tensor<64xf32, #V1>
    layout.store %y, %b : tensor<64xf32, #V1>, !G64
  }
  func.return
}
