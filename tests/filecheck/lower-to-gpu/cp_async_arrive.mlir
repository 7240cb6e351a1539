// layout.cp_async_arrive: a ring of two shared boxes, parts of 512 bytes by one 16-byte
// cp.async a thread, each box waited on its own mbarrier (count 32: the block's
// threads, each arriving .noinc once its copies land); part 1 is in flight while part
// 0 is read. No cp.async.wait_group. The same program runs equal before and after.
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p lower-to-gpu,canonicalize -t cuda | filecheck %s
// EQ: @ring: equivalent after

// CHECK:      __device__ __forceinline__ void tilec_cp_async_mbarrier_arrive(unsigned long long* bar) {
// CHECK-NEXT:   asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];"
// CHECK-LABEL: // kernel ring_kernels::ring_kernel
// CHECK:        tilec_mbarrier_init(reinterpret_cast<unsigned long long*>({{.*}}), 32u);
// CHECK:        tilec_cp_async<16>(
// CHECK-NEXT:   tilec_cp_async_commit();
// CHECK:        tilec_cp_async_mbarrier_arrive(
// CHECK:        tilec_cp_async<16>(
// CHECK-NEXT:   tilec_cp_async_commit();
// CHECK:        tilec_cp_async_mbarrier_arrive(
// CHECK:        tilec_mbarrier_wait(
// CHECK:        __syncthreads();
// CHECK:        tilec_mbarrier_wait(
// CHECK-NOT:    tilec_cp_async_wait

!G = !layout.tensor<i8, #layout.cute<(1024):(1)>, gmem>
!S = !layout.tensor<i8, #layout.cute<(1024):(1)>, smem>
func.func @ring(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %0 = layout.view %src : !layout.ptr<i8, align 16> -> !G
  %1 = layout.view %dst : !layout.ptr<i8, align 16> -> !G
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c511 = arith.constant 511 : index
  %c512 = arith.constant 512 : index
  %c1023 = arith.constant 1023 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %box = layout.alloc : !S
    %bars = layout.mbarrier_array {count = 32 : i64, stages = 2 : i64}
    %t16 = arith.muli %tid, %c16 : index
    %at = layout.multiple_of %t16 {divisor = 16 : i64} : index
    layout.copy_chunk_async %0[%at], %box[%at] {width = 16 : i64} : !G, !S
    %b0 = layout.mbarrier_at %bars[%c0] : !layout.mbarriers<2>
    layout.cp_async_arrive %b0
    %at1 = arith.addi %at, %c512 : index
    layout.copy_chunk_async %0[%at1], %box[%at1] {width = 16 : i64} : !G, !S
    %b1 = layout.mbarrier_at %bars[%c1] : !layout.mbarriers<2>
    layout.cp_async_arrive %b1
    layout.mbarrier_wait %b0, %c0
    %i0 = arith.subi %c511, %tid : index
    %x0 = layout.read %box[%i0] : !S -> i8
    layout.write %x0, %1[%tid] : i8, !G
    layout.barrier
    layout.mbarrier_wait %b1, %c0
    %i1 = arith.subi %c1023, %tid : index
    %x1 = layout.read %box[%i1] : !S -> i8
    %o1 = arith.addi %tid, %c512 : index
    layout.write %x1, %1[%o1] : i8, !G
    layout.barrier
  }
  func.return
}
