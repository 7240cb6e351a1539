// layout.load / layout.store `cache`: verifier errors (an unknown priority, an access of
// shared memory: L2 caches global memory only).
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>&1 | filecheck %s
// CHECK: error: 'layout.load': cache = "evict_sometimes": the L2 eviction priority is one of evict_first, evict_last
#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
!T = !layout.tensor<f32, #layout.cute<128:1>, gmem>
func.func @unknown(%t: !T, %c: index) {
  layout.launch grid(%c, %c, %c) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{cache = "evict_sometimes": the L2 eviction priority is one of evict_first, evict_last}}
    %v = layout.load %t {cache = "evict_sometimes"} : !T -> tensor<128xf32, #b>
  }
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
!T = !layout.tensor<f32, #layout.cute<128:1>, gmem>
func.func @unknown_store(%t: !T, %c: index) {
  layout.launch grid(%c, %c, %c) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %t : !T -> tensor<128xf32, #b>
    // expected-error @+1 {{cache = "normal": the L2 eviction priority is one of evict_first, evict_last}}
    layout.store %v, %t {cache = "normal"} : tensor<128xf32, #b>, !T
  }
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
!S = !layout.tensor<f32, #layout.cute<128:1>, smem>
func.func @shared(%c: index) {
  layout.launch grid(%c, %c, %c) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %zero = arith.constant 0.0 : f32
    %v = layout.splat %zero : f32 -> tensor<128xf32, #b>
    // expected-error @+1 {{cache = "evict_last" is for global memory; this view is in smem}}
    layout.store %v, %s {cache = "evict_last"} : tensor<128xf32, #b>, !S
  }
  func.return
}
