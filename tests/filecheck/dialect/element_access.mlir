// layout.read / layout.write: round trip of the three coordinate forms (one index per
// mode, one for the whole view, one per leaf of a nested shape) and of a vectorized
// view's element (verifier errors: element_access_errors.mlir).
// RUN: tilec %s | tilec | filecheck %s

// CHECK-LABEL: func.func @forms
// CHECK: %x = layout.read %A[%i, %j] : !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem> -> f32
// CHECK: %y = layout.read %A[%i] : !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem> -> f32
// CHECK: %z = layout.read %N[%i, %j, %k, %i] : !layout.tensor<f32, #layout.cute<((2,2),(2,2)):((1,4),(2,8))>, gmem> -> f32
// CHECK: %w = layout.read %N[%i, %j] : !layout.tensor<f32, #layout.cute<((2,2),(2,2)):((1,4),(2,8))>, gmem> -> f32
// CHECK: layout.write %x, %A[%j, %i] : f32, !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>
// CHECK: %v = layout.read %V[%i, %j] : !layout.tensor<f32, #layout.cute<(8,1):(4,4)>, gmem, vec #layout.cute<(1,4):(4,1)>> -> vector<4xf32>
// CHECK: layout.write %v, %V[%j, %i] : vector<4xf32>, !layout.tensor<f32, #layout.cute<(8,1):(4,4)>, gmem, vec #layout.cute<(1,4):(4,1)>>
!A = !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>
!N = !layout.tensor<f32, #layout.cute<((2,2),(2,2)):((1,4),(2,8))>, gmem>
!V = !layout.tensor<f32, #layout.cute<(8,1):(4,4)>, gmem, vec #layout.cute<(1,4):(4,1)>>
func.func @forms(%A: !A, %N: !N, %V: !V, %i: index, %j: index, %k: index) {
  %x = layout.read %A[%i, %j] : !A -> f32
  %y = layout.read %A[%i] : !A -> f32
  %z = layout.read %N[%i, %j, %k, %i] : !N -> f32
  %w = layout.read %N[%i, %j] : !N -> f32
  layout.write %x, %A[%j, %i] : f32, !A
  %v = layout.read %V[%i, %j] : !V -> vector<4xf32>
  layout.write %v, %V[%j, %i] : vector<4xf32>, !V
  func.return
}

// A nested coordinate, as the shape nests (CuTe's A(make_coord(make_coord(m0, m1), n)),
// TileTensor's Coord(Coord(m0, m1), n)); a tuple may index a nested mode leaf by leaf
// while another mode takes its 1-D index.
// CHECK-LABEL: func.func @nested
// CHECK: %x = layout.read %N[(%i, %j), (%k, %i)] : !layout.tensor<f32, #layout.cute<((2,2),(2,2)):((1,4),(2,8))>, gmem> -> f32
// CHECK: %y = layout.read %N[(%i, %j), %k] : !layout.tensor<f32, #layout.cute<((2,2),(2,2)):((1,4),(2,8))>, gmem> -> f32
// CHECK: layout.write %x, %N[%k, (%j, %i)] : f32, !layout.tensor<f32, #layout.cute<((2,2),(2,2)):((1,4),(2,8))>, gmem>
// CHECK: %z = layout.read %D[((%i, %j), %k), %i] : !layout.tensor<f32, #layout.cute<(((2,2),3),4):(((1,2),4),12)>, gmem> -> f32
func.func @nested(%N: !N, %D: !layout.tensor<f32, #layout.cute<(((2,2),3),4)>, gmem>, %i: index, %j: index, %k: index) {
  %x = layout.read %N[(%i, %j), (%k, %i)] : !N -> f32
  %y = layout.read %N[(%i, %j), %k] : !N -> f32
  layout.write %x, %N[%k, (%j, %i)] : f32, !N
  %z = layout.read %D[((%i, %j), %k), %i] : !layout.tensor<f32, #layout.cute<(((2,2),3),4)>, gmem> -> f32
  func.return
}

// Mojo's load[4](x, y) / store[4](x, y, v) at element coordinates: `width` contiguous
// elements along the mode of stride 1, as a vector.
// CHECK-LABEL: func.func @contiguous
// CHECK: %v = layout.read %A[%i, %j] {width = 4 : i64} : !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem> -> vector<4xf32>
// CHECK: layout.write %v, %A[%j, %i] {width = 4 : i64} : vector<4xf32>, !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>
// CHECK: %w = layout.read %C[%i, %j] {width = 2 : i64} : !layout.tensor<f16, #layout.cute<(8,4):(1,8)>, gmem> -> vector<2xf16>
func.func @contiguous(%A: !A, %C: !layout.tensor<f16, #layout.cute<(8,4)>, gmem>, %i: index, %j: index) {
  %v = layout.read %A[%i, %j] {width = 4 : i64} : !A -> vector<4xf32>
  layout.write %v, %A[%j, %i] {width = 4 : i64} : vector<4xf32>, !A
  %w = layout.read %C[%i, %j] {width = 2 : i64} : !layout.tensor<f16, #layout.cute<(8,4)>, gmem> -> vector<2xf16>
  func.return
}
