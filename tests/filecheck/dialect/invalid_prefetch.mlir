// layout.prefetch and cuda.prefetch_l2: verifier errors (shared memory, elements not
// consecutive, an unknown eviction priority, no bytes).
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>&1 | filecheck %s
// CHECK: error: 'layout.prefetch': a prefetch into L2 is of global memory; this view is in smem
!S = !layout.tensor<f32, #layout.cute<128:1>, smem>
func.func @shared(%c: index) {
  layout.launch grid(%c, %c, %c) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    // expected-error @+1 {{a prefetch into L2 is of global memory; this view is in smem}}
    layout.prefetch %s : !S
  }
  func.return
}

// -----

!C = !layout.tensor<f32, #layout.cute<(64,1):(64,1)>, gmem>
func.func @column(%t: !C) {
  // expected-error @+1 {{a prefetch takes a view of consecutive elements (cosize = size); (64,1):(64,1) is not}}
  layout.prefetch %t : !C
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<128:1>, gmem>
func.func @priority(%t: !T) {
  // expected-error @+1 {{cache = "evict_soon": the L2 eviction priority is one of evict_first, evict_last}}
  layout.prefetch %t {cache = "evict_soon"} : !T
  func.return
}

// -----

func.func @no_bytes(%m: memref<?xf32>, %i: index) {
  // expected-error @+1 {{'cuda.prefetch_l2' prefetches 1 to 2^32 - 1 bytes, got 0}}
  cuda.prefetch_l2 %m[%i], 0 : memref<?xf32>
  func.return
}

// -----

func.func @cuda_priority(%m: memref<?xf32>, %i: index) {
  // expected-error @+1 {{'cuda.prefetch_l2' cache is evict_first or evict_last, got normal}}
  cuda.prefetch_l2 %m[%i], 64 {cache = "normal"} : memref<?xf32>
  func.return
}

// -----

func.func @cuda_shared(%m: memref<64xf32, 3 : i64>, %i: index) {
  // expected-error @+1 {{'cuda.prefetch_l2' prefetches global memory, not shared memory}}
  cuda.prefetch_l2 %m[%i], 64 : memref<64xf32, 3 : i64>
  func.return
}
