// RUN: tilec %s -p default --check-equivalence | filecheck %s
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// Regression (issue 18): LayoutTensor's `vectorize[2, 2]` of a gmem -> smem copy. The
// vectorize pass made it a `layout.copy_async` that lower-to-gpu refused ("copy_async
// needs equal, contiguous and aligned vectors on both sides"), and the synchronous copy
// moved scalars. Each 2x2 vector of these row-major tiles is two contiguous, 8-byte
// aligned runs: it stays asynchronous, one 8-byte cp.async per run, and the copy back
// moves float2s.

// CHECK: // @vec2d: equivalent after 'default'
// CUDA: tilec_cp_async<8>(smem + [[S0:t_[0-9]+]], src + [[G0:t_[0-9]+]]);
// CUDA-COUNT-3: tilec_cp_async<8>(
// CUDA: tilec_cp_async_wait<0>();
// CUDA: const f32x2 v = *reinterpret_cast<const f32x2*>(smem + [[S0]]);
// CUDA: *reinterpret_cast<f32x2*>(dst + [[G0]]) = v;
!G = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
!TV = !layout.tensor<f32, #layout.cute<(8,8):(128,2)>, gmem, vec #layout.cute<(2,2):(64,1)>>
!SV = !layout.tensor<f32, #layout.cute<(8,8):(32,2)>, smem, vec #layout.cute<(2,2):(16,1)>>
!TF = !layout.tensor<f32, #layout.cute<(1,2):(1024,8)>, gmem, vec #layout.cute<(2,2):(64,1)>>
!SF = !layout.tensor<f32, #layout.cute<(1,2):(256,8)>, smem, vec #layout.cute<(2,2):(16,1)>>
func.func @vec2d(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c4, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %s = layout.alloc : !S
    %va = layout.vectorize %ta {vector = array<i64: 2, 2>} : !T -> !TV
    %vs = layout.vectorize %s {vector = array<i64: 2, 2>} : !S -> !SV
    %fa = layout.distribute %va, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %fs = layout.distribute %vs, %tid {threads = #layout.cute<(8,4):(4,1)>} : !SV -> !SF
    layout.copy %fa, %fs : !TF, !SF
    layout.barrier
    %vb = layout.vectorize %tb {vector = array<i64: 2, 2>} : !T -> !TV
    %fb = layout.distribute %vb, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    layout.copy %fs, %fb : !SF, !TF
  }
  func.return
}

// The same copy by 2x1 (column) vectors of f16: no run of 4 bytes, so the vectorize
// pass leaves it a synchronous copy (it made an invalid copy_async before).
// CHECK: // @colvec_sync: equivalent after 'default'
// CUDA-LABEL: kernel colvec_sync_kernels
// CUDA-NOT: tilec_cp_async<
// CUDA: }
!Gh = !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, gmem>
!Th = !layout.tensor<f16, #layout.cute<(16,16):(64,1)>, gmem>
!Sh = !layout.tensor<f16, #layout.cute<(16,16):(16,1)>, smem>
!TVh = !layout.tensor<f16, #layout.cute<(8,16):(128,1)>, gmem, vec #layout.cute<(2,1):(64,1)>>
!SVh = !layout.tensor<f16, #layout.cute<(8,16):(32,1)>, smem, vec #layout.cute<(2,1):(16,1)>>
!TFh = !layout.tensor<f16, #layout.cute<(1,4):(1024,4)>, gmem, vec #layout.cute<(2,1):(64,1)>>
!SFh = !layout.tensor<f16, #layout.cute<(1,4):(256,4)>, smem, vec #layout.cute<(2,1):(16,1)>>
func.func @colvec_sync(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>) {
  %a = layout.view %src : !layout.ptr<f16, align 16> -> !Gh
  %b = layout.view %dst : !layout.ptr<f16, align 16> -> !Gh
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c4, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 16, 16>} : !Gh -> !Th
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 16, 16>} : !Gh -> !Th
    %s = layout.alloc : !Sh
    %va = layout.vectorize %ta {vector = array<i64: 2, 1>} : !Th -> !TVh
    %vs = layout.vectorize %s {vector = array<i64: 2, 1>} : !Sh -> !SVh
    %fa = layout.distribute %va, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TVh -> !TFh
    %fs = layout.distribute %vs, %tid {threads = #layout.cute<(8,4):(4,1)>} : !SVh -> !SFh
    layout.copy %fa, %fs : !TFh, !SFh
    layout.barrier
    %vb = layout.vectorize %tb {vector = array<i64: 2, 1>} : !Th -> !TVh
    %fb = layout.distribute %vb, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TVh -> !TFh
    layout.copy %fs, %fb : !SFh, !TFh
  }
  func.return
}
