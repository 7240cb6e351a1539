// Thread-block clusters in the layout dialect (dialects/layout_tma.py): layout.cluster_rank,
// layout.cluster_sync, layout.mbarrier_arrive ... on %cta, layout.tma_load {multicast},
// layout.peer_view: round trip and verifier errors.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: tilec %S/../lower-to-gpu/cluster.mlir | tilec | filecheck %s
// RUN: tilec %S/../lower-to-gpu/peer_view.mlir | tilec | filecheck %s --check-prefix=PEER

// PEER-LABEL: func.func @swap_halves
// PEER:       %theirs = layout.peer_view %s on %other : !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, smem>
// PEER-NEXT:  %y = layout.load %theirs : !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, smem> -> tensor<16x32xf32, #layout.blocked<{{.*}}>>

// CHECK-LABEL: func.func @pair
// CHECK:      layout.launch grid(%c4, %c1, %c1) threads(128) attributes {tilec.cluster_dims = 2 : i64}
// CHECK:      %rank = layout.cluster_rank
// CHECK:      layout.cluster_sync
// CHECK:      layout.tma_load %t0, %s0, %bar {multicast = 3 : i64} : !layout.tensor<f16, #layout.cute<(32,32):(24,1)>, gmem, masked>, !layout.tensor<f16, {{.*}}, smem>
// CHECK:      layout.mbarrier_arrive %done on %c0
// CHECK-NEXT: layout.mbarrier_arrive %done on %c1
// CHECK:      layout.cluster_sync

func.func @sync_without_clusters() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.cluster_sync: a cluster barrier needs a launch of thread-block clusters (tilec.cluster_dims)}}
    layout.cluster_sync
  }
  func.return
}

// -----

func.func @arrive_past_the_cluster() {
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c2, %c1, %c1) threads(32) attributes {tilec.cluster_dims = 2 : i64} {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %bar = layout.mbarrier_init {count = 2 : i64}
    // expected-error @+1 {{mbarrier_arrive on block 2 of a cluster of 2 blocks}}
    layout.mbarrier_arrive %bar on %c2
  }
  func.return
}

// -----

func.func @arrive_on_a_peer_expecting_bytes() {
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c2, %c1, %c1) threads(32) attributes {tilec.cluster_dims = 2 : i64} {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %bar = layout.mbarrier_init {count = 2 : i64}
    // expected-error @+1 {{mbarrier_arrive on a peer's barrier (on %cta) expects no bytes (no tx)}}
    layout.mbarrier_arrive %bar on %c1 {tx = 128 : i64}
  }
  func.return
}

// -----

func.func @arrive_on_a_peer_without_clusters() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %bar = layout.mbarrier_init {count = 2 : i64}
    // expected-error @+1 {{layout.mbarrier_arrive: an arrival on a peer's mbarrier (on %cta) needs a launch of thread-block clusters}}
    layout.mbarrier_arrive %bar on %c1
  }
  func.return
}

// -----

!G = !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, gmem>
!S = !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, smem>
func.func @mask_past_the_cluster(%p: !layout.ptr<f16, align 16>) {
  %g = layout.view %p : !layout.ptr<f16, align 16> -> !G
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c2, %c1, %c1) threads(32) attributes {tilec.cluster_dims = 2 : i64} {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    // expected-error @+1 {{tma_load's multicast mask 4 must name blocks of its cluster of 2 (1 to 3)}}
    layout.tma_load %g, %s, %bar {multicast = 4 : i64} : !G, !S
  }
  func.return
}

// -----

!G = !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, gmem>
!S = !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, smem>
func.func @multicast_without_clusters(%p: !layout.ptr<f16, align 16>) {
  %g = layout.view %p : !layout.ptr<f16, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    // expected-error @+1 {{layout.tma_load: a multicast TMA load needs a launch of thread-block clusters (tilec.cluster_dims)}}
    layout.tma_load %g, %s, %bar {multicast = 1 : i64} : !G, !S
  }
  func.return
}

// -----

func.func @rank_outside() {
  // expected-error @+1 {{layout.cluster_rank must be inside a layout.launch}}
  %r = layout.cluster_rank
  func.return
}

// -----

!S = !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, smem>
func.func @peer_without_clusters() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    // expected-error @+1 {{layout.peer_view: a peer's shared memory needs a launch of thread-block clusters (tilec.cluster_dims)}}
    %p = layout.peer_view %s on %c1 : !S
  }
  func.return
}

// -----

!S = !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, smem>
func.func @peer_past_the_cluster() {
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c2, %c1, %c1) threads(32) attributes {tilec.cluster_dims = 2 : i64} {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    // expected-error @+1 {{layout.peer_view of block 2 of a cluster of 2 blocks}}
    %p = layout.peer_view %s on %c2 : !S
  }
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, gmem>
func.func @peer_of_global_memory(%q: !layout.ptr<f32, align 16>) {
  %g = layout.view %q : !layout.ptr<f32, align 16> -> !G
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c2, %c1, %c1) threads(32) attributes {tilec.cluster_dims = 2 : i64} {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.peer_view of a shared view (smem), got !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, gmem>}}
    %p = layout.peer_view %g on %c1 : !G
  }
  func.return
}

// -----

!G = !layout.tensor<f16, #layout.cute<(32,32):(32,1)>, gmem>
!S = !layout.tensor<f16, #layout.cute<(32,32):(32,1)>, smem>
func.func @tma_into_a_peer(%q: !layout.ptr<f16, align 16>) {
  %g = layout.view %q : !layout.ptr<f16, align 16> -> !G
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c2, %c1, %c1) threads(32) attributes {tilec.cluster_dims = 2 : i64} {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    // expected-error @+1 {{layout.peer_view: 'layout.tma_load' cannot take a view of a peer's shared memory}}
    %p = layout.peer_view %s on %c1 : !S
    layout.tma_load %g, %p, %bar : !G, !S
  }
  func.return
}
