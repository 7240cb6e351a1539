// Round trip of the view ops of the layout dialect (launch, view, alloc, tile,
// vectorize, distribute, divide, partition, slice), in custom and generic form.
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s --print-op-generic | tilec | filecheck %s

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>

// CHECK-LABEL: func.func @launch(
// CHECK: layout.launch grid(%gx, %gy, %gz) threads(128) {
// CHECK-NEXT: ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
// CHECK-NEXT: }
func.func @launch(%gx: index, %gy: index, %gz: index) {
  layout.launch grid(%gx, %gy, %gz) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
  }
  func.return
}

// CHECK-LABEL: func.func @view_ptr(
// CHECK: %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
func.func @view_ptr(%p: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !G
  func.return
}

// The index operands bind the `?` values in order: shape, then stride.
// CHECK-LABEL: func.func @view_dynamic(
// CHECK: %a = layout.view %p(%m, %n, %ld) : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
func.func @view_dynamic(%p: !layout.ptr<f32>, %m: index, %n: index, %ld: index) {
  %a = layout.view %p(%m, %n, %ld) : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @alloc_and_review(
// CHECK: layout.launch grid(%c, %c, %c) threads(32) {
// CHECK: %s = layout.alloc : !layout.tensor<f32, #layout.cute<(32,33):(33,1)>, smem>
// CHECK: %sw = layout.alloc : !layout.tensor<f16, #layout.composed<swizzle<3,4,3> o 0 o (8,64):(64,1)>, smem>
// CHECK: %r = layout.alloc : !layout.tensor<f32, #layout.cute<(4,4):(4,1)>, rmem>
// CHECK: %s2 = layout.view %s : !layout.tensor<f32, #layout.cute<(32,33):(33,1)>, smem> -> !layout.tensor<f32, #layout.cute<(32,32):(33,1)>, smem>
// CHECK: %r2 = layout.view %r : !layout.tensor<f32, #layout.cute<(4,4):(4,1)>, rmem> -> !layout.tensor<f32, #layout.cute<16:1>, rmem>
func.func @alloc_and_review(%c: index) {
  layout.launch grid(%c, %c, %c) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !layout.tensor<f32, #layout.cute<(32,33):(33,1)>, smem>
    %sw = layout.alloc : !layout.tensor<f16, #layout.composed<swizzle<3,4,3> o 0 o (8,64):(64,1)>, smem>
    %r = layout.alloc : !layout.tensor<f32, #layout.cute<(4,4):(4,1)>, rmem>
    %s2 = layout.view %s : !layout.tensor<f32, #layout.cute<(32,33):(33,1)>, smem> -> !layout.tensor<f32, #layout.cute<(32,32):(33,1)>, smem>
    %r2 = layout.view %r : !layout.tensor<f32, #layout.cute<(4,4):(4,1)>, rmem> -> !layout.tensor<f32, #layout.cute<16:1>, rmem>
  }
  func.return
}

// CHECK-LABEL: func.func @tile(
// CHECK: %t = layout.tile %a[%i, %j] {tile = array<i64: 64, 64>} : !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
func.func @tile(%a: !G, %i: index, %j: index) {
  %t = layout.tile %a[%i, %j] {tile = array<i64: 64, 64>} : !G -> !T
  func.return
}

// A tile that does not divide (or a dynamic extent) makes a masked view.
// CHECK-LABEL: func.func @tile_masked(
// CHECK: %t = layout.tile %a[%i, %j] {tile = array<i64: 64, 64>} : !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(64,64):(?,1)>, gmem, masked>
// CHECK: %u = layout.tile %t[%i, %j] {tile = array<i64: 16, 16>} : !layout.tensor<f32, #layout.cute<(64,64):(?,1)>, gmem, masked> -> !layout.tensor<f32, #layout.cute<(16,16):(?,1)>, gmem, masked>
func.func @tile_masked(%a: !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>, %i: index, %j: index) {
  %t = layout.tile %a[%i, %j] {tile = array<i64: 64, 64>} : !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(64,64):(?,1)>, gmem, masked>
  %u = layout.tile %t[%i, %j] {tile = array<i64: 16, 16>} : !layout.tensor<f32, #layout.cute<(64,64):(?,1)>, gmem, masked> -> !layout.tensor<f32, #layout.cute<(16,16):(?,1)>, gmem, masked>
  func.return
}

// CHECK-LABEL: func.func @vectorize(
// CHECK: %v = layout.vectorize %t {vector = array<i64: 1, 4>} : !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(64,16):(256,4)>, gmem, vec #layout.cute<(1,4):(256,1)>>
func.func @vectorize(%t: !T) {
  %v = layout.vectorize %t {vector = array<i64: 1, 4>} : !T -> !layout.tensor<f32, #layout.cute<(64,16):(256,4)>, gmem, vec #layout.cute<(1,4):(256,1)>>
  func.return
}

// CHECK-LABEL: func.func @distribute(
// CHECK: %f = layout.distribute %t, %tid {threads = #layout.cute<(1,32):(1,1)>} : !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(64,2):(256,32)>, gmem>
func.func @distribute(%t: !T, %tid: index) {
  %f = layout.distribute %t, %tid {threads = #layout.cute<(1,32):(1,1)>} : !T -> !layout.tensor<f32, #layout.cute<(64,2):(256,32)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @distribute_masked(
// CHECK: %f = layout.distribute %t, %tid {threads = #layout.cute<(1,4):(1,1)>} : !layout.tensor<f32, #layout.cute<(64,10):(256,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(64,3):(256,4)>, gmem, masked>
func.func @distribute_masked(%t: !layout.tensor<f32, #layout.cute<(64,10):(256,1)>, gmem>, %tid: index) {
  %f = layout.distribute %t, %tid {threads = #layout.cute<(1,4):(1,1)>} : !layout.tensor<f32, #layout.cute<(64,10):(256,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(64,3):(256,4)>, gmem, masked>
  func.return
}

// CHECK-LABEL: func.func @divide(
// CHECK: %z = layout.divide %t {kind = "zipped", tiler = array<i64: 4, 8>} : !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem> -> !layout.tensor<f32, #layout.cute<((4,8),(16,8)):((256,1),(1024,8))>, gmem>
// CHECK: %l = layout.divide %t {kind = "logical", tiler = array<i64: 4, 8>} : !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem> -> !layout.tensor<f32, #layout.cute<((4,16),(8,8)):((256,1024),(1,8))>, gmem>
// CHECK: %c = layout.divide %t {kind = "tiled", tiler = array<i64: 4, 8>} : !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem> -> !layout.tensor<f32, #layout.cute<((4,8),16,8):((256,1),1024,8)>, gmem>
// CHECK: %d = layout.divide %t {kind = "tiled", tiler = #layout.cute<32:1>} : !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(32,2,64):(256,8192,1)>, gmem>
// CHECK: %f = layout.divide %t {kind = "flat", tiler = array<i64: 4, 8>} : !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(4,8,16,8):(256,1,1024,8)>, gmem>
func.func @divide(%t: !T) {
  %z = layout.divide %t {kind = "zipped", tiler = array<i64: 4, 8>} : !T -> !layout.tensor<f32, #layout.cute<((4,8),(16,8)):((256,1),(1024,8))>, gmem>
  %l = layout.divide %t {kind = "logical", tiler = array<i64: 4, 8>} : !T -> !layout.tensor<f32, #layout.cute<((4,16),(8,8)):((256,1024),(1,8))>, gmem>
  %c = layout.divide %t {kind = "tiled", tiler = array<i64: 4, 8>} : !T -> !layout.tensor<f32, #layout.cute<((4,8),16,8):((256,1),1024,8)>, gmem>
  %d = layout.divide %t {kind = "tiled", tiler = #layout.cute<32:1>} : !T -> !layout.tensor<f32, #layout.cute<(32,2,64):(256,8192,1)>, gmem>
  %f = layout.divide %t {kind = "flat", tiler = array<i64: 4, 8>} : !T -> !layout.tensor<f32, #layout.cute<(4,8,16,8):(256,1,1024,8)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @partition(
// CHECK: %p = layout.partition %t, %tid {tv = #layout.cute<((4,8),4):((32,1),8)>} : !layout.tensor<f32, #layout.cute<(32,16):(256,1)>, gmem> -> !layout.tensor<f32, #layout.cute<4:2048>, gmem>
func.func @partition(%t: !layout.tensor<f32, #layout.cute<(32,16):(256,1)>, gmem>, %tid: index) {
  %p = layout.partition %t, %tid {tv = #layout.cute<((4,8),4):((32,1),8)>} : !layout.tensor<f32, #layout.cute<(32,16):(256,1)>, gmem> -> !layout.tensor<f32, #layout.cute<4:2048>, gmem>
  func.return
}

// CHECK-LABEL: func.func @slice(
// CHECK: %row = layout.slice %t[%i, _] : !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem> -> !layout.tensor<f32, #layout.cute<64:1>, gmem>
// CHECK: %col = layout.slice %t[_, 3] : !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem> -> !layout.tensor<f32, #layout.cute<64:256>, gmem>
func.func @slice(%t: !T, %i: index) {
  %row = layout.slice %t[%i, _] : !T -> !layout.tensor<f32, #layout.cute<64:1>, gmem>
  %col = layout.slice %t[_, 3] : !T -> !layout.tensor<f32, #layout.cute<64:256>, gmem>
  func.return
}

// `at_most` promises what each dynamic value is at most (0: nothing).
// CHECK-LABEL: func.func @view_at_most(
// CHECK: %a = layout.view %p(%m, %n, %s) {divisible = array<i64: 1, 1, 4>, at_most = array<i64: 0, 8, 0>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
func.func @view_at_most(%p: !layout.ptr<f32, align 16>, %m: index, %n: index, %s: index) {
  %a = layout.view %p(%m, %n, %s) {divisible = array<i64: 1, 1, 4>, at_most = array<i64: 0, 8, 0>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  func.return
}

// `residue` with `divisible` promises each dynamic value's residue modulo its entry.
// CHECK-LABEL: func.func @view_residue(
// CHECK: %a = layout.view %p(%m, %n, %s) {divisible = array<i64: 1, 1, 32>, residue = array<i64: 0, 0, 18>} : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(?,?):(?,1)>, gmem>
func.func @view_residue(%p: !layout.ptr<i8, align 16>, %m: index, %n: index, %s: index) {
  %a = layout.view %p(%m, %n, %s) {divisible = array<i64: 1, 1, 32>, residue = array<i64: 0, 0, 18>} : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(?,?):(?,1)>, gmem>
  func.return
}

// `divisible` promises what each dynamic value is a multiple of.
// CHECK-LABEL: func.func @view_divisible(
// CHECK: %a = layout.view %p(%m, %n, %s) {divisible = array<i64: 1, 1, 4>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
func.func @view_divisible(%p: !layout.ptr<f32, align 16>, %m: index, %n: index, %s: index) {
  %a = layout.view %p(%m, %n, %s) {divisible = array<i64: 1, 1, 4>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  func.return
}
