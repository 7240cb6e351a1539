// layout.cp_async_load: a global tile copied into a 128-byte-swizzled shared tile by
// 16-byte cp.async of the block's 128 threads (64 x 64 f16: 512 runs, 4 a thread,
// each trip 16 rows on, the swizzle's pattern the same: one address computed a side,
// the later trips constants more), zero-filled outside the tensor (src_bytes 0: the
// masked edge tiles of a 200 x 136 tensor, and in @box an unmasked tile wholly past
// the end of a 128 x 128 tensor, as a TMA box), each thread then arriving on the
// mbarrier (.noinc: the barrier counts the 128 threads). The same program runs equal
// before and after.
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p lower-to-gpu,canonicalize -t cuda | filecheck %s
// EQ: @edges: equivalent after
// EQ: @box: equivalent after

// CHECK:      __device__ __forceinline__ void tilec_cp_async_mbarrier_arrive(unsigned long long* bar) {
// CHECK-NEXT:   asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];"
// CHECK:      __device__ __forceinline__ void tilec_cp_async_zfill(void* smem, const void* gmem, unsigned src_bytes) {
// CHECK:        asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n"

// CHECK-LABEL: // kernel edges_kernels::edges_kernel
// CHECK:        tilec_mbarrier_init(reinterpret_cast<unsigned long long*>(mbar), 128u);
// CHECK:        // cp.async load: 64x64 in 16-byte runs by 128 threads, arriving on the mbarrier (noinc)
// CHECK:        tilec_cp_async_zfill(smem + [[D:t_[0-9]+]], src + [[S:t_[0-9]+]], (unsigned)({{.*}}));
// CHECK:        const int [[S1:t_[0-9]+]] = [[S]] + 2176;
// CHECK-NEXT:   const int [[D1:t_[0-9]+]] = [[D]] + 1024;
// CHECK:        tilec_cp_async_zfill(smem + [[D1]], src + [[S1]], (unsigned)({{.*}}));
// CHECK:        const int [[S3:t_[0-9]+]] = [[S]] + 6528;
// CHECK-NEXT:   const int [[D3:t_[0-9]+]] = [[D]] + 3072;
// CHECK:        tilec_cp_async_zfill(smem + [[D3]], src + [[S3]], (unsigned)({{.*}}));
// CHECK-NEXT:   tilec_cp_async_mbarrier_arrive(reinterpret_cast<unsigned long long*>(mbar));
// CHECK:        tilec_mbarrier_wait(reinterpret_cast<unsigned long long*>(mbar), (unsigned)(0) & 1u);
// CHECK-LABEL: // kernel box_kernels::box_kernel
// CHECK:        tilec_cp_async_zfill(
// CHECK:        tilec_cp_async_mbarrier_arrive(

!G = !layout.tensor<f16, #layout.cute<(200,136):(136,1)>, gmem>
!T = !layout.tensor<f16, #layout.cute<(64,64):(136,1)>, gmem, masked>
!S = !layout.tensor<f16, #layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false, shape = [64, 64]>, smem>
func.func @edges(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>) {
  %a = layout.view %src : !layout.ptr<f16, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f16, align 16> -> !G
  %c4 = arith.constant 4 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%c4, %c3, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 64, 64>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 64, 64>} : !G -> !T
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 128 : i64}
    layout.cp_async_load %ta, %s, %bar : !T, !S
    layout.mbarrier_wait %bar, %c0
    layout.tma_store %s, %tb : !S, !T
    layout.tma_store_wait {pending = 0 : i64}
  }
  func.return
}

!G2 = !layout.tensor<f16, #layout.cute<(128,128):(128,1)>, gmem>
!T2 = !layout.tensor<f16, #layout.cute<(64,64):(128,1)>, gmem>
// block (x, y) copies tile (x + 1, y) of the source: x = 1's lies wholly past the end
// (zeros) and is stored to tile (1, y) of the destination
func.func @box(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>) {
  %a = layout.view %src : !layout.ptr<f16, align 16> -> !G2
  %b = layout.view %dst : !layout.ptr<f16, align 16> -> !G2
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%c2, %c2, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %bx1 = arith.addi %bx, %c1 : index
    %ta = layout.tile %a[%bx1, %by] {tile = array<i64: 64, 64>} : !G2 -> !T2
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 64, 64>} : !G2 -> !T2
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 129 : i64}
    layout.mbarrier_arrive %bar
    layout.cp_async_load %ta, %s, %bar : !T2, !S
    layout.mbarrier_wait %bar, %c0
    layout.tma_store %s, %tb : !S, !T2
    layout.tma_store_wait {pending = 0 : i64}
  }
  func.return
}
