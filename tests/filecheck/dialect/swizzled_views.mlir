// Round trip of tile, vectorize, distribute and slice on a swizzled (composed) shared
// view: the result keeps the swizzle and its offset, the view op acting on the inner
// layout.
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s --print-op-generic | tilec | filecheck %s

!S = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (128,64):(64,1)>, smem>
!X = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
!XV = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,8):(64,8)>, smem, vec #layout.cute<(1,8):(64,1)>>
!XF = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (8,1):(512,64)>, smem, vec #layout.cute<(1,8):(64,1)>>
!O = !layout.tensor<f16, #layout.composed<swizzle<2,3,3> o 8 o (32,32):(32,1)>, smem>
!OT = !layout.tensor<f16, #layout.composed<swizzle<2,3,3> o 8 o (8,16):(32,1)>, smem>
!R4 = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (1,1,64,128):(0,0,1,64)>, smem>
!R2 = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,128):(1,64)>, smem>

// CHECK-LABEL: func.func @swizzled_views(
// CHECK: %t = layout.tile %s[%i, %c0] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (128,64):(64,1)>, smem> -> !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
// CHECK: %v = layout.vectorize %t {vector = array<i64: 1, 8>} : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem> -> !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,8):(64,8)>, smem, vec #layout.cute<(1,8):(64,1)>>
// CHECK: %f = layout.distribute %v, %tid {threads = #layout.cute<(8,8):(8,1)>} : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,8):(64,8)>, smem, vec #layout.cute<(1,8):(64,1)>> -> !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (8,1):(512,64)>, smem, vec #layout.cute<(1,8):(64,1)>>
// CHECK: %u = layout.tile %o[%i, %i] {tile = array<i64: 8, 16>} : !layout.tensor<f16, #layout.composed<swizzle<2,3,3> o 8 o (32,32):(32,1)>, smem> -> !layout.tensor<f16, #layout.composed<swizzle<2,3,3> o 8 o (8,16):(32,1)>, smem>
// CHECK: %q = layout.slice %r[0, 0, _, _] : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (1,1,64,128):(0,0,1,64)>, smem> -> !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,128):(1,64)>, smem>
// CHECK: %row = layout.slice %o[%i, _] : !layout.tensor<f16, #layout.composed<swizzle<2,3,3> o 8 o (32,32):(32,1)>, smem> -> !layout.tensor<f16, #layout.composed<swizzle<2,3,3> o 8 o 32:1>, smem>
func.func @swizzled_views(%i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %t = layout.tile %s[%i, %c0] {tile = array<i64: 64, 64>} : !S -> !X
    %v = layout.vectorize %t {vector = array<i64: 1, 8>} : !X -> !XV
    %f = layout.distribute %v, %tid {threads = #layout.cute<(8,8):(8,1)>} : !XV -> !XF
    %o = layout.alloc : !O
    %u = layout.tile %o[%i, %i] {tile = array<i64: 8, 16>} : !O -> !OT
    %r = layout.alloc : !R4
    %q = layout.slice %r[0, 0, _, _] : !R4 -> !R2
    %row = layout.slice %o[%i, _] : !O
  }
  func.return
}
