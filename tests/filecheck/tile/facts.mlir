// RUN: tilec %s -p tile | filecheck %s
// RUN: tilec %s -p tile --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: not tilec %s --run cpu --arg n=9 2>&1 | filecheck %s --check-prefix=BROKEN
// BROKEN: error: 'layout.view': index operand 1 is 9, more than 8 as its `at_most` entry promises
// EQ: @bounded_rows: equivalent after
// EQ: @static_short_rows: equivalent after
// EQ: @folded_modes: equivalent after
// EQ: @dynamic_strides_row_major: equivalent after
// The facts the `tile` pass chooses from: a dynamic extent promised short (`at_most`)
// is taken whole, as a static short extent is; what two modes leave of the budget goes
// to further modes; dynamic strides are ordered row-major (the last mode fastest).

// A transpose whose dst rows are at most 8 long: the whole 8 on that side, the src side
// grows to the 16 KiB budget (the same tile as the static extent 5 below).
// CHECK-LABEL: func.func @bounded_rows
// CHECK: layout.tile %a[{{.*}}] {tile = array<i64: 512, 8>}
func.func @bounded_rows(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>, %m: index, %n: index) attributes {tilec.args = {m = 300 : index, n = 5 : index}} {
  %a = layout.view %p(%m, %n) {at_most = array<i64: 0, 8>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(1,4096)>, gmem>
  %b = layout.view %q(%m, %n) {at_most = array<i64: 0, 8>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(8,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(?,?):(1,4096)>, gmem>, !layout.tensor<f32, #layout.cute<(?,?):(8,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @static_short_rows
// CHECK: layout.tile %a[{{.*}}] {tile = array<i64: 512, 8>}
func.func @static_short_rows(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(4096,5):(1,4096)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(4096,5):(8,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(4096,5):(1,4096)>, gmem>, !layout.tensor<f32, #layout.cute<(4096,5):(8,1)>, gmem>
  func.return
}

// A permute of short modes: the two contiguous modes (4 and 8 wide) leave room for the
// others, taken in the dst's memory order.
// CHECK-LABEL: func.func @folded_modes
// CHECK: layout.tile %a[{{.*}}] {tile = array<i64: 8, 4, 8, 4>}
func.func @folded_modes(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(8,4,8,4):(4,1,256,32)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(8,4,8,4):(128,32,4,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(8,4,8,4):(4,1,256,32)>, gmem>, !layout.tensor<f32, #layout.cute<(8,4,8,4):(128,32,4,1)>, gmem>
  func.return
}

// Rows of run-time length in a rank-3 copy contiguous along its last mode: the rows'
// neighbours in memory are mode 1 (the later dynamic stride), which takes the rest of
// the tile; block x walks the rows, y mode 1.
// CHECK-LABEL: func.func @dynamic_strides_row_major
// CHECK: layout.tile %a[%{{.*}}, %[[Y:.*]], %[[X:.*]]] {tile = array<i64: 1, 32, 256>}
func.func @dynamic_strides_row_major(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>, %l: index, %m: index, %n: index, %s0: index, %s1: index) attributes {tilec.args = {l = 3 : index, m = 5 : index, n = 300 : index, s0 = 1600 : index, s1 = 320 : index}} {
  %a = layout.view %p(%l, %m, %n, %s0, %s1) {divisible = array<i64: 1, 1, 1, 4, 4>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  %b = layout.view %q(%l, %m, %n, %s0, %s1) {divisible = array<i64: 1, 1, 1, 4, 4>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(?,?,?):(?,?,1)>, gmem>, !layout.tensor<f32, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  func.return
}
