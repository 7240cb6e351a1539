// RUN: tilec %s -p 'copy-strategy,tile{threads=128 runs=4}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile{threads=128 runs=4}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p 'copy-strategy,tile{threads=96}' 2>&1 | filecheck %s --check-prefix=ERR
// The tile pass's options shape a gather copy's launch: threads per block and runs per
// thread (rows = threads * runs of the blocked layout).

// EQ: @c3: equivalent after 'copy-strategy,tile{threads=128 runs=4}'
// ERR: error: 'layout.copy': tile: a gather copy takes threads and runs that are powers of two, threads at least 32; got threads=96 runs=2

// CHECK-LABEL: func.func @c3
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(128)
// CHECK:         layout.arange {start = 0 : i64, end = 512 : i64} : tensor<512xi32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [1, 2], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
// CHECK:         layout.ptr_store
func.func @c3(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(2,10,3):(30,1,10)>, gmem>
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(2,10,3):(30,3,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(2,10,3):(30,1,10)>, gmem>, !layout.tensor<f32, #layout.cute<(2,10,3):(30,3,1)>, gmem>
  func.return
}
