// RUN: tilec %s -p 'choose-warps' | filecheck %s
// RUN: tilec %s -p 'choose-warps,coalesce' | filecheck %s --check-prefix=LAY
// RUN: tilec %s -p 'choose-warps' --check-equivalence --arg m=7 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence --arg m=7 | filecheck %s --check-prefix=EQ
// EQ: @f16_n768: equivalent after
// EQ: @f16_n3072: equivalent after
// EQ: @f16_n8192: equivalent after
// EQ: @f32_n1001: equivalent after
// EQ: @f32_n8192: equivalent after
// EQ: @written_threads: equivalent after
// `choose-warps` gives a `threads(auto)` launch its warps by one rule on the bytes of its
// largest tile: each thread at least 32 bytes, at least 64 past 4 warps, at most 16
// warps. Row kernels as a user writes them (a masked power-of-two row tile, other =
// -inf, a row max subtracted); the results do not depend on the warps.
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>

// 1024 f16 = 2 KiB: 2 warps (32 bytes, two 16-byte vectors, per thread).
// CHECK-LABEL: func.func @f16_n768
// CHECK:         layout.launch grid(%m, %c1, %c1) threads(64) {
// CHECK:         layout.load {{.*}} -> tensor<1x1024xf16, #layout.auto<{rank = 2, warps = 2}>>
// CHECK:         layout.reduce {{.*}} -> tensor<1xf32, #layout.slice<{dim = 1, parent = #layout.auto<{rank = 2, warps = 2}>}>>
// CHECK-NOT:     warps = 4
// CHECK:         func.return
// LAY-LABEL: func.func @f16_n768
// LAY:         layout.load {{.*}} -> tensor<1x1024xf16, #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 2], order = [1, 0]}>>
func.func @f16_n768(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,768):(768,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,768):(768,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f16, #layout.cute<(?,768):(768,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,1024):(768,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f16, #layout.cute<(?,768):(768,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,1024):(768,1)>, gmem, masked>
    %ninf = arith.constant 0xFC00 : f16
    %xh = layout.load %ta, %ninf : f16 : !layout.tensor<f16, #layout.cute<(1,1024):(768,1)>, gmem, masked> -> tensor<1x1024xf16, #a>
    %x = arith.extf %xh : tensor<1x1024xf16, #a> to tensor<1x1024xf32, #a>
    %mx = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
    %mb1 = layout.expand_dims %mx {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %mb = layout.broadcast %mb1 : tensor<1x1xf32, #a> -> tensor<1x1024xf32, #a>
    %e = arith.subf %x, %mb : tensor<1x1024xf32, #a>
    %y = arith.truncf %e : tensor<1x1024xf32, #a> to tensor<1x1024xf16, #a>
    layout.store %y, %tb : tensor<1x1024xf16, #a>, !layout.tensor<f16, #layout.cute<(1,1024):(768,1)>, gmem, masked>
  }
  func.return
}

// 4096 f16 = 8 KiB: 4 warps (64 bytes per thread; 8 warps would leave 32).
// CHECK-LABEL: func.func @f16_n3072
// CHECK:         layout.launch grid(%m, %c1, %c1) threads(128) {
// CHECK:         layout.load {{.*}} -> tensor<1x4096xf16, #layout.auto<{rank = 2, warps = 4}>>
func.func @f16_n3072(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,3072):(3072,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,3072):(3072,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 4096>} : !layout.tensor<f16, #layout.cute<(?,3072):(3072,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,4096):(3072,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 4096>} : !layout.tensor<f16, #layout.cute<(?,3072):(3072,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,4096):(3072,1)>, gmem, masked>
    %ninf = arith.constant 0xFC00 : f16
    %xh = layout.load %ta, %ninf : f16 : !layout.tensor<f16, #layout.cute<(1,4096):(3072,1)>, gmem, masked> -> tensor<1x4096xf16, #a>
    %x = arith.extf %xh : tensor<1x4096xf16, #a> to tensor<1x4096xf32, #a>
    %mx = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x4096xf32, #a> -> tensor<1xf32, #r>
    %mb1 = layout.expand_dims %mx {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %mb = layout.broadcast %mb1 : tensor<1x1xf32, #a> -> tensor<1x4096xf32, #a>
    %e = arith.subf %x, %mb : tensor<1x4096xf32, #a>
    %y = arith.truncf %e : tensor<1x4096xf32, #a> to tensor<1x4096xf16, #a>
    layout.store %y, %tb : tensor<1x4096xf16, #a>, !layout.tensor<f16, #layout.cute<(1,4096):(3072,1)>, gmem, masked>
  }
  func.return
}

// 8192 f16 = 16 KiB: 8 warps.
// CHECK-LABEL: func.func @f16_n8192
// CHECK:         layout.launch grid(%m, %c1, %c1) threads(256) {
// CHECK:         layout.load {{.*}} -> tensor<1x8192xf16, #layout.auto<{rank = 2, warps = 8}>>
func.func @f16_n8192(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,8192):(8192,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,8192):(8192,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 8192>} : !layout.tensor<f16, #layout.cute<(?,8192):(8192,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,8192):(8192,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 8192>} : !layout.tensor<f16, #layout.cute<(?,8192):(8192,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,8192):(8192,1)>, gmem, masked>
    %ninf = arith.constant 0xFC00 : f16
    %xh = layout.load %ta, %ninf : f16 : !layout.tensor<f16, #layout.cute<(1,8192):(8192,1)>, gmem, masked> -> tensor<1x8192xf16, #a>
    %x = arith.extf %xh : tensor<1x8192xf16, #a> to tensor<1x8192xf32, #a>
    %mx = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x8192xf32, #a> -> tensor<1xf32, #r>
    %mb1 = layout.expand_dims %mx {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %mb = layout.broadcast %mb1 : tensor<1x1xf32, #a> -> tensor<1x8192xf32, #a>
    %e = arith.subf %x, %mb : tensor<1x8192xf32, #a>
    %y = arith.truncf %e : tensor<1x8192xf32, #a> to tensor<1x8192xf16, #a>
    layout.store %y, %tb : tensor<1x8192xf16, #a>, !layout.tensor<f16, #layout.cute<(1,8192):(8192,1)>, gmem, masked>
  }
  func.return
}

// 1024 f32 = 4 KiB: 4 warps.
// CHECK-LABEL: func.func @f32_n1001
// CHECK:         layout.launch grid(%m, %c1, %c1) threads(128) {
// CHECK:         layout.load {{.*}} -> tensor<1x1024xf32, #layout.auto<{rank = 2, warps = 4}>>
func.func @f32_n1001(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,1001):(1001,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,1001):(1001,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f32, #layout.cute<(?,1001):(1001,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,1024):(1001,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f32, #layout.cute<(?,1001):(1001,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,1024):(1001,1)>, gmem, masked>
    %ninf = arith.constant 0xFF800000 : f32
    %xh = layout.load %ta, %ninf : f32 : !layout.tensor<f32, #layout.cute<(1,1024):(1001,1)>, gmem, masked> -> tensor<1x1024xf32, #a>
    %mx = layout.reduce %xh {axis = 1 : i64, kind = "max"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
    %mb1 = layout.expand_dims %mx {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %mb = layout.broadcast %mb1 : tensor<1x1xf32, #a> -> tensor<1x1024xf32, #a>
    %e = arith.subf %xh, %mb : tensor<1x1024xf32, #a>
    layout.store %e, %tb : tensor<1x1024xf32, #a>, !layout.tensor<f32, #layout.cute<(1,1024):(1001,1)>, gmem, masked>
  }
  func.return
}

// 8192 f32 = 32 KiB: 16 warps.
// CHECK-LABEL: func.func @f32_n8192
// CHECK:         layout.launch grid(%m, %c1, %c1) threads(512) {
// CHECK:         layout.load {{.*}} -> tensor<1x8192xf32, #layout.auto<{rank = 2, warps = 16}>>
func.func @f32_n8192(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,8192):(8192,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,8192):(8192,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 8192>} : !layout.tensor<f32, #layout.cute<(?,8192):(8192,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,8192):(8192,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 8192>} : !layout.tensor<f32, #layout.cute<(?,8192):(8192,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,8192):(8192,1)>, gmem, masked>
    %ninf = arith.constant 0xFF800000 : f32
    %xh = layout.load %ta, %ninf : f32 : !layout.tensor<f32, #layout.cute<(1,8192):(8192,1)>, gmem, masked> -> tensor<1x8192xf32, #a>
    %mx = layout.reduce %xh {axis = 1 : i64, kind = "max"} : tensor<1x8192xf32, #a> -> tensor<1xf32, #r>
    %mb1 = layout.expand_dims %mx {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %mb = layout.broadcast %mb1 : tensor<1x1xf32, #a> -> tensor<1x8192xf32, #a>
    %e = arith.subf %xh, %mb : tensor<1x8192xf32, #a>
    layout.store %e, %tb : tensor<1x8192xf32, #a>, !layout.tensor<f32, #layout.cute<(1,8192):(8192,1)>, gmem, masked>
  }
  func.return
}

// A launch whose threads are written keeps them: an explicit count wins.
// CHECK-LABEL: func.func @written_threads
// CHECK:         layout.launch grid(%m, %c1, %c1) threads(128) {
// CHECK:         layout.load {{.*}} -> tensor<1x1024xf16, #layout.auto<{rank = 2, warps = 4}>>
func.func @written_threads(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,768):(768,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,768):(768,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f16, #layout.cute<(?,768):(768,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,1024):(768,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f16, #layout.cute<(?,768):(768,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,1024):(768,1)>, gmem, masked>
    %ninf = arith.constant 0xFC00 : f16
    %xh = layout.load %ta, %ninf : f16 : !layout.tensor<f16, #layout.cute<(1,1024):(768,1)>, gmem, masked> -> tensor<1x1024xf16, #a>
    %x = arith.extf %xh : tensor<1x1024xf16, #a> to tensor<1x1024xf32, #a>
    %mx = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
    %mb1 = layout.expand_dims %mx {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %mb = layout.broadcast %mb1 : tensor<1x1xf32, #a> -> tensor<1x1024xf32, #a>
    %e = arith.subf %x, %mb : tensor<1x1024xf32, #a>
    %y = arith.truncf %e : tensor<1x1024xf32, #a> to tensor<1x1024xf16, #a>
    layout.store %y, %tb : tensor<1x1024xf16, #a>, !layout.tensor<f16, #layout.cute<(1,1024):(768,1)>, gmem, masked>
  }
  func.return
}
