// `!layout.async_token` and `layout.async_wait %token`: round trip and verifier errors.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: tilec %S/../lower-to-gpu/async_tokens.mlir | tilec | filecheck %s

// CHECK-LABEL: func.func @two_stages
// CHECK: %t1 = layout.copy_async %dx, %e1 : {{.*}} -> !layout.async_token
// CHECK: %t2 = layout.copy_async %dy, %e2 : {{.*}} -> !layout.async_token
// CHECK: layout.async_wait %t1
// CHECK: layout.async_wait %t2

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,16):(256,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
!TV = !layout.tensor<f32, #layout.cute<(16,4):(256,4)>, gmem, vec #layout.cute<(1,4):(256,1)>>
!SV = !layout.tensor<f32, #layout.cute<(16,4):(16,4)>, smem, vec #layout.cute<(1,4):(16,1)>>
!TF = !layout.tensor<f32, #layout.cute<(2,1):(2048,16)>, gmem, vec #layout.cute<(1,4):(256,1)>>
!SF = !layout.tensor<f32, #layout.cute<(2,1):(128,16)>, smem, vec #layout.cute<(1,4):(16,1)>>
func.func @both(%x: !layout.ptr<f32, align 16>, %y: !layout.ptr<f32, align 16>, %u: !layout.ptr<f32, align 16>, %v: !layout.ptr<f32, align 16>) {
  %gx = layout.view %x : !layout.ptr<f32, align 16> -> !G
  %gy = layout.view %y : !layout.ptr<f32, align 16> -> !G
  %gu = layout.view %u : !layout.ptr<f32, align 16> -> !G
  %gv = layout.view %v : !layout.ptr<f32, align 16> -> !G
  %c16 = arith.constant 16 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c16, %c16, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %fx = layout.tile %gx[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %fy = layout.tile %gy[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %fu = layout.tile %gu[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %fv = layout.tile %gv[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %vx = layout.vectorize %fx {vector = array<i64: 1, 4>} : !T -> !TV
    %vy = layout.vectorize %fy {vector = array<i64: 1, 4>} : !T -> !TV
    %vu = layout.vectorize %fu {vector = array<i64: 1, 4>} : !T -> !TV
    %vv = layout.vectorize %fv {vector = array<i64: 1, 4>} : !T -> !TV
    %dx = layout.distribute %vx, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %dy = layout.distribute %vy, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %du = layout.distribute %vu, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %dv = layout.distribute %vv, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %s1 = layout.alloc : !S
    %s2 = layout.alloc : !S
    %w1 = layout.vectorize %s1 {vector = array<i64: 1, 4>} : !S -> !SV
    %w2 = layout.vectorize %s2 {vector = array<i64: 1, 4>} : !S -> !SV
    %e1 = layout.distribute %w1, %tid {threads = #layout.cute<(8,4):(4,1)>} : !SV -> !SF
    %e2 = layout.distribute %w2, %tid {threads = #layout.cute<(8,4):(4,1)>} : !SV -> !SF
    %t1 = layout.copy_async %dx, %e1 : !TF, !SF -> !layout.async_token
    %t2 = layout.copy_async %dy, %e2 : !TF, !SF -> !layout.async_token
    // expected-error @+1 {{async_wait takes either tokens or {pending = N}, not both}}
    layout.async_wait %t1 {pending = 0 : i64}
  }
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,16):(256,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
!TV = !layout.tensor<f32, #layout.cute<(16,4):(256,4)>, gmem, vec #layout.cute<(1,4):(256,1)>>
!SV = !layout.tensor<f32, #layout.cute<(16,4):(16,4)>, smem, vec #layout.cute<(1,4):(16,1)>>
!TF = !layout.tensor<f32, #layout.cute<(2,1):(2048,16)>, gmem, vec #layout.cute<(1,4):(256,1)>>
!SF = !layout.tensor<f32, #layout.cute<(2,1):(128,16)>, smem, vec #layout.cute<(1,4):(16,1)>>
func.func @none(%x: !layout.ptr<f32, align 16>, %y: !layout.ptr<f32, align 16>, %u: !layout.ptr<f32, align 16>, %v: !layout.ptr<f32, align 16>) {
  %gx = layout.view %x : !layout.ptr<f32, align 16> -> !G
  %gy = layout.view %y : !layout.ptr<f32, align 16> -> !G
  %gu = layout.view %u : !layout.ptr<f32, align 16> -> !G
  %gv = layout.view %v : !layout.ptr<f32, align 16> -> !G
  %c16 = arith.constant 16 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c16, %c16, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %fx = layout.tile %gx[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %fy = layout.tile %gy[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %fu = layout.tile %gu[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %fv = layout.tile %gv[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %vx = layout.vectorize %fx {vector = array<i64: 1, 4>} : !T -> !TV
    %vy = layout.vectorize %fy {vector = array<i64: 1, 4>} : !T -> !TV
    %vu = layout.vectorize %fu {vector = array<i64: 1, 4>} : !T -> !TV
    %vv = layout.vectorize %fv {vector = array<i64: 1, 4>} : !T -> !TV
    %dx = layout.distribute %vx, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %dy = layout.distribute %vy, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %du = layout.distribute %vu, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %dv = layout.distribute %vv, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %s1 = layout.alloc : !S
    %s2 = layout.alloc : !S
    %w1 = layout.vectorize %s1 {vector = array<i64: 1, 4>} : !S -> !SV
    %w2 = layout.vectorize %s2 {vector = array<i64: 1, 4>} : !S -> !SV
    %e1 = layout.distribute %w1, %tid {threads = #layout.cute<(8,4):(4,1)>} : !SV -> !SF
    %e2 = layout.distribute %w2, %tid {threads = #layout.cute<(8,4):(4,1)>} : !SV -> !SF
    %t1 = layout.copy_async %dx, %e1 : !TF, !SF -> !layout.async_token
    %t2 = layout.copy_async %dy, %e2 : !TF, !SF -> !layout.async_token
    // expected-error @+1 {{async_wait takes either tokens or {pending = N}, not both}}
    "layout.async_wait"() : () -> ()
  }
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,16):(256,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
!TV = !layout.tensor<f32, #layout.cute<(16,4):(256,4)>, gmem, vec #layout.cute<(1,4):(256,1)>>
!SV = !layout.tensor<f32, #layout.cute<(16,4):(16,4)>, smem, vec #layout.cute<(1,4):(16,1)>>
!TF = !layout.tensor<f32, #layout.cute<(2,1):(2048,16)>, gmem, vec #layout.cute<(1,4):(256,1)>>
!SF = !layout.tensor<f32, #layout.cute<(2,1):(128,16)>, smem, vec #layout.cute<(1,4):(16,1)>>
func.func @region_between(%x: !layout.ptr<f32, align 16>, %y: !layout.ptr<f32, align 16>, %u: !layout.ptr<f32, align 16>, %v: !layout.ptr<f32, align 16>) {
  %gx = layout.view %x : !layout.ptr<f32, align 16> -> !G
  %gy = layout.view %y : !layout.ptr<f32, align 16> -> !G
  %gu = layout.view %u : !layout.ptr<f32, align 16> -> !G
  %gv = layout.view %v : !layout.ptr<f32, align 16> -> !G
  %c16 = arith.constant 16 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c16, %c16, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %fx = layout.tile %gx[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %fy = layout.tile %gy[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %fu = layout.tile %gu[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %fv = layout.tile %gv[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %vx = layout.vectorize %fx {vector = array<i64: 1, 4>} : !T -> !TV
    %vy = layout.vectorize %fy {vector = array<i64: 1, 4>} : !T -> !TV
    %vu = layout.vectorize %fu {vector = array<i64: 1, 4>} : !T -> !TV
    %vv = layout.vectorize %fv {vector = array<i64: 1, 4>} : !T -> !TV
    %dx = layout.distribute %vx, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %dy = layout.distribute %vy, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %du = layout.distribute %vu, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %dv = layout.distribute %vv, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %s1 = layout.alloc : !S
    %s2 = layout.alloc : !S
    %w1 = layout.vectorize %s1 {vector = array<i64: 1, 4>} : !S -> !SV
    %w2 = layout.vectorize %s2 {vector = array<i64: 1, 4>} : !S -> !SV
    %e1 = layout.distribute %w1, %tid {threads = #layout.cute<(8,4):(4,1)>} : !SV -> !SF
    %e2 = layout.distribute %w2, %tid {threads = #layout.cute<(8,4):(4,1)>} : !SV -> !SF
    %t1 = layout.copy_async %dx, %e1 : !TF, !SF -> !layout.async_token
    %t2 = layout.copy_async %dy, %e2 : !TF, !SF -> !layout.async_token
    %c = arith.constant true
    scf.if %c {
      %t3 = layout.copy_async %du, %e2 : !TF, !SF -> !layout.async_token
    }
    // expected-error @+1 {{a copy_async inside a region between a token and its async_wait: the groups in flight are not known statically (use pending)}}
    layout.async_wait %t1
  }
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,16):(256,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
!TV = !layout.tensor<f32, #layout.cute<(16,4):(256,4)>, gmem, vec #layout.cute<(1,4):(256,1)>>
!SV = !layout.tensor<f32, #layout.cute<(16,4):(16,4)>, smem, vec #layout.cute<(1,4):(16,1)>>
!TF = !layout.tensor<f32, #layout.cute<(2,1):(2048,16)>, gmem, vec #layout.cute<(1,4):(256,1)>>
!SF = !layout.tensor<f32, #layout.cute<(2,1):(128,16)>, smem, vec #layout.cute<(1,4):(16,1)>>
func.func @other_block(%x: !layout.ptr<f32, align 16>, %y: !layout.ptr<f32, align 16>, %u: !layout.ptr<f32, align 16>, %v: !layout.ptr<f32, align 16>) {
  %gx = layout.view %x : !layout.ptr<f32, align 16> -> !G
  %gy = layout.view %y : !layout.ptr<f32, align 16> -> !G
  %gu = layout.view %u : !layout.ptr<f32, align 16> -> !G
  %gv = layout.view %v : !layout.ptr<f32, align 16> -> !G
  %c16 = arith.constant 16 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c16, %c16, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %fx = layout.tile %gx[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %fy = layout.tile %gy[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %fu = layout.tile %gu[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %fv = layout.tile %gv[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %vx = layout.vectorize %fx {vector = array<i64: 1, 4>} : !T -> !TV
    %vy = layout.vectorize %fy {vector = array<i64: 1, 4>} : !T -> !TV
    %vu = layout.vectorize %fu {vector = array<i64: 1, 4>} : !T -> !TV
    %vv = layout.vectorize %fv {vector = array<i64: 1, 4>} : !T -> !TV
    %dx = layout.distribute %vx, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %dy = layout.distribute %vy, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %du = layout.distribute %vu, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %dv = layout.distribute %vv, %tid {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %s1 = layout.alloc : !S
    %s2 = layout.alloc : !S
    %w1 = layout.vectorize %s1 {vector = array<i64: 1, 4>} : !S -> !SV
    %w2 = layout.vectorize %s2 {vector = array<i64: 1, 4>} : !S -> !SV
    %e1 = layout.distribute %w1, %tid {threads = #layout.cute<(8,4):(4,1)>} : !SV -> !SF
    %e2 = layout.distribute %w2, %tid {threads = #layout.cute<(8,4):(4,1)>} : !SV -> !SF
    %t1 = layout.copy_async %dx, %e1 : !TF, !SF -> !layout.async_token
    %t2 = layout.copy_async %dy, %e2 : !TF, !SF -> !layout.async_token
    %c = arith.constant true
    scf.if %c {
      // expected-error @+1 {{async_wait waits on tokens of layout.copy_async ops of its own block}}
      layout.async_wait %t1
    }
  }
  func.return
}
