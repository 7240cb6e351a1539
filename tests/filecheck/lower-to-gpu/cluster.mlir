// Thread-block clusters (`tilec.cluster_dims = 2`, dialects/layout_tma.py): each block
// of a 2-block cluster loads half of its cluster's 64 x 32 tile with a TMA load
// multicast to both (`{multicast = 3}`), waits, stores the whole tile, then arrives on
// a barrier of 2 arrivals in both blocks (`on %cta`) and waits for it; cluster barriers
// after the barriers' initialisation and before exit. Lowered: `cuda.cluster_rank`,
// `cuda.cluster_sync`, `cuda.tma_load {multicast = 3}`, `cuda.mbarrier_arrive_expect_tx
// ... on %cta`; the CUDA prints `__cluster_dims__(2, 1, 1)` and the cluster PTX. The
// same program runs equal before and after (each half lands in both blocks).
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p lower-to-gpu | filecheck %s --check-prefix=GPU
// RUN: tilec %s -p lower-to-gpu,canonicalize -t cuda | filecheck %s
// EQ: @pair: equivalent after

// GPU-LABEL: "gpu.func"()
// GPU:       %{{.*}} = cuda.cluster_rank
// GPU:       cuda.cluster_sync
// GPU:       cuda.tma_load {{.*}} {multicast = 3 : i64} : memref<1024xf16, 3 : i64>, memref<1xi64, 3 : i64>
// GPU:       cuda.mbarrier_arrive_expect_tx %{{.*}}, 0 on %{{.*}} : memref<1xi64, 3 : i64>
// GPU:       cuda.cluster_sync
// GPU:       tilec.cluster_dims = 2 : i64

// CHECK:      __device__ __forceinline__ void tilec_mbarrier_arrive_cluster(unsigned long long* bar, unsigned cta) {
// CHECK-NEXT:   unsigned remote;
// CHECK-NEXT:   asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
// CHECK-NEXT:   asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];"
// CHECK-LABEL: // kernel pair_kernels::pair_kernel
// CHECK:        extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128)
// CHECK:        const int [[R:crank[_0-9]*]] = (int)tilec_cluster_rank();
// CHECK:        tilec_cluster_sync();
// CHECK:        .multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;"
// CHECK-NEXT:   :: {{.*}} "h"((unsigned short)3) : "memory");
// CHECK:        tilec_mbarrier_arrive_cluster(reinterpret_cast<unsigned long long*>({{.*}}), (unsigned)(0));
// CHECK:        tilec_mbarrier_arrive_cluster(reinterpret_cast<unsigned long long*>({{.*}}), (unsigned)(1));
// CHECK:        tilec_cluster_sync();
// CHECK-NEXT: }

!G = !layout.tensor<f16, #layout.cute<(100,24):(24,1)>, gmem>
!D = !layout.tensor<f16, #layout.cute<(256,24):(24,1)>, gmem>
!T = !layout.tensor<f16, #layout.cute<(32,32):(24,1)>, gmem, masked>
!S = !layout.tensor<f16, #layout.nvmma_shared<swizzle = 64, elementBitWidth = 16, transposed = false, shape = [32, 32]>, smem>
func.func @pair(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>) {
  %a = layout.view %src : !layout.ptr<f16, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f16, align 16> -> !D
  %c4 = arith.constant 4 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%c4, %c1, %c1) threads(128) attributes {tilec.cluster_dims = 2 : i64} {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %rank = layout.cluster_rank
    %cluster = arith.divui %bx, %c2 : index
    %row0 = arith.muli %cluster, %c2 : index
    %row1 = arith.addi %row0, %c1 : index
    %s0 = layout.alloc : !S
    %s1 = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    %done = layout.mbarrier_init {count = 2 : i64}
    layout.cluster_sync
    layout.mbarrier_arrive %bar {tx = 4096 : i64}
    %first = arith.cmpi eq, %rank, %c0 : index
    scf.if %first {
      %t0 = layout.tile %a[%row0, %c0] {tile = array<i64: 32, 32>} : !G -> !T
      layout.tma_load %t0, %s0, %bar {multicast = 3 : i64} : !T, !S
    }
    %second = arith.cmpi eq, %rank, %c1 : index
    scf.if %second {
      %t1 = layout.tile %a[%row1, %c0] {tile = array<i64: 32, 32>} : !G -> !T
      layout.tma_load %t1, %s1, %bar {multicast = 3 : i64} : !T, !S
    }
    layout.mbarrier_wait %bar, %c0
    %out0 = arith.muli %bx, %c2 : index
    %out1 = arith.addi %out0, %c1 : index
    %d0 = layout.tile %b[%out0, %c0] {tile = array<i64: 32, 32>} : !D -> !T
    %d1 = layout.tile %b[%out1, %c0] {tile = array<i64: 32, 32>} : !D -> !T
    layout.tma_store %s0, %d0 : !S, !T
    layout.tma_store %s1, %d1 : !S, !T
    layout.tma_store_wait {pending = 0 : i64}
    layout.mbarrier_arrive %done on %c0
    layout.mbarrier_arrive %done on %c1
    layout.mbarrier_wait %done, %c0
    layout.cluster_sync
  }
  func.return
}
