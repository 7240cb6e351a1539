// layout.copy_chunk_async: where both chunks' first elements are known 16-byte aligned
// (layout.multiple_of, a 16-byte aligned pointer, the shared buffer) one
// cp.async.cg of 16 bytes; where they are not (a step of 15), the 16 bytes one at a
// time; a commit after each; a chunk of one 8-byte element (f64, any index: an element is
// aligned to itself) one cp.async of 8 bytes (odd44). The reference executor runs both before and after
// (tests/unit/test_copy_chunk_async.py: results, a read before the wait, NVRTC; on a
// GPU tests/gpu/test_copy_chunk_async_gpu.py). Each thread writes one byte of %b
// (partial on purpose).
// RUN: tilec %s -p default --check-equivalence --arg n=1024 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s
// EQ: @aligned: equivalent after 'default'
// EQ: @unaligned: equivalent after 'default'
// EQ: @one_element: equivalent after 'default'

// CHECK-LABEL: aligned_kernel(
// CHECK:         const long long [[I:t]] = tid * 16;
// CHECK-NEXT:    tilec_cp_async<16>(smem + [[I]], a + [[I]]);
// CHECK-NEXT:    tilec_cp_async_commit();
// CHECK-NEXT:    tilec_cp_async_wait<0>();
// CHECK-NEXT:    __syncthreads();
// CHECK-LABEL: unaligned_kernel(
// CHECK-NOT:     tilec_cp_async<
// CHECK-COUNT-16: smem[{{t(_[0-9]+)?}}] = x
// CHECK-NEXT:    tilec_cp_async_commit();
// CHECK-NEXT:    tilec_cp_async_wait<0>();
// CHECK-LABEL: one_element_kernel(
// CHECK:         tilec_cp_async<8>(smem + [[J:t(_[0-9]+)?]], a + [[J]]);
// CHECK-NEXT:    tilec_cp_async_commit();
!P = !layout.ptr<i8, align 16>
!G = !layout.tensor<i8, #layout.cute<(?):(1)>, gmem>
!S = !layout.tensor<i8, #layout.cute<(1024):(1)>, smem>
func.func @aligned(%a: !P, %b: !P {tilec.partial}, %n: index) {
  %A = layout.view %a(%n) : !P -> !G
  %B = layout.view %b(%n) : !P -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %c16 = arith.constant 16 : index
    %i = arith.muli %tid, %c16 : index
    %ia = layout.multiple_of %i {divisor = 16 : i64} : index
    layout.copy_chunk_async %A[%ia], %s[%ia] {width = 16 : i64} : !G, !S
    layout.async_wait {pending = 0}
    layout.barrier
    %c1023 = arith.constant 1023 : index
    %r = arith.subi %c1023, %i : index
    %v = layout.read %s[%r] : !S -> i8
    layout.write %v, %B[%i] : i8, !G
  }
  func.return
}
func.func @unaligned(%a: !P, %b: !P {tilec.partial}, %n: index) {
  %A = layout.view %a(%n) : !P -> !G
  %B = layout.view %b(%n) : !P -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %c15 = arith.constant 15 : index
    %i = arith.muli %tid, %c15 : index
    layout.copy_chunk_async %A[%i], %s[%i] {width = 16 : i64} : !G, !S
    layout.async_wait {pending = 0}
    layout.barrier
    %v = layout.read %s[%i] : !S -> i8
    layout.write %v, %B[%i] : i8, !G
  }
  func.return
}
!PD = !layout.ptr<f64, align 8>
!GD = !layout.tensor<f64, #layout.cute<(?):(1)>, gmem>
!SD = !layout.tensor<f64, #layout.cute<(1024):(1)>, smem>
func.func @one_element(%a: !PD, %b: !PD {tilec.partial}, %n: index) {
  %A = layout.view %a(%n) : !PD -> !GD
  %B = layout.view %b(%n) : !PD -> !GD
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !SD
    %c15 = arith.constant 15 : index
    %i = arith.muli %tid, %c15 : index
    layout.copy_chunk_async %A[%i], %s[%i] {width = 1 : i64} : !GD, !SD
    layout.async_wait {pending = 0}
    layout.barrier
    %v = layout.read %s[%i] : !SD -> f64
    layout.write %v, %B[%i] : f64, !GD
  }
  func.return
}
