// The GPU-level TMA and mbarrier ops of the `cuda` dialect (dialects/cuda_tma.py):
// round trip and verifier errors.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: tilec %S/Inputs/cuda_tma_ops.mlir | tilec | filecheck %s

// CHECK-LABEL: func.func @host
// CHECK:      %m = cuda.tensor_map %buf(%d0, %d1, %s1) {box = array<i64: 32, 64>, swizzle = 128 : i64} : memref<8192xf32>
// CHECK-NEXT: %m2 = cuda.tensor_map %buf(%d0, %d1, %s1) {box = array<i64: 64, 64>, swizzle = 0 : i64, l2_promotion = 256 : i64} : memref<8192xf32>
// CHECK-NEXT: %m3 = cuda.tensor_map %buf(%d0, %d1, %s1) {box = array<i64: 64, 128>, swizzle = 128 : i64, clip} : memref<8192xf32>
// CHECK-LABEL: "gpu.func"()
// CHECK:      cuda.mbarrier_init %bar, 1 : memref<1xi64, 3 : i64>
// CHECK-NEXT: cuda.mbarrier_expect_tx %bar, %x : memref<1xi64, 3 : i64>
// CHECK-NEXT: cuda.mbarrier_arrive_expect_tx %bar, 16384 : memref<1xi64, 3 : i64>
// CHECK-NEXT: cuda.tma_load %s, %m, %bar[%x, %y] : memref<4096xf32, 3 : i64>, memref<1xi64, 3 : i64>
// CHECK-NEXT: cuda.tma_load %s, %m, %bar[%x, %y] {offset = 2048 : i64} : memref<4096xf32, 3 : i64>, memref<1xi64, 3 : i64>
// CHECK-NEXT: cuda.mbarrier_wait %bar, %x : memref<1xi64, 3 : i64>
// CHECK:      cuda.cp_async %s[%x], %g[%y], 16 src_bytes %n : memref<4096xf32, 3 : i64>, memref<4096xf32>
// CHECK-NEXT: cuda.cp_async %s[%x], %g[%y], 16 {prefetch = 256 : i64} : memref<4096xf32, 3 : i64>, memref<4096xf32>
// CHECK-NEXT: cuda.cp_async %s[%x], %g[%y], 16 {l1} : memref<4096xf32, 3 : i64>, memref<4096xf32>
// CHECK-NEXT: cuda.cp_async_mbarrier_arrive %bar : memref<1xi64, 3 : i64>
// CHECK-NEXT: cuda.fence_proxy_async
// CHECK-NEXT: cuda.tma_store %m[%x, %y], %s : memref<4096xf32, 3 : i64>
// CHECK-NEXT: cuda.bulk_commit_group
// CHECK-NEXT: cuda.bulk_wait_group_read 0
// CHECK-NEXT: cuda.mbarrier_inval %bar : memref<1xi64, 3 : i64>
// CHECK-NEXT: %r = cuda.cluster_rank
// CHECK-NEXT: cuda.cluster_sync
// CHECK-NEXT: cuda.mbarrier_arrive_expect_tx %bar, 0 on %r : memref<1xi64, 3 : i64>
// CHECK-NEXT: cuda.tma_load %s, %m, %bar[%x, %y] {multicast = 3 : i64} : memref<4096xf32, 3 : i64>, memref<1xi64, 3 : i64>
// CHECK-NEXT: %peer = cuda.map_shared_rank %s on %r : memref<4096xf32, 3 : i64> -> memref<4096xf32, 3 : i64>

func.func @box_rank(%buf: memref<8192xf32>, %d0: index) {
  // expected-error @+1 {{'cuda.tensor_map' of rank 2 takes 2 dims and 1 strides, got 2 sizes}}
  %m = cuda.tensor_map %buf(%d0, %d0) {box = array<i64: 32, 64>, swizzle = 0 : i64} : memref<8192xf32>
  func.return
}

// -----

func.func @box_extent(%buf: memref<8192xf32>, %d0: index) {
  // expected-error @+1 {{'cuda.tensor_map' box extents must be in [1, 256], got [512]}}
  %m = cuda.tensor_map %buf(%d0) {box = array<i64: 512>, swizzle = 0 : i64} : memref<8192xf32>
  func.return
}

// -----

func.func @swizzle(%buf: memref<8192xf32>, %d0: index) {
  // expected-error @+1 {{'cuda.tensor_map' swizzle must be 0, 32, 64 or 128, got 16}}
  %m = cuda.tensor_map %buf(%d0) {box = array<i64: 64>, swizzle = 16 : i64} : memref<8192xf32>
  func.return
}

// -----

func.func @l2_promotion(%buf: memref<8192xf32>, %d0: index) {
  // expected-error @+1 {{'cuda.tensor_map' l2_promotion must be 0, 64, 128 or 256, got 512}}
  %m = cuda.tensor_map %buf(%d0) {box = array<i64: 64>, swizzle = 0 : i64, l2_promotion = 512 : i64} : memref<8192xf32>
  func.return
}

// -----

func.func @barrier_in_global(%bar: memref<1xi64>) {
  // expected-error @+1 {{'cuda.mbarrier_init' barrier must be a shared-memory memref (memory space 3), got memref<1xi64>}}
  cuda.mbarrier_init %bar, 1 : memref<1xi64>
  func.return
}

// -----

func.func @barrier_word(%bar: memref<2xi64, 3 : i64>) {
  // expected-error @+1 {{'cuda.mbarrier_arrive_expect_tx' barrier must be a memref<1xi64, 3>, got memref<2xi64, 3 : i64>}}
  cuda.mbarrier_arrive_expect_tx %bar, 16 : memref<2xi64, 3 : i64>
  func.return
}

// -----

func.func @expect_tx_word(%bar: memref<2xi64, 3 : i64>, %n: index) {
  // expected-error @+1 {{'cuda.mbarrier_expect_tx' barrier must be a memref<1xi64, 3>, got memref<2xi64, 3 : i64>}}
  cuda.mbarrier_expect_tx %bar, %n : memref<2xi64, 3 : i64>
  func.return
}

// -----

func.func @count(%bar: memref<1xi64, 3 : i64>) {
  // expected-error @+1 {{'cuda.mbarrier_init' count must be in [1, 2^20), got 0}}
  cuda.mbarrier_init %bar, 0 : memref<1xi64, 3 : i64>
  func.return
}

// -----

func.func @load_to_global(%dst: memref<4096xf32>, %m: !cuda.tensor_map, %bar: memref<1xi64, 3 : i64>, %x: index) {
  // expected-error @+1 {{'cuda.tma_load' destination must be a shared-memory memref (memory space 3), got memref<4096xf32>}}
  cuda.tma_load %dst, %m, %bar[%x] : memref<4096xf32>, memref<1xi64, 3 : i64>
  func.return
}

// -----

func.func @store_rank(%s: memref<4096xf32, 3 : i64>, %m: !cuda.tensor_map, %x: index) {
  // expected-error @+1 {{'cuda.tma_store' takes 1 to 5 coordinates, got 6}}
  cuda.tma_store %m[%x, %x, %x, %x, %x, %x], %s : memref<4096xf32, 3 : i64>
  func.return
}

// -----

func.func @pending() {
  // expected-error @+1 {{'cuda.bulk_wait_group_read' pending must be in [0, 7], got 9}}
  cuda.bulk_wait_group_read 9
  func.return
}

// -----

func.func @cp_async_arrive_in_global(%bar: memref<1xi64>) {
  // expected-error @+1 {{'cuda.cp_async_mbarrier_arrive' barrier must be a shared-memory memref (memory space 3), got memref<1xi64>}}
  cuda.cp_async_mbarrier_arrive %bar : memref<1xi64>
  func.return
}

// -----

func.func @zero_fill_of_8_bytes(%s: memref<64xf32, 3 : i64>, %g: memref<64xf32>, %i: index) {
  // expected-error @+1 {{'cuda.cp_async' with src_bytes (zero fill) copies 16 bytes, got 8}}
  cuda.cp_async %s[%i], %g[%i], 8 src_bytes %i : memref<64xf32, 3 : i64>, memref<64xf32>
  func.return
}

// -----

func.func @prefetch_of_8_bytes(%s: memref<64xf32, 3 : i64>, %g: memref<64xf32>, %i: index) {
  // expected-error @+1 {{'cuda.cp_async' with a prefetch size copies 16 bytes, without src_bytes}}
  cuda.cp_async %s[%i], %g[%i], 8 {prefetch = 128 : i64} : memref<64xf32, 3 : i64>, memref<64xf32>
  func.return
}

// -----

func.func @l1_of_8_bytes(%s: memref<64xf32, 3 : i64>, %g: memref<64xf32>, %i: index) {
  // expected-error @+1 {{'cuda.cp_async' with l1 copies 16 bytes, without src_bytes}}
  cuda.cp_async %s[%i], %g[%i], 8 {l1} : memref<64xf32, 3 : i64>, memref<64xf32>
  func.return
}

// -----

func.func @prefetch_size(%s: memref<64xf32, 3 : i64>, %g: memref<64xf32>, %i: index) {
  // expected-error @+1 {{'cuda.cp_async' prefetch is 64, 128 or 256 (bytes), got 32}}
  cuda.cp_async %s[%i], %g[%i], 16 {prefetch = 32 : i64} : memref<64xf32, 3 : i64>, memref<64xf32>
  func.return
}

// -----

func.func @arrive_on_a_peer_expecting_bytes(%bar: memref<1xi64, 3 : i64>, %r: index) {
  // expected-error @+1 {{'cuda.mbarrier_arrive_expect_tx' on a peer's barrier (on %cta) expects no bytes, got tx 16}}
  cuda.mbarrier_arrive_expect_tx %bar, 16 on %r : memref<1xi64, 3 : i64>
  func.return
}

// -----

func.func @multicast_to_no_block(%s: memref<4096xf32, 3 : i64>, %m: !cuda.tensor_map, %bar: memref<1xi64, 3 : i64>, %x: index) {
  // expected-error @+1 {{'cuda.tma_load' multicast mask must be in [1, 2^16), got 0}}
  cuda.tma_load %s, %m, %bar[%x, %x] {multicast = 0 : i64} : memref<4096xf32, 3 : i64>, memref<1xi64, 3 : i64>
  func.return
}

// -----

func.func @map_to_another_type(%s: memref<64xf32, 3 : i64>, %r: index) {
  // expected-error @+1 {{cuda.map_shared_rank's result memref<32xf32, 3 : i64> must be of its buffer's type memref<64xf32, 3 : i64>}}
  %p = cuda.map_shared_rank %s on %r : memref<64xf32, 3 : i64> -> memref<32xf32, 3 : i64>
  func.return
}
