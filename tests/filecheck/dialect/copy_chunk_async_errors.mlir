// layout.copy_chunk_async: verifier errors (outside a launch, memory spaces, element
// types, chunk size, coordinates, the chunk along a contiguous mode that holds it, the L2
// prefetch size and its chunk); the
// plain run stops at the first.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>&1 | filecheck %s
// CHECK: error: 'layout.copy_chunk_async': copy_chunk_async is a thread's copy: it lies inside a layout.launch
!G = !layout.tensor<i8, #layout.cute<(?):(1)>, gmem>
!S = !layout.tensor<i8, #layout.cute<(4096):(1)>, smem>
func.func @outside(%g: !G, %s: !S, %i: index) {
  // expected-error @+1 {{copy_chunk_async is a thread's copy: it lies inside a layout.launch}}
  layout.copy_chunk_async %g[%i], %s[%i] {width = 16 : i64} : !G, !S
  func.return
}

// -----

!S = !layout.tensor<i8, #layout.cute<(4096):(1)>, smem>
func.func @spaces(%s: !S, %i: index) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{copy_chunk_async copies global to shared memory, got smem -> smem}}
    layout.copy_chunk_async %s[%i], %s[%i] {width = 16 : i64} : !S, !S
  }
  func.return
}

// -----

!G = !layout.tensor<i8, #layout.cute<(?):(1)>, gmem>
!S = !layout.tensor<i16, #layout.cute<(4096):(1)>, smem>
func.func @types(%g: !G, %s: !S, %i: index) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{copy_chunk_async between element types i8 and i16}}
    layout.copy_chunk_async %g[%i], %s[%i] {width = 16 : i64} : !G, !S
  }
  func.return
}

// -----

!G = !layout.tensor<i8, #layout.cute<(?):(1)>, gmem>
!S = !layout.tensor<i8, #layout.cute<(4096):(1)>, smem>
func.func @bytes(%g: !G, %s: !S, %i: index) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{copy_chunk_async moves 4, 8 or 16 bytes (cp.async), got 3 x 1 bytes}}
    layout.copy_chunk_async %g[%i], %s[%i] {width = 3 : i64} : !G, !S
  }
  func.return
}

// -----

!M = !layout.tensor<i8, #layout.cute<(8,64):(64,1)>, gmem>
!S = !layout.tensor<i8, #layout.cute<(4096):(1)>, smem>
func.func @coordinates(%m: !M, %s: !S, %i: index) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{an access of several contiguous elements takes one index per mode (2)}}
    layout.copy_chunk_async %m[%i], %s[%i] {width = 16 : i64} : !M, !S
  }
  func.return
}

// -----

!G = !layout.tensor<i8, #layout.cute<(?):(1)>, gmem>
!S = !layout.tensor<i8, #layout.cute<(8):(1)>, smem>
func.func @fits(%g: !G, %s: !S, %i: index) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{16 contiguous elements do not fit in mode 0 of 8}}
    layout.copy_chunk_async %g[%i], %s[%i] {width = 16 : i64} : !G, !S
  }
  func.return
}

// -----

!V = !layout.tensor<i8, #layout.cute<(?):(16)>, gmem, vec #layout.cute<(16):(1)>>
!S = !layout.tensor<i8, #layout.cute<(4096):(1)>, smem>
func.func @vectorized(%v: !V, %s: !S, %i: index) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{an access of several contiguous elements takes a view that is neither vectorized nor masked}}
    layout.copy_chunk_async %v[%i], %s[%i] {width = 16 : i64} : !V, !S
  }
  func.return
}

// -----

!G = !layout.tensor<i8, #layout.cute<(?):(1)>, gmem>
!S = !layout.tensor<i8, #layout.cute<(4096):(1)>, smem>
func.func @prefetch_size(%g: !G, %i: index) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    // expected-error @+1 {{copy_chunk_async's prefetch is 64, 128 or 256 (bytes), got 512}}
    layout.copy_chunk_async %g[%i], %s[%i] {width = 16 : i64, prefetch = 512 : i64} : !G, !S
  }
  func.return
}

// -----

!G = !layout.tensor<i8, #layout.cute<(?):(1)>, gmem>
!S = !layout.tensor<i8, #layout.cute<(4096):(1)>, smem>
func.func @prefetch_width(%g: !G, %i: index) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    // expected-error @+1 {{copy_chunk_async with a prefetch size moves 16 bytes, got 8}}
    layout.copy_chunk_async %g[%i], %s[%i] {width = 8 : i64, prefetch = 128 : i64} : !G, !S
  }
  func.return
}

// -----

!G = !layout.tensor<i8, #layout.cute<(?):(1)>, gmem>
!S = !layout.tensor<i8, #layout.cute<(4096):(1)>, smem>
func.func @l1_width(%g: !G, %i: index) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    // expected-error @+1 {{copy_chunk_async with l1 moves 16 bytes, got 8}}
    layout.copy_chunk_async %g[%i], %s[%i] {width = 8 : i64, l1} : !G, !S
  }
  func.return
}
