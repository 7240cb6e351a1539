// 2-D / 3-D block shapes: `threads(8, 8)` and `layout.thread_idx` / `layout.global_idx`
// round trip; verifier errors.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>/dev/null | filecheck %s

// CHECK-LABEL: func.func @shape
// CHECK:       layout.launch grid(%c1, %c1, %c1) threads(4, 2, 2) {
// CHECK:         %tx = layout.thread_idx x
// CHECK:         %ty = layout.thread_idx y
// CHECK:         %gz = layout.global_idx z
func.func @shape() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(4, 2, 2) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %tx = layout.thread_idx x
    %ty = layout.thread_idx y
    %gz = layout.global_idx z
  }
  func.return
}

// -----

func.func @dim() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(8, 8) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{expected x, y or z, got 'w'}}
    %tw = layout.thread_idx w
  }
  func.return
}

// -----

func.func @outside() {
  // expected-error @+1 {{layout.thread_idx must be inside a layout.launch}}
  %tx = layout.thread_idx x
  func.return
}

// -----

func.func @too_many() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{threads takes 1, 2 or 3 extents (x, y, z)}}
  layout.launch grid(%c1, %c1, %c1) threads(2, 2, 2, 2) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
  }
  func.return
}

// -----

func.func @too_large() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{threads must be in [1, 1024], got 2048}}
  layout.launch grid(%c1, %c1, %c1) threads(64, 32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
  }
  func.return
}
