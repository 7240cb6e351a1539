// RUN: not tilec %s -p 'distribute{threads=256}' 2>&1 | filecheck %s --check-prefix=THREADS
// RUN: not tilec %s -p 'distribute{vector_bytes=12}' 2>&1 | filecheck %s --check-prefix=VEC

// THREADS: errors.mlir:16:5: error: 'layout.copy': distribute: threads=256 but the enclosing launch has 128 threads
// VEC: distribute: vector-bytes=12 must be a power of two
!G = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,64):(64,1)>, gmem>
func.func @copy(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 16, 64>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 16, 64>} : !G -> !T
    layout.copy %ta, %tb : !T, !T
  }
  func.return
}
