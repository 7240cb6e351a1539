// Verifier errors of tile, vectorize, distribute and slice on swizzled (composed) views: the
// result keeps the source's swizzle and offset, and a vector must not be split by
// the swizzle (at most 2**M contiguous elements for Swizzle<B,M,S>).
// RUN: tilec %s --split-input-file --verify-diagnostics

!S = !layout.tensor<f16, #layout.composed<swizzle<3,2,3> o 0 o (64,64):(64,1)>, smem>
func.func @vector_split_by_swizzle() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    // expected-error @+1 {{a vector of 8 elements ((1,8):(64,1)) would be split by Swizzle<3,2,3>, which permutes units of 4 elements: vectorize by at most 4 contiguous elements}}
    %v = layout.vectorize %s {vector = array<i64: 1, 8>} : !S -> !layout.tensor<f16, #layout.composed<swizzle<3,2,3> o 0 o (64,8):(64,8)>, smem, vec #layout.cute<(1,8):(64,1)>>
  }
  func.return
}

// -----

!S = !layout.tensor<f16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
func.func @tile_drops_swizzle(%i: index) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    // expected-error @+1 {{a tile of a swizzled view keeps its swizzle: expected #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, got #layout.cute<(16,64):(64,1)>}}
    %t = layout.tile %s[%i, %i] {tile = array<i64: 16, 64>} : !S -> !layout.tensor<f16, #layout.cute<(16,64):(64,1)>, smem>
  }
  func.return
}

// -----

!S = !layout.tensor<f16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
func.func @distribute_other_swizzle() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    // expected-error @+1 {{distribute of a swizzled view keeps its swizzle: expected #layout.composed<swizzle<3,3,3> o 0 o (8,64):(8,1)>, got #layout.composed<swizzle<3,4,3> o 0 o (8,64):(8,1)>}}
    %f = layout.distribute %s, %tid {threads = #layout.cute<(8,1):(1,1)>} : !S -> !layout.tensor<f16, #layout.composed<swizzle<3,4,3> o 0 o (8,64):(8,1)>, smem>
  }
  func.return
}

// -----

!S = !layout.tensor<f16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
func.func @vectorize_adds_swizzle() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, smem>
    // expected-error @+1 {{vectorize of a plain view gives a plain layout}}
    %v = layout.vectorize %s {vector = array<i64: 1, 8>} : !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, smem> -> !layout.tensor<f16, #layout.composed<swizzle<3,3,3> o 0 o (64,8):(64,8)>, smem, vec #layout.cute<(1,8):(64,1)>>
  }
  func.return
}

// -----

!S = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (1,64,64):(0,64,1)>, smem>
func.func @slice_drops_swizzle() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    // expected-error @+1 {{a slice of a swizzled view keeps its swizzle: expected #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, got #layout.cute<(64,64):(64,1)>}}
    %v = layout.slice %s[0, _, _] : !S -> !layout.tensor<bf16, #layout.cute<(64,64):(64,1)>, smem>
  }
  func.return
}
