// The cuda target on TMA copies and mbarriers: the tensor maps are
// `const __grid_constant__` parameters of a 64-byte aligned 128-byte struct, the copies
// inline PTX `cp.async.bulk.tensor` (load completing on the mbarrier, store in a bulk
// group), the wait a try_wait.parity loop; the shared tile of a 128-byte swizzle is
// aligned to 1024 bytes.
// RUN: tilec %s -p lower-to-gpu,canonicalize -t cuda | filecheck %s

// CHECK:      __device__ __forceinline__ void tilec_fence_proxy_async() {
// CHECK-NEXT:   asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// CHECK:        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
// CHECK:        asm volatile("cp.async.bulk.wait_group.read %0;" :: "n"(N) : "memory");
// CHECK:        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;"
// CHECK:        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
// CHECK:        " mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
// CHECK:        asm volatile("mbarrier.inval.shared::cta.b64 [%0];"
// CHECK:      struct alignas(64) tilec_tensor_map { unsigned long long opaque[16]; };

// CHECK-LABEL: // kernel tma_swizzled_kernels::tma_swizzled_kernel: 32-bit indices, block (128, 1, 1)
// CHECK:      tma_swizzled_kernel(const __half* __restrict__ src, const __half* __restrict__ dst, const __grid_constant__ tilec_tensor_map src_map, const __grid_constant__ tilec_tensor_map dst_map) {
// CHECK:        __shared__ alignas(1024) __half smem[4096];
// CHECK:        __shared__ alignas(16) long long mbar[1];
// CHECK:        tilec_mbarrier_init(reinterpret_cast<unsigned long long*>(mbar), 1u);
// CHECK:        __syncthreads();
// CHECK:        tilec_mbarrier_arrive_expect_tx(reinterpret_cast<unsigned long long*>(mbar), 8192u);
// CHECK:        // TMA load (cp.async.bulk.tensor): box 64x64 (dims [1, 0] of the view), swizzle 128B, 8192 bytes
// CHECK:        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
// CHECK-NEXT:     :: "r"(tilec_smem_addr(smem)), "l"(reinterpret_cast<unsigned long long>(&src_map)), "r"(tilec_smem_addr(mbar)), "r"((int)({{.*}})), "r"((int)({{.*}})) : "memory");
// CHECK:        tilec_mbarrier_wait(reinterpret_cast<unsigned long long*>(mbar), (unsigned)(0) & 1u);
// CHECK:        // TMA store (cp.async.bulk.tensor): box 64x64 (dims [1, 0] of the view), swizzle 128B, 8192 bytes
// CHECK-NEXT:   tilec_fence_proxy_async();
// CHECK-NEXT:   __syncthreads();
// CHECK:          asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];"
// CHECK:          tilec_bulk_commit_group();
// CHECK:          tilec_bulk_wait_group_read<0>();

!G = !layout.tensor<f16, #layout.cute<(200,136):(136,1)>, gmem>
!T = !layout.tensor<f16, #layout.cute<(64,64):(136,1)>, gmem, masked>
!S = !layout.tensor<f16, #layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false, shape = [64, 64]>, smem>
func.func @tma_swizzled(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>) {
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
    %bar = layout.mbarrier_init {count = 1 : i64}
    layout.mbarrier_arrive %bar {tx = 8192 : i64}
    layout.tma_load %ta, %s, %bar : !T, !S
    layout.mbarrier_wait %bar, %c0
    layout.tma_store %s, %tb : !S, !T
    layout.tma_store_wait {pending = 0 : i64}
    layout.mbarrier_inval %bar
  }
  func.return
}
