// layout.make_identity_tensor / layout.read_coord: verifier errors (round trip:
// identity_tensor.mlir).
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>&1 | filecheck %s
// CHECK: error: 'layout.make_identity_tensor': the layout of an identity tensor of shape (8,4) is the compact column-major (8,4):(1,8), not (8,4):(4,1)
func.func @row_major() {
  // expected-error @+1 {{the layout of an identity tensor of shape (8,4) is the compact column-major (8,4):(1,8), not (8,4):(4,1)}}
  %c = layout.make_identity_tensor : !layout.tensor<tuple<index, index>, #layout.cute<(8,4):(4,1)>, coord>
  func.return
}

// -----

func.func @arity() {
  // expected-error @+1 {{an identity tensor of rank 2 has coordinates of 2 indices, not tuple<index>}}
  %c = layout.make_identity_tensor : !layout.tensor<tuple<index>, #layout.cute<(8,4):(1,8)>, coord>
  func.return
}

// -----

func.func @operands(%m: index) {
  // expected-error @+1 {{shape (8,4) has 0 dynamic extent(s) but 1 index operand(s) were given}}
  %c = layout.make_identity_tensor(%m) : !layout.tensor<tuple<index, index>, #layout.cute<(8,4):(1,8)>, coord>
  func.return
}

// -----

func.func @nested() {
  // expected-error @+1 {{an identity tensor has a flat shape, one extent per mode, not ((2,4),4):((1,2),8)}}
  %c = layout.make_identity_tensor : !layout.tensor<tuple<index, index>, #layout.cute<((2,4),4):((1,2),8)>, coord>
  func.return
}

// -----

func.func @not_coordinates() {
  // expected-error @+1 {{the elements of a coord tensor are coordinates (tuple<index, ...>), not f32}}
  %c = layout.make_identity_tensor : !layout.tensor<f32, #layout.cute<(8,4):(1,8)>, coord>
  func.return
}

// -----

func.func @not_coord(%t: !layout.tensor<f32, #layout.cute<(8,4):(1,8)>, gmem>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{layout.read_coord reads the coordinates of an identity tensor (a coord view, layout.make_identity_tensor), not of !layout.tensor<f32, #layout.cute<(8,4):(1,8)>, gmem>: read memory with layout.read}}
  %i, %j = layout.read_coord %t[%c0] : !layout.tensor<f32, #layout.cute<(8,4):(1,8)>, gmem> -> index, index
  func.return
}

// -----

!C = !layout.tensor<tuple<index, index>, #layout.cute<(8,4):(1,8)>, coord>
func.func @results() {
  %c = layout.make_identity_tensor : !C
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{an element of !layout.tensor<tuple<index, index>, #layout.cute<(8,4):(1,8)>, coord> is a coordinate of 2 indices, not 1}}
  %i = layout.read_coord %c[%c0] : !C -> index
  func.return
}

// -----

!C = !layout.tensor<tuple<index, index>, #layout.cute<(8,4):(1,8)>, coord>
func.func @indices() {
  %c = layout.make_identity_tensor : !C
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{3 indices for a view of rank 2: give 2 (one per mode), 1 (the whole view)}}
  %i, %j = layout.read_coord %c[%c0, %c0, %c0] : !C -> index, index
  func.return
}

// -----

!C = !layout.tensor<tuple<index, index>, #layout.cute<(8,4):(1,8)>, coord>
func.func @carried() {
  %c = layout.make_identity_tensor : !C
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%v = %c) -> (!C) {
    scf.yield %v : !C
  }
  // expected-error @+1 {{the coordinates of a view made by 'scf.for' are not supported: read those of a view made from layout.make_identity_tensor by view ops (tile, distribute, slice, partition, divide, compose)}}
  %i, %j = layout.read_coord %r[%c0] : !C -> index, index
  func.return
}

// -----

!C = !layout.tensor<tuple<index, index>, #layout.cute<(8,4):(1,8)>, coord>
func.func @no_memory() {
  %c = layout.make_identity_tensor : !C
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'layout.read' accesses memory, and its view is an identity tensor (!layout.tensor<tuple<index, index>, #layout.cute<(8,4):(1,8)>, coord>), which has none: read its coordinates with layout.read_coord}}
  %x = layout.read %c[%c0, %c0] : !C -> tuple<index, index>
  func.return
}

// -----

!C = !layout.tensor<tuple<index, index>, #layout.cute<(8,4):(1,8)>, coord>
!G = !layout.tensor<f32, #layout.cute<(8,4):(1,8)>, gmem>
func.func @no_copy(%g: !G) {
  %c = layout.make_identity_tensor : !C
  // expected-error @+1 {{'layout.copy' accesses memory, and its source is an identity tensor}}
  layout.copy %c, %g : !C, !G
  func.return
}

// -----

!D = !layout.tensor<tuple<index, index>, #layout.cute<(?,?):(1,?)>, coord>
func.func @linear_dynamic(%m: index, %n: index) {
  %c = layout.make_identity_tensor(%m, %n) : !D
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{one index for the whole of (?,?):(1,?) needs static extents: give one index per mode}}
  %i, %j = layout.read_coord %c[%c0] : !D -> index, index
  func.return
}
