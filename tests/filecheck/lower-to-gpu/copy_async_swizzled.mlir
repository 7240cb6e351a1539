// A cp.async pipeline into swizzled shared memory: `layout.tile`, `vectorize` and
// `distribute` of a `Swizzle o offset o L` view act on L and add their offsets inside
// the swizzle (CuTe's ComposedLayout), so each 16-byte cp.async writes the 8 elements
// at swizzle(offset) (Swizzle<3,3,3> on bf16: the NVMMA 128-byte swizzle, whose
// 8-element units a 16-byte vector never crosses). The tile of stage %bx is a known
// multiple of the swizzle's period, so it stays outside the XOR; the thread's offset
// goes inside. The copy back reads with other threads, so a wrong address is caught.
// RUN: tilec %s -p lower-to-gpu -t cuda | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @swizzled_stages: equivalent after
// EQ: @swizzled_static_stage: equivalent after

!G = !layout.tensor<bf16, #layout.cute<(128,64):(64,1)>, gmem>
!T = !layout.tensor<bf16, #layout.cute<(64,64):(64,1)>, gmem>
!TV = !layout.tensor<bf16, #layout.cute<(64,8):(64,8)>, gmem, vec #layout.cute<(1,8):(64,1)>>
!TF = !layout.tensor<bf16, #layout.cute<(8,1):(512,64)>, gmem, vec #layout.cute<(1,8):(64,1)>>
!S = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (128,64):(64,1)>, smem>
!X = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
!XV = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,8):(64,8)>, smem, vec #layout.cute<(1,8):(64,1)>>
!XF = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (8,1):(512,64)>, smem, vec #layout.cute<(1,8):(64,1)>>
!XR = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (1,8):(4096,8)>, smem, vec #layout.cute<(1,8):(64,1)>>
!TR = !layout.tensor<bf16, #layout.cute<(1,8):(4096,8)>, gmem, vec #layout.cute<(1,8):(64,1)>>

// Each thread's 8 vectors: the XOR of the offset inside the tile (bits 6-8, the row
// mod 8, into bits 3-5, the 16-byte unit), then the stage's offset added.
// CHECK-LABEL: swizzled_stages_kernel(
// CHECK: const int [[STAGE:t_[0-9]+]] = 64 * t;
// CHECK: const int [[Z:t_[0-9]+]] = t_{{[0-9]+}} ^ t_{{[0-9]+}};
// CHECK-NEXT: const int [[A:t_[0-9]+]] = [[STAGE]] + [[Z]];
// CHECK-NEXT: tilec_cp_async<16>(smem + [[A]], src + t_{{[0-9]+}});
// CHECK-COUNT-7: tilec_cp_async<16>(smem + t_{{[0-9]+}}, src + t_{{[0-9]+}});
// CHECK-NOT: tilec_cp_async<
// CHECK: tilec_cp_async_wait<0>();
// CHECK: const bf16x8 v = tilec_bitcast<bf16x8>(*reinterpret_cast<const i32x4*>(smem + t_{{[0-9]+}}));
func.func @swizzled_stages(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>) {
  %a = layout.view %src : !layout.ptr<bf16, align 16> -> !G
  %o = layout.view %dst : !layout.ptr<bf16, align 16> -> !G
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  layout.launch grid(%c2, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 64, 64>} : !G -> !T
    %ws = layout.tile %s[%bx, %c0] {tile = array<i64: 64, 64>} : !S -> !X
    %va = layout.vectorize %ta {vector = array<i64: 1, 8>} : !T -> !TV
    %vs = layout.vectorize %ws {vector = array<i64: 1, 8>} : !X -> !XV
    %fa = layout.distribute %va, %tid {threads = #layout.cute<(8,8):(8,1)>} : !TV -> !TF
    %fs = layout.distribute %vs, %tid {threads = #layout.cute<(8,8):(8,1)>} : !XV -> !XF
    layout.copy_async %fa, %fs : !TF, !XF
    layout.async_wait {pending = 0 : i64}
    layout.barrier
    %to = layout.tile %o[%bx, %c0] {tile = array<i64: 64, 64>} : !G -> !T
    %vo = layout.vectorize %to {vector = array<i64: 1, 8>} : !T -> !TV
    %ro = layout.distribute %vo, %tid {threads = #layout.cute<(64,1):(1,1)>} : !TV -> !TR
    %rs = layout.distribute %vs, %tid {threads = #layout.cute<(64,1):(1,1)>} : !XV -> !XR
    layout.copy %rs, %ro : !XR, !TR
  }
  func.return
}

// A static stage (tile 1 of 2): its offset, 4096, goes inside the swizzle with the
// thread's offset (the swizzle leaves it alone: a multiple of its period).
// CHECK-LABEL: swizzled_static_stage_kernel(
// CHECK: const int [[X:t_[0-9]+]] = 4096 + t_{{[0-9]+}};
// CHECK: & 448;
// CHECK: tilec_cp_async<16>(smem + t_{{[0-9]+}}, src + t_{{[0-9]+}});
func.func @swizzled_static_stage(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>) {
  %a = layout.view %src : !layout.ptr<bf16, align 16> -> !G
  %o = layout.view %dst : !layout.ptr<bf16, align 16> -> !G
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %ta = layout.tile %a[%c1, %c0] {tile = array<i64: 64, 64>} : !G -> !T
    %ws = layout.tile %s[%c1, %c0] {tile = array<i64: 64, 64>} : !S -> !X
    %va = layout.vectorize %ta {vector = array<i64: 1, 8>} : !T -> !TV
    %vs = layout.vectorize %ws {vector = array<i64: 1, 8>} : !X -> !XV
    %fa = layout.distribute %va, %tid {threads = #layout.cute<(8,8):(8,1)>} : !TV -> !TF
    %fs = layout.distribute %vs, %tid {threads = #layout.cute<(8,8):(8,1)>} : !XV -> !XF
    layout.copy_async %fa, %fs : !TF, !XF
    layout.async_wait {pending = 0 : i64}
    layout.barrier
    %to = layout.tile %o[%c1, %c0] {tile = array<i64: 64, 64>} : !G -> !T
    %vo = layout.vectorize %to {vector = array<i64: 1, 8>} : !T -> !TV
    %ro = layout.distribute %vo, %tid {threads = #layout.cute<(64,1):(1,1)>} : !TV -> !TR
    %rs = layout.distribute %vs, %tid {threads = #layout.cute<(64,1):(1,1)>} : !XV -> !XR
    layout.copy %rs, %ro : !XR, !TR
  }
  func.return
}
