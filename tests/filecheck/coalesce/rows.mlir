// RUN: tilec %s -p 'coalesce,vectorize' | filecheck %s
// RUN: tilec %s -p 'coalesce,vectorize' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// EQ: @f32_n1000: equivalent after
// EQ: @f32_n1001: equivalent after
// EQ: @f16_n1000: equivalent after
// EQ: @bf16_n3072: equivalent after
// EQ: @i8_n1000: equivalent after
// EQ: @i8_n768: equivalent after
// EQ: @short_rows: equivalent after
// EQ: @explicit_wins: equivalent after
// `coalesce` picks the blocked layout of `#layout.auto` tensors from the views they are
// loaded from and stored to: rows of a run-time number M, N fixed, under a masked
// power-of-two tile (other = -inf), as a user writes a row softmax. The reductions are
// `max` (floats) or integer `add`, whose results do not depend on the layout, so the
// programs are equivalent bit for bit before and after.

// A row of 1000 f32 is 4000 bytes: rows stay 16-byte aligned, 4 f32 per thread.
// CHECK-LABEL: func.func @f32_n1000
// CHECK:         layout.load %{{.*}} {vector = 4 : i64{{(, uniform_mask)?}}} : {{.*}} -> tensor<1x1024xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
// CHECK:         layout.reduce {{.*}} -> tensor<1xf32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>}>>
// CHECK:         layout.store %{{.*}} {vector = 4 : i64{{(, uniform_mask)?}}} : tensor<1x1024xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NOT:     #layout.auto
// CHECK:         func.return
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>
func.func @f32_n1000(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,1000):(1000,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,1000):(1000,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f32, #layout.cute<(?,1000):(1000,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f32, #layout.cute<(?,1000):(1000,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
    %ninf = arith.constant 0xFF800000 : f32
    %x = layout.load %ta, %ninf : f32 : !layout.tensor<f32, #layout.cute<(1,1024):(1000,1)>, gmem, masked> -> tensor<1x1024xf32, #a>
    %mx = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
    %mb1 = layout.expand_dims %mx {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %mb = layout.broadcast %mb1 : tensor<1x1xf32, #a> -> tensor<1x1024xf32, #a>
    %d = arith.subf %x, %mb : tensor<1x1024xf32, #a>
    %e = math.exp %d : tensor<1x1024xf32, #a>
    layout.store %e, %tb : tensor<1x1024xf32, #a>, !layout.tensor<f32, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
  }
  func.return
}

// A row of 1001 f32: every other row starts off a 16-byte boundary, so one element per
// thread, the 32 lanes on 32 consecutive elements (coalesced scalar accesses).
// CHECK-LABEL: func.func @f32_n1001
// CHECK:         layout.load %{{.*}} {tilec.vector_note = {{.*}}} : {{.*}} -> tensor<1x1024xf32, #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
// CHECK:         layout.store %{{.*}} {tilec.vector_note = {{.*}}}
func.func @f32_n1001(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,1001):(1001,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,1001):(1001,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f32, #layout.cute<(?,1001):(1001,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,1024):(1001,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f32, #layout.cute<(?,1001):(1001,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,1024):(1001,1)>, gmem, masked>
    %ninf = arith.constant 0xFF800000 : f32
    %x = layout.load %ta, %ninf : f32 : !layout.tensor<f32, #layout.cute<(1,1024):(1001,1)>, gmem, masked> -> tensor<1x1024xf32, #a>
    %mx = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
    %mb1 = layout.expand_dims %mx {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %mb = layout.broadcast %mb1 : tensor<1x1xf32, #a> -> tensor<1x1024xf32, #a>
    %d = arith.subf %x, %mb : tensor<1x1024xf32, #a>
    layout.store %d, %tb : tensor<1x1024xf32, #a>, !layout.tensor<f32, #layout.cute<(1,1024):(1001,1)>, gmem, masked>
  }
  func.return
}

// f16 rows of 1000 (2000 bytes): 8 halves (16 bytes) per thread; the f32 math between
// the extf and the truncf has the same layout.
// CHECK-LABEL: func.func @f16_n1000
// CHECK:         layout.load %{{.*}} {vector = 8 : i64{{(, uniform_mask)?}}} : {{.*}} -> tensor<1x1024xf16, #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
// CHECK:         arith.extf {{.*}} to tensor<1x1024xf32, #layout.blocked<{sizePerThread = [1, 8]
// CHECK:         layout.store %{{.*}} {vector = 8 : i64{{(, uniform_mask)?}}}
func.func @f16_n1000(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,1000):(1000,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,1000):(1000,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f16, #layout.cute<(?,1000):(1000,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f16, #layout.cute<(?,1000):(1000,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
    %ninf = arith.constant 0xFC00 : f16
    %xh = layout.load %ta, %ninf : f16 : !layout.tensor<f16, #layout.cute<(1,1024):(1000,1)>, gmem, masked> -> tensor<1x1024xf16, #a>
    %x = arith.extf %xh : tensor<1x1024xf16, #a> to tensor<1x1024xf32, #a>
    %mx = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
    %mb1 = layout.expand_dims %mx {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %mb = layout.broadcast %mb1 : tensor<1x1xf32, #a> -> tensor<1x1024xf32, #a>
    %d = arith.subf %x, %mb : tensor<1x1024xf32, #a>
    %e = math.exp %d : tensor<1x1024xf32, #a>
    %y = arith.truncf %e : tensor<1x1024xf32, #a> to tensor<1x1024xf16, #a>
    layout.store %y, %tb : tensor<1x1024xf16, #a>, !layout.tensor<f16, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
  }
  func.return
}

// bf16 rows of 3072 under a tile of 4096, 8 warps.
// CHECK-LABEL: func.func @bf16_n3072
// CHECK:         layout.load %{{.*}} {vector = 8 : i64{{(, uniform_mask)?}}} : {{.*}} -> tensor<1x4096xbf16, #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 8], order = [1, 0]}>>
#a8 = #layout.auto<{rank = 2, warps = 8}>
#r8 = #layout.slice<{dim = 1, parent = #a8}>
func.func @bf16_n3072(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(?,3072):(3072,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(?,3072):(3072,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 4096>} : !layout.tensor<bf16, #layout.cute<(?,3072):(3072,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(1,4096):(3072,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 4096>} : !layout.tensor<bf16, #layout.cute<(?,3072):(3072,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(1,4096):(3072,1)>, gmem, masked>
    %ninf = arith.constant 0xFF80 : bf16
    %xh = layout.load %ta, %ninf : bf16 : !layout.tensor<bf16, #layout.cute<(1,4096):(3072,1)>, gmem, masked> -> tensor<1x4096xbf16, #a8>
    %x = arith.extf %xh : tensor<1x4096xbf16, #a8> to tensor<1x4096xf32, #a8>
    %mx = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x4096xf32, #a8> -> tensor<1xf32, #r8>
    %mb1 = layout.expand_dims %mx {axis = 1 : i64} : tensor<1xf32, #r8> -> tensor<1x1xf32, #a8>
    %mb = layout.broadcast %mb1 : tensor<1x1xf32, #a8> -> tensor<1x4096xf32, #a8>
    %d = arith.subf %x, %mb : tensor<1x4096xf32, #a8>
    %y = arith.truncf %d : tensor<1x4096xf32, #a8> to tensor<1x4096xbf16, #a8>
    layout.store %y, %tb : tensor<1x4096xbf16, #a8>, !layout.tensor<bf16, #layout.cute<(1,4096):(3072,1)>, gmem, masked>
  }
  func.return
}

// i8 rows of 1000 bytes: a row starts at a multiple of 8 bytes, not 16: 8 per thread.
// CHECK-LABEL: func.func @i8_n1000
// CHECK:         layout.load %{{.*}} {vector = 8 : i64{{(, uniform_mask)?}}} : {{.*}} -> tensor<1x1024xi8, #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
func.func @i8_n1000(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(?,1000):(1000,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(?,1000):(1000,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<i8, #layout.cute<(?,1000):(1000,1)>, gmem> -> !layout.tensor<i8, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<i8, #layout.cute<(?,1000):(1000,1)>, gmem> -> !layout.tensor<i8, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
    %x = layout.load %ta : !layout.tensor<i8, #layout.cute<(1,1024):(1000,1)>, gmem, masked> -> tensor<1x1024xi8, #a>
    %s = layout.reduce %x {axis = 1 : i64, kind = "add"} : tensor<1x1024xi8, #a> -> tensor<1xi8, #r>
    %sb1 = layout.expand_dims %s {axis = 1 : i64} : tensor<1xi8, #r> -> tensor<1x1xi8, #a>
    %sb = layout.broadcast %sb1 : tensor<1x1xi8, #a> -> tensor<1x1024xi8, #a>
    %y = arith.subi %x, %sb : tensor<1x1024xi8, #a>
    layout.store %y, %tb : tensor<1x1024xi8, #a>, !layout.tensor<i8, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
  }
  func.return
}

// i8 rows of 768 (a multiple of 16 bytes) under a 1024 tile over 2 warps: 16 per thread.
// CHECK-LABEL: func.func @i8_n768
// CHECK:         layout.load %{{.*}} {vector = 16 : i64{{(, uniform_mask)?}}} : {{.*}} -> tensor<1x1024xi8, #layout.blocked<{sizePerThread = [1, 16], threadsPerWarp = [1, 32], warpsPerCTA = [1, 2], order = [1, 0]}>>
#a2 = #layout.auto<{rank = 2, warps = 2}>
#r2 = #layout.slice<{dim = 1, parent = #a2}>
func.func @i8_n768(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(?,768):(768,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(?,768):(768,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<i8, #layout.cute<(?,768):(768,1)>, gmem> -> !layout.tensor<i8, #layout.cute<(1,1024):(768,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<i8, #layout.cute<(?,768):(768,1)>, gmem> -> !layout.tensor<i8, #layout.cute<(1,1024):(768,1)>, gmem, masked>
    %x = layout.load %ta : !layout.tensor<i8, #layout.cute<(1,1024):(768,1)>, gmem, masked> -> tensor<1x1024xi8, #a2>
    %s = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x1024xi8, #a2> -> tensor<1xi8, #r2>
    %sb1 = layout.expand_dims %s {axis = 1 : i64} : tensor<1xi8, #r2> -> tensor<1x1xi8, #a2>
    %sb = layout.broadcast %sb1 : tensor<1x1xi8, #a2> -> tensor<1x1024xi8, #a2>
    %y = arith.subi %x, %sb : tensor<1x1024xi8, #a2>
    layout.store %y, %tb : tensor<1x1024xi8, #a2>, !layout.tensor<i8, #layout.cute<(1,1024):(768,1)>, gmem, masked>
  }
  func.return
}

// Short rows, several per block: 8 rows of 128 f32 over 4 warps. The lanes take one row
// (32 x 4 f32), the warps go along the rows, so each row's reduction stays in a warp.
// CHECK-LABEL: func.func @short_rows
// CHECK:         layout.load %{{.*}} {vector = 4 : i64{{(, uniform_mask)?}}} : {{.*}} -> tensor<8x128xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>
func.func @short_rows(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,128):(128,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,128):(128,1)>, gmem>
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %g = arith.ceildivui %m, %c8 : index
  layout.launch grid(%g, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 8, 128>} : !layout.tensor<f32, #layout.cute<(?,128):(128,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(8,128):(128,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 8, 128>} : !layout.tensor<f32, #layout.cute<(?,128):(128,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(8,128):(128,1)>, gmem, masked>
    %x = layout.load %ta : !layout.tensor<f32, #layout.cute<(8,128):(128,1)>, gmem, masked> -> tensor<8x128xf32, #a>
    %mx = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<8x128xf32, #a> -> tensor<8xf32, #r>
    %mb1 = layout.expand_dims %mx {axis = 1 : i64} : tensor<8xf32, #r> -> tensor<8x1xf32, #a>
    %mb = layout.broadcast %mb1 : tensor<8x1xf32, #a> -> tensor<8x128xf32, #a>
    %d = arith.subf %x, %mb : tensor<8x128xf32, #a>
    layout.store %d, %tb : tensor<8x128xf32, #a>, !layout.tensor<f32, #layout.cute<(8,128):(128,1)>, gmem, masked>
  }
  func.return
}

// The author's layout wins: a `#layout.blocked` load is left as written (one element per
// thread); the `#layout.auto` tensors of the same launch are chosen from their own store.
// CHECK-LABEL: func.func @explicit_wins
// CHECK:         layout.load %{{.*}} -> tensor<1x1024xf32, #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
// CHECK:         layout.convert_layout {{.*}} -> tensor<1x1024xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
#mine = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
func.func @explicit_wins(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,1024):(1024,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,1024):(1024,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f32, #layout.cute<(?,1024):(1024,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,1024):(1024,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f32, #layout.cute<(?,1024):(1024,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,1024):(1024,1)>, gmem, masked>
    %x = layout.load %ta : !layout.tensor<f32, #layout.cute<(1,1024):(1024,1)>, gmem, masked> -> tensor<1x1024xf32, #mine>
    %xa = layout.convert_layout %x : tensor<1x1024xf32, #mine> -> tensor<1x1024xf32, #a>
    %y = arith.addf %xa, %xa : tensor<1x1024xf32, #a>
    layout.store %y, %tb : tensor<1x1024xf32, #a>, !layout.tensor<f32, #layout.cute<(1,1024):(1024,1)>, gmem, masked>
  }
  func.return
}
