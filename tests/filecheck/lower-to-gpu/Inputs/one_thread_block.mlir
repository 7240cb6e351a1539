// A 128x128 copy by a block of one thread (16384 elements per thread, past
// MAX_REGISTERS_PER_THREAD): distribute copies it with loops (registers_per_thread.mlir).
!G = !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
func.func @one_thread(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(1) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.copy %a, %b : !G, !G
  }
  func.return
}
