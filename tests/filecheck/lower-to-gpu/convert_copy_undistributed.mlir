// A converting copy converts between a load and a store that `distribute` makes;
// lower-to-gpu refuses one that was not distributed.
// RUN: not tilec %s -p lower-to-gpu 2>&1 | filecheck %s
// CHECK: convert_copy_undistributed.mlir:13:5: error: 'layout.copy': lower-to-gpu: a converting copy (convert = ...) must be distributed first (its conversion happens between a load and a store)
!Gf = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!Gb = !layout.tensor<bf16, #layout.cute<(64,64):(64,1)>, gmem>
func.func @narrow(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<bf16, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !Gf
  %b = layout.view %q : !layout.ptr<bf16, align 16> -> !Gb
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.copy %a, %b {convert = "float32->bfloat16"} : !Gf, !Gb
  }
  func.return
}
