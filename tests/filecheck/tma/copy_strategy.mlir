// The copy's strategy decides where the program gives one: the same 16x16 round trip
// through shared memory becomes TMA when the passes choose (no strategy) or when asked
// (tma), cp.async + plain stores when asked (async into shared, simt out of it).
// RUN: tilec %s -p tma | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// EQ: @passes_choose: equivalent after 'default'
// EQ: @tma: equivalent after 'default'
// EQ: @async_then_simt: equivalent after 'default'

// CHECK-LABEL: func.func @passes_choose
// CHECK:         layout.tma_load
// CHECK:         layout.tma_store
// CHECK-NOT:     layout.copy
// CHECK-LABEL: func.func @tma
// CHECK:         layout.tma_load
// CHECK:         layout.tma_store
// CHECK-NOT:     layout.copy
// CHECK-LABEL: func.func @async_then_simt
// CHECK-NOT:     layout.tma_load
// CHECK:         layout.copy %ta, %s {strategy = #layout.copy_strategy<async>}
// CHECK-NEXT:    layout.copy %s, %tb {strategy = #layout.copy_strategy<simt>}
// CHECK-NOT:     layout.tma_store

// CUDA-LABEL: passes_choose_kernel(
// CUDA:         // TMA load
// CUDA-LABEL: tma_kernel(
// CUDA:         // TMA load
// CUDA-LABEL: async_then_simt_kernel(
// CUDA-NOT:     TMA
// CUDA:         tilec_cp_async<16>(
// CUDA:         tilec_cp_async_wait<0>();
// CUDA:         __syncthreads();
// CUDA:         *reinterpret_cast<f32x4*>(dst + 
!G = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
func.func @passes_choose(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c4, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%by, %bx] {tile = array<i64: 16, 16>} : !G -> !T
    %tb = layout.tile %b[%by, %bx] {tile = array<i64: 16, 16>} : !G -> !T
    %s = layout.alloc : !S
    layout.copy %ta, %s : !T, !S
    layout.copy %s, %tb : !S, !T
  }
  func.return
}

func.func @tma(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c4, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%by, %bx] {tile = array<i64: 16, 16>} : !G -> !T
    %tb = layout.tile %b[%by, %bx] {tile = array<i64: 16, 16>} : !G -> !T
    %s = layout.alloc : !S
    layout.copy %ta, %s {strategy = #layout.copy_strategy<tma>} : !T, !S
    layout.copy %s, %tb {strategy = #layout.copy_strategy<tma>} : !S, !T
  }
  func.return
}

func.func @async_then_simt(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c4, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%by, %bx] {tile = array<i64: 16, 16>} : !G -> !T
    %tb = layout.tile %b[%by, %bx] {tile = array<i64: 16, 16>} : !G -> !T
    %s = layout.alloc : !S
    layout.copy %ta, %s {strategy = #layout.copy_strategy<async>} : !T, !S
    layout.copy %s, %tb {strategy = #layout.copy_strategy<simt>} : !S, !T
  }
  func.return
}
