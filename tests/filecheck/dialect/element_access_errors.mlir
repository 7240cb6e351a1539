// layout.read / layout.write: verifier errors (coordinate count, element type).
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>&1 | filecheck %s
// CHECK: error: 'layout.read': 3 indices for a view of rank 2: give 2 (one per mode), 1 (the whole view) or 4 (one per leaf of the shape)
!N = !layout.tensor<f32, #layout.cute<((2,2),(2,2)):((1,4),(2,8))>, gmem>
func.func @count(%N: !N, %i: index) {
  // expected-error @+1 {{3 indices for a view of rank 2: give 2 (one per mode), 1 (the whole view) or 4 (one per leaf of the shape)}}
  %x = layout.read %N[%i, %i, %i] : !N -> f32
  func.return
}

// -----

!A = !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>
func.func @type(%A: !A, %i: index) {
  // expected-error @+1 {{an element of !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem> is f32, not f16}}
  %x = layout.read %A[%i, %i] : !A -> f16
  func.return
}

// -----

!V = !layout.tensor<f32, #layout.cute<(8,1):(4,4)>, gmem, vec #layout.cute<(1,4):(4,1)>>
func.func @vector_element(%V: !V, %x: f32, %i: index) {
  // expected-error @+1 {{an element of !layout.tensor<f32, #layout.cute<(8,1):(4,4)>, gmem, vec #layout.cute<(1,4):(4,1)>> is vector<4xf32>, not f32}}
  layout.write %x, %V[%i, %i] : f32, !V
  func.return
}

// -----

!A = !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>
func.func @dim_mode(%A: !A) {
  // expected-error @+1 {{mode 2 of a view of rank 2}}
  %n = layout.dim %A {mode = 2 : i64} : !A
  func.return
}

// -----

!N = !layout.tensor<f32, #layout.cute<((2,2),(2,2)):((1,4),(2,8))>, gmem>
func.func @nested_arity(%N: !N, %i: index) {
  // expected-error @+1 {{a coordinate of 3 elements for mode (2,2):(1,4) of 2}}
  %x = layout.read %N[(%i, %i, %i), %i] : !N -> f32
  func.return
}

// -----

!N = !layout.tensor<f32, #layout.cute<((2,2),(2,2)):((1,4),(2,8))>, gmem>
func.func @nested_count(%N: !N, %x: f32, %i: index) {
  // expected-error @+1 {{3 coordinates for a view of 2 modes}}
  layout.write %x, %N[(%i, %i), %i, %i] : f32, !N
  func.return
}

// -----

!S = !layout.tensor<f32, #layout.cute<(8,4):(8,2)>, gmem>
func.func @width_no_unit_stride(%S: !S, %i: index) {
  // expected-error @+1 {{an access of several contiguous elements needs one mode of stride 1 in (8,4):(8,2), found 0: vectorize the view instead (`layout.vectorize`)}}
  %x = layout.read %S[%i, %i] {width = 4 : i64} : !S -> vector<4xf32>
  func.return
}

// -----

!A = !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>
func.func @width_type(%A: !A, %i: index) {
  // expected-error @+1 {{4 contiguous elements of !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem> are vector<4xf32>, not vector<2xf32>}}
  %x = layout.read %A[%i, %i] {width = 4 : i64} : !A -> vector<2xf32>
  func.return
}

// -----

!A = !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>
func.func @width_too_wide(%A: !A, %i: index, %v: vector<8xf32>) {
  // expected-error @+1 {{8 contiguous elements do not fit in mode 1 of 4}}
  layout.write %v, %A[%i, %i] {width = 8 : i64} : vector<8xf32>, !A
  func.return
}

// -----

!A = !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>
func.func @width_linear(%A: !A, %i: index) {
  // expected-error @+1 {{an access of several contiguous elements takes one index per mode (2)}}
  %x = layout.read %A[%i] {width = 4 : i64} : !A -> vector<4xf32>
  func.return
}
