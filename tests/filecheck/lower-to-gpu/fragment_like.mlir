// layout.make_tensor_like / layout.make_fragment_like (CuTe's): registers shaped like a
// block's tile, by CuTe's rules; a copy through them keeps every element, before
// and after lowering (where they are the layout.alloc of their type).
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default | filecheck %s --check-prefix=LOWERED
// RUN: tilec %s -p default -t cuda | filecheck %s
// EQ: @through_registers: equivalent after 'default'
// LOWERED-NOT: make_fragment_like
// LOWERED-NOT: make_tensor_like
// CHECK-LABEL: through_registers_kernel(
// CHECK: float regs[8];
// CHECK: float regs_1[8];
!G = !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, gmem>
!P = !layout.tensor<f32, #layout.cute<(2,4):(32,1)>, gmem>
!F = !layout.tensor<f32, #layout.cute<(2,4):(1,2)>, rmem>
!L = !layout.tensor<f32, #layout.cute<(2,4):(4,1)>, rmem>
func.func @through_registers(%a: !layout.ptr<f32>, %b: !layout.ptr<f32>) {
  %A = layout.view %a : !layout.ptr<f32> -> !G
  %B = layout.view %b : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  layout.launch grid(%c8, %c8, %c1) threads(1) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %pa = layout.tile %A[%by, %bx] {tile = array<i64: 2, 4>} : !G -> !P
    %pb = layout.tile %B[%by, %bx] {tile = array<i64: 2, 4>} : !G -> !P
    %frag = layout.make_fragment_like %pa : !P -> !F
    %like = layout.make_tensor_like %pa : !P -> !L
    layout.copy %pa, %frag : !P, !F
    layout.copy %frag, %like : !F, !L
    layout.copy %like, %pb : !L, !P
  }
  func.return
}
