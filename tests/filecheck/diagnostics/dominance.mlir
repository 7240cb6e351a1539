// A value used before it is defined (or by its own definition) is an error at the
// using op, as in MLIR ("does not dominate this use"): xDSL's verifier does not check
// dominance, and the passes and the CPU reference executor failed on the missing value
// (found by the fuzzer: exit 2, KeyError).
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file --run cpu 2>&1 | filecheck %s --check-prefix=EXEC
// RUN: not tilec %s --split-input-file -p default --check-equivalence 2>&1 | filecheck %s --check-prefix=EXEC

// EXEC: dominance.mlir:15:3: error: 'layout.copy': operand #1 (%b) does not dominate this use: it is used before it is defined

!V = !layout.tensor<f32, #layout.cute<(64):(1)>, gmem>
func.func @use_before_def(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !V
  // expected-error @+1 {{operand #1 (%b) does not dominate this use: it is used before it is defined}}
  layout.copy %a, %b : !V, !V
  %b = layout.view %q : !layout.ptr<f32> -> !V
  func.return
}

// -----

func.func @own_result() -> index {
  // expected-error @+1 {{operand #0 (%x) does not dominate this use}}
  %x = arith.addi %x, %x : index
  func.return %x : index
}

// -----

!G = !layout.tensor<f32, #layout.cute<(64,96):(96,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,32):(96,1)>, gmem>
!I = !layout.iter<!T>
func.func @iterator_of_itself(%src: !layout.ptr<f32, align 16>) {
  %t = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%i: index, %by: index, %bz: index, %tid: index):
    %iter = layout.tiled_iterator %t[%i, %c0] {tile = array<i64: 32, 32>, axis = 1 : i64} : !G
    %r = scf.for %j = %c0 to %c3 step %c1 iter_args(%it = %iter) -> (!I) {
      // expected-error @+1 {{operand #0 (%next) does not dominate this use}}
      %next = layout.iter_next %next : !I
      scf.yield %next : !I
    }
  }
  func.return
}

// -----

// Across blocks, dominance follows the branches: the entry block is dominated by no
// other block; a block that no branch enters is dominated by every block (as in MLIR).
func.func @blocks() -> index {
  // expected-error @+1 {{operand #0 (%y) does not dominate this use}}
  func.return %y : index
^bb1:
  %y = arith.constant 1 : index
  %z = arith.addi %w, %w : index
  func.return %y : index
^bb2:
  %w = arith.constant 2 : index
  func.return %w : index
}
