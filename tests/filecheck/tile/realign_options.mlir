// RUN: tilec %s -p 'copy-strategy,tile{threads=128}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile{threads=128}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p 'copy-strategy,tile{threads=96}' 2>&1 | filecheck %s --check-prefix=ERR
// The tile pass's threads option shapes a realign copy's launch (rows = threads of the
// blocked layout).

// EQ: @rows: equivalent after 'copy-strategy,tile{threads=128}'
// ERR: error: 'layout.copy': tile: a realign copy takes threads that are a power of two, at least 32; got threads=96

// CHECK-LABEL: func.func @rows
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(128)
// CHECK:         layout.arange {start = 0 : i64, end = 128 : i64} : tensor<128xi32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
// CHECK:         layout.funnel_shift
// CHECK:         layout.ptr_store
func.func @rows(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 3 : index, dmis = 6 : index, src = 240 : index, dst = 224 : index}} {
  %sp = layout.addptr %src, %smis : !layout.ptr<f16, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<f16, align 16>, index
  %a = layout.view %sp : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(7,30):(33,1)>, gmem>
  %b = layout.view %dp : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(7,30):(31,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f16, #layout.cute<(7,30):(33,1)>, gmem>, !layout.tensor<f16, #layout.cute<(7,30):(31,1)>, gmem>
  func.return
}
