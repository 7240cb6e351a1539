// RUN: tilec %s -p 'copy-strategy{gather=always},tile{threads=32 gather_bytes=32}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy{gather=always},tile{threads=32 gather_bytes=32}' --check-equivalence --seed 3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{gather=always},tile{threads=32 runs=1 gather_bytes=32}' --check-equivalence --seed 5 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{gather=always},tile{threads=32}' | filecheck %s --check-prefix=OFF
// RUN: not tilec %s -p 'copy-strategy{gather=always},tile{gather_bytes=8}' 2>&1 | filecheck %s --check-prefix=ERR
// The tile pass's `gather_bytes=32` (pc49): a gather run is one whole 32-byte destination
// sector (4 f64, 8 f32, ...: two vector stores a run), not one widest vector (2 f64 off).
// Executor-exact on the strided set's 47 made small (uint8 -> f64, rows of 17 from a
// transposed source, the count not a multiple of a block), a converting permute into rows
// of 19 f32 and a rank-3 bf16 permute, at 2 and 1 runs a thread.

// EQ: @rows17: equivalent after
// EQ: @rows19: equivalent after
// EQ: @bf16: equivalent after
// ERR: error: 'layout.copy': tile: gather_bytes=8 must be 0, 16 or 32

// CHECK-LABEL: func.func @rows17
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(32)
// CHECK:         #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
// CHECK:         layout.ptr_store
// OFF-LABEL: func.func @rows17
// OFF:           #layout.blocked<{sizePerThread = [1, 2], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @rows17(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<f64, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(301,17):(1,301)>, gmem>
  %b = layout.view %dst : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(301,17):(17,1)>, gmem>
  layout.copy %a, %b {convert = "uint8->float64"} : !layout.tensor<i8, #layout.cute<(301,17):(1,301)>, gmem>, !layout.tensor<f64, #layout.cute<(301,17):(17,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @rows19
// CHECK:         #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @rows19(%src: !layout.ptr<i16, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<i16, align 16> -> !layout.tensor<i16, #layout.cute<(7,19,23):(437,1,19)>, gmem>
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(7,19,23):(437,23,1)>, gmem>
  layout.copy %a, %b {convert = "int16->float32"} : !layout.tensor<i16, #layout.cute<(7,19,23):(437,1,19)>, gmem>, !layout.tensor<f32, #layout.cute<(7,19,23):(437,23,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @bf16
// CHECK:         #layout.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @bf16(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>) {
  %a = layout.view %src : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(3,37,41):(1517,1,37)>, gmem>
  %b = layout.view %dst : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(3,37,41):(1517,41,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<bf16, #layout.cute<(3,37,41):(1517,1,37)>, gmem>, !layout.tensor<bf16, #layout.cute<(3,37,41):(1517,41,1)>, gmem>
  func.return
}
