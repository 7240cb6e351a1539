// Mojo's copy through shared memory (`copy_dram_to_sram_async` then back), at the
// thread level as the Mojo guide writes it: a 256x256 float32 tensor in 16x16 tiles,
// one warp per tile with the thread layout (8,4):(4,1) (8x4 row-major) over vectors of 4 elements;
// each thread starts an asynchronous 16-byte copy (cp.async) into shared memory,
// waits for it, the warp meets at a barrier, and the tile is copied back out.
!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,16):(256,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
!TV = !layout.tensor<f32, #layout.cute<(16,4):(256,4)>, gmem, vec #layout.cute<(1,4):(256,1)>>
!SV = !layout.tensor<f32, #layout.cute<(16,4):(16,4)>, smem, vec #layout.cute<(1,4):(16,1)>>
!TF = !layout.tensor<f32, #layout.cute<(2,1):(2048,16)>, gmem, vec #layout.cute<(1,4):(256,1)>>
!SF = !layout.tensor<f32, #layout.cute<(2,1):(128,16)>, smem, vec #layout.cute<(1,4):(16,1)>>
func.func @copy_async(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c16 = arith.constant 16 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c16, %c16, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %s = layout.alloc : !S
    %va = layout.vectorize %ta {vector = array<i64: 1, 4>} : !T -> !TV
    %vs = layout.vectorize %s {vector = array<i64: 1, 4>} : !S -> !SV
    %fa = layout.distribute %va, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %fs = layout.distribute %vs, %tid {threads = #layout.cute<(8,4):(4,1)>} : !SV -> !SF
    layout.copy_async %fa, %fs : !TF, !SF
    layout.async_wait {pending = 0 : i64}
    layout.barrier
    %vb = layout.vectorize %tb {vector = array<i64: 1, 4>} : !T -> !TV
    %fb = layout.distribute %vb, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    layout.copy %fs, %fb : !SF, !TF
  }
  func.return
}
