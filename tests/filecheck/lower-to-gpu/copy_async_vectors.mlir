// RUN: not tilec %s -p default -t cuda 2>&1 | filecheck %s
// A user-written copy_async of 2x1 (column) vectors of f16: no contiguous run of 4 or
// more bytes, so no cp.async can move them. The error names both vector layouts, the
// run found and what cp.async needs (was: "copy_async needs equal, contiguous and
// aligned vectors on both sides").

// CHECK: copy_async_vectors.mlir:[[# @LINE + 20]]:5: error: 'layout.copy_async': copy_async of 2-element vectors (vec (2,1):(64,1)) into 2-element vectors (vec (2,1):(16,1)): their common contiguous, aligned run is 1 element(s) = 2 bytes, and cp.async moves 4, 8 or 16 bytes; vectorize along the contiguous mode
!G = !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, gmem>
!T = !layout.tensor<f16, #layout.cute<(16,16):(64,1)>, gmem>
!S = !layout.tensor<f16, #layout.cute<(16,16):(16,1)>, smem>
!TV = !layout.tensor<f16, #layout.cute<(8,16):(128,1)>, gmem, vec #layout.cute<(2,1):(64,1)>>
!SV = !layout.tensor<f16, #layout.cute<(8,16):(32,1)>, smem, vec #layout.cute<(2,1):(16,1)>>
!TF = !layout.tensor<f16, #layout.cute<(1,4):(1024,4)>, gmem, vec #layout.cute<(2,1):(64,1)>>
!SF = !layout.tensor<f16, #layout.cute<(1,4):(256,4)>, smem, vec #layout.cute<(2,1):(16,1)>>
func.func @colvec(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>) {
  %a = layout.view %src : !layout.ptr<f16, align 16> -> !G
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c4, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %s = layout.alloc : !S
    %va = layout.vectorize %ta {vector = array<i64: 2, 1>} : !T -> !TV
    %vs = layout.vectorize %s {vector = array<i64: 2, 1>} : !S -> !SV
    %fa = layout.distribute %va, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %fs = layout.distribute %vs, %tid {threads = #layout.cute<(8,4):(4,1)>} : !SV -> !SF
    layout.copy_async %fa, %fs : !TF, !SF
  }
  func.return
}
