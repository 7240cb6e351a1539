// RUN: tilec %s -p 'tile,distribute{pack=4}' | filecheck %s
// RUN: tilec %s -p 'tile,distribute{pack=0}' | filecheck %s --check-prefix=OFF
// RUN: tilec %s -p 'tile,distribute{pack=4}' --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @transpose_f16: equivalent after
// EQ: @transpose_i8: equivalent after
// EQ: @transpose_f32: equivalent after

// A transpose of 2-byte elements: the load layout also holds 2 consecutive elements along
// the destination's contiguous mode (one 4-byte bank word of the shared round trip), and
// its lanes along the source's contiguous mode cover one 128-byte line (8 lanes of 16
// bytes), the other 4 along the destination's mode.
// CHECK-LABEL: func.func @transpose_f16
// CHECK:         layout.load %{{.*}} -> tensor<128x64xf16, #layout.blocked<{sizePerThread = [8, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 8], order = [0, 1]}>>
// CHECK:         layout.convert_layout {{.*}} -> tensor<128x64xf16, #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>>
// OFF-LABEL:   func.func @transpose_f16
// OFF:           layout.load %{{.*}} -> tensor<128x64xf16, #layout.blocked<{sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]}>>
func.func @transpose_f16(%p: !layout.ptr<f16, align 16>, %q: !layout.ptr<f16, align 16>) {
  %a = layout.view %p : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(256,128):(1,256)>, gmem>
  %b = layout.view %q : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(256,128):(128,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f16, #layout.cute<(256,128):(1,256)>, gmem>, !layout.tensor<f16, #layout.cute<(256,128):(128,1)>, gmem>
  func.return
}

// 1-byte elements: 4 along the destination's mode.
// CHECK-LABEL: func.func @transpose_i8
// CHECK:         layout.load %{{.*}} -> tensor<128x128xi8, #layout.blocked<{sizePerThread = [16, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 8], order = [0, 1]}>>
func.func @transpose_i8(%p: !layout.ptr<i8, align 16>, %q: !layout.ptr<i8, align 16>) {
  %a = layout.view %p : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(256,256):(1,256)>, gmem>
  %b = layout.view %q : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(256,256):(256,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(256,256):(1,256)>, gmem>, !layout.tensor<i8, #layout.cute<(256,256):(256,1)>, gmem>
  func.return
}

// 4-byte elements already fill a bank word: nothing changes.
// CHECK-LABEL: func.func @transpose_f32
// CHECK:         layout.load %{{.*}} -> tensor<64x64xf32, #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]}>>
func.func @transpose_f32(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(256,128):(1,256)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(256,128):(128,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(256,128):(1,256)>, gmem>, !layout.tensor<f32, #layout.cute<(256,128):(128,1)>, gmem>
  func.return
}
