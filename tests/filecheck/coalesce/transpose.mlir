// RUN: tilec %s -p 'coalesce,vectorize' | filecheck %s
// RUN: tilec %s -p 'coalesce,vectorize' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @transpose: equivalent after
// EQ: @transpose_masked: equivalent after
// A tile read along rows and written along columns with the layout left open: the load
// (the larger access, first) decides the layout, the store gets a layout coalesced for
// its own view and a convert_layout to it, as Triton's Coalesce gives each access its own.

// CHECK-LABEL: func.func @transpose
// CHECK:         layout.load %{{.*}} {vector = 4 : i64{{(, uniform_mask)?}}} : {{.*}} -> tensor<64x64xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK:         layout.convert_layout {{.*}} -> tensor<64x64xf32, #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>>
// CHECK:         layout.store %{{.*}} {vector = 4 : i64{{(, uniform_mask)?}}} : tensor<64x64xf32, #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>>
#a = #layout.auto<{rank = 2, warps = 4}>
func.func @transpose(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(128,128):(1,128)>, gmem>
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c2, %c2, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 64, 64>} : !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(64,64):(128,1)>, gmem>
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 64, 64>} : !layout.tensor<f32, #layout.cute<(128,128):(1,128)>, gmem> -> !layout.tensor<f32, #layout.cute<(64,64):(1,128)>, gmem>
    %x = layout.load %ta : !layout.tensor<f32, #layout.cute<(64,64):(128,1)>, gmem> -> tensor<64x64xf32, #a>
    %y = arith.addf %x, %x : tensor<64x64xf32, #a>
    layout.store %y, %tb : tensor<64x64xf32, #a>, !layout.tensor<f32, #layout.cute<(64,64):(1,128)>, gmem>
  }
  func.return
}

// The same with ragged edges (masked tiles: each lane masked by the view); a store with a
// computed mask keeps the chosen layout (no i1 conversion).
// CHECK-LABEL: func.func @transpose_masked
// CHECK:         layout.convert_layout {{.*}} -> tensor<64x64xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK:         layout.store %{{.*}} {vector = 4 : i64{{(, uniform_mask)?}}} : tensor<64x64xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK:         layout.store %{{.*}} mask %{{.*}} : tensor<64x64xi1, #layout.blocked<{sizePerThread = [1, 4]
func.func @transpose_masked(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %dst2: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(100,100):(100,1)>, gmem>
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(100,100):(1,100)>, gmem>
  %b2 = layout.view %dst2 : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(100,100):(1,100)>, gmem>
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c2, %c2, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 64, 64>} : !layout.tensor<f32, #layout.cute<(100,100):(100,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(64,64):(100,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 64, 64>} : !layout.tensor<f32, #layout.cute<(100,100):(1,100)>, gmem> -> !layout.tensor<f32, #layout.cute<(64,64):(1,100)>, gmem, masked>
    %tb2 = layout.tile %b2[%bx, %by] {tile = array<i64: 64, 64>} : !layout.tensor<f32, #layout.cute<(100,100):(1,100)>, gmem> -> !layout.tensor<f32, #layout.cute<(64,64):(1,100)>, gmem, masked>
    %x = layout.load %ta : !layout.tensor<f32, #layout.cute<(64,64):(100,1)>, gmem, masked> -> tensor<64x64xf32, #a>
    layout.store %x, %tb : tensor<64x64xf32, #a>, !layout.tensor<f32, #layout.cute<(64,64):(1,100)>, gmem, masked>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #a>
    %pos = layout.cmpf ogt, %x, %z : tensor<64x64xf32, #a>
    layout.store %x, %tb2 mask %pos : tensor<64x64xi1, #a> : tensor<64x64xf32, #a>, !layout.tensor<f32, #layout.cute<(64,64):(1,100)>, gmem, masked>
  }
  func.return
}
