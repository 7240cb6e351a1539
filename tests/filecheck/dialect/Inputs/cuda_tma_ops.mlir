builtin.module attributes {gpu.container_module} {
  func.func @host(%buf: memref<8192xf32>, %d0: index, %d1: index, %s1: index) {
    %m = cuda.tensor_map %buf(%d0, %d1, %s1) {box = array<i64: 32, 64>, swizzle = 128 : i64} : memref<8192xf32>
    %m2 = cuda.tensor_map %buf(%d0, %d1, %s1) {box = array<i64: 64, 64>, swizzle = 0 : i64, l2_promotion = 256 : i64} : memref<8192xf32>
    %m3 = cuda.tensor_map %buf(%d0, %d1, %s1) {box = array<i64: 64, 128>, swizzle = 128 : i64, clip} : memref<8192xf32>
    func.return
  }
  "gpu.module"() <{sym_name = "mod"}> ({
    "gpu.func"() <{function_type = (!cuda.tensor_map, index, index) -> (), kernel}> ({
    ^bb0(%m: !cuda.tensor_map, %x: index, %y: index):
      %s = memref.alloca() {alignment = 1024 : i64} : memref<4096xf32, 3 : i64>
      %bar = memref.alloca() {alignment = 8 : i64} : memref<1xi64, 3 : i64>
      cuda.mbarrier_init %bar, 1 : memref<1xi64, 3 : i64>
      cuda.mbarrier_expect_tx %bar, %x : memref<1xi64, 3 : i64>
      cuda.mbarrier_arrive_expect_tx %bar, 16384 : memref<1xi64, 3 : i64>
      cuda.tma_load %s, %m, %bar[%x, %y] : memref<4096xf32, 3 : i64>, memref<1xi64, 3 : i64>
      cuda.tma_load %s, %m, %bar[%x, %y] {offset = 2048 : i64} : memref<4096xf32, 3 : i64>, memref<1xi64, 3 : i64>
      cuda.mbarrier_wait %bar, %x : memref<1xi64, 3 : i64>
      %g = memref.alloca() : memref<4096xf32>
      %n = arith.constant 16 : index
      cuda.cp_async %s[%x], %g[%y], 16 src_bytes %n : memref<4096xf32, 3 : i64>, memref<4096xf32>
      cuda.cp_async %s[%x], %g[%y], 16 {prefetch = 256 : i64} : memref<4096xf32, 3 : i64>, memref<4096xf32>
      cuda.cp_async %s[%x], %g[%y], 16 {l1} : memref<4096xf32, 3 : i64>, memref<4096xf32>
      cuda.cp_async_mbarrier_arrive %bar : memref<1xi64, 3 : i64>
      cuda.fence_proxy_async
      cuda.tma_store %m[%x, %y], %s : memref<4096xf32, 3 : i64>
      cuda.bulk_commit_group
      cuda.bulk_wait_group_read 0
      cuda.mbarrier_inval %bar : memref<1xi64, 3 : i64>
      %r = cuda.cluster_rank
      cuda.cluster_sync
      cuda.mbarrier_arrive_expect_tx %bar, 0 on %r : memref<1xi64, 3 : i64>
      cuda.tma_load %s, %m, %bar[%x, %y] {multicast = 3 : i64} : memref<4096xf32, 3 : i64>, memref<1xi64, 3 : i64>
      %peer = cuda.map_shared_rank %s on %r : memref<4096xf32, 3 : i64> -> memref<4096xf32, 3 : i64>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
