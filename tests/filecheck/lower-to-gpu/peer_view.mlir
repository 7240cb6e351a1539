// Distributed shared memory (`layout.peer_view`, dialects/layout_tma.py): each block of
// a 2-block cluster stores its 16 x 32 tile into a shared buffer, the cluster meets,
// and each block adds its peer's buffer (`peer_view %s on %other`) to its own and
// stores the sum; the cluster meets again before exit (the peer reads this block's
// buffer until then). Lowered: `cuda.map_shared_rank` (the buffer's memref mapped to
// the peer's), 16-byte loads through it (vectorize sees through the peer view to the
// alloc); the CUDA maps the pointer with `mapa.u64` and loads through the generic
// address. The same program runs equal before and after.
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default | filecheck %s --check-prefix=GPU
// RUN: tilec %s -p default -t cuda | filecheck %s
// EQ: @swap_halves: equivalent after 'default'

// GPU-LABEL: "gpu.func"()
// GPU:       cuda.cluster_sync
// GPU:       %[[P:.*]] = cuda.map_shared_rank %{{.*}} on %{{.*}} : memref<512xf32, 3 : i64> -> memref<512xf32, 3 : i64>
// GPU:       vector.load %[[P]][%{{.*}}] {{.*}}: memref<512xf32, 3 : i64>, vector<4xf32>
// GPU:       cuda.cluster_sync

// CHECK:       // cuda.map_shared_rank: a shared buffer's generic address in the cluster's block of rank cta
// CHECK-NEXT:  template <typename T>
// CHECK-NEXT:  __device__ __forceinline__ T* tilec_map_shared_rank(T* p, unsigned cta) {
// CHECK:         asm("mapa.u64 %0, %1, %2;" : "=l"(d) : "l"(p), "r"(cta));
// CHECK-LABEL: // kernel swap_halves_kernels::swap_halves_kernel
// CHECK:       extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(64)
// CHECK:       tilec_cluster_sync();
// CHECK:       float* const [[P:peer[_0-9]*]] = tilec_map_shared_rank([[S:smem[_0-9]*]], (unsigned)({{.*}}));
// CHECK:       = *reinterpret_cast<const f32x4*>([[P]] + {{.*}});
// CHECK:       tilec_cluster_sync();
// CHECK-NEXT: }

#row = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, smem>
func.func @swap_halves(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%c4, %c1, %c1) threads(64) attributes {tilec.cluster_dims = 2 : i64} {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %rank = layout.cluster_rank
    %s = layout.alloc : !S
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 16, 32>} : !G -> !T
    %x = layout.load %ta : !T -> tensor<16x32xf32, #row>
    layout.store %x, %s : tensor<16x32xf32, #row>, !S
    layout.cluster_sync
    %other = arith.subi %c1, %rank : index
    %theirs = layout.peer_view %s on %other : !S
    %y = layout.load %theirs : !S -> tensor<16x32xf32, #row>
    %mine = layout.load %s : !S -> tensor<16x32xf32, #row>
    %sum = arith.addf %y, %mine : tensor<16x32xf32, #row>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 16, 32>} : !G -> !T
    layout.store %sum, %tb : tensor<16x32xf32, #row>, !T
    layout.cluster_sync
  }
  func.return
}
