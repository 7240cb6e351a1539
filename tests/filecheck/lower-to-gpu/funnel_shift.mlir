// RUN: tilec %s -p vectorize-pointers,lower-to-gpu -t cuda | filecheck %s
// RUN: tilec %s -p vectorize-pointers,lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @bytes: equivalent after
// EQ: @halves: equivalent after
// EQ: @longs: equivalent after
// EQ: @words_to_bytes: equivalent after
// layout.funnel_shift moves no data between threads: each row's window is its thread's
// registers. Rows of 16 bytes are reinterpreted as four 32-bit words (a vector bitcast)
// and each output word is a 64-bit right shift of the two words it straddles; rows of
// 8-byte elements select words; @words_to_bytes loads 32-bit words and takes bytes
// from them (no bitcast on the way in). Row i of @bytes is src[16 i + (i % 16) ..][:16].
// CHECK-LABEL: bytes_kernel(
// CHECK-NOT:     __shared__
// CHECK-NOT:     __shfl_sync
// CHECK:         tilec_bitcast<i32x4>
// CHECK:         >> 
// CHECK:         tilec_bitcast<i8x16>
// CHECK:         }
// CHECK-LABEL: halves_kernel(
// CHECK:         tilec_bitcast<i32x4>
// CHECK:         tilec_bitcast<i16x8>
// CHECK:         }
// CHECK-LABEL: longs_kernel(
// CHECK:         tilec_bitcast<i32x4>
// CHECK:         tilec_bitcast<i64x2>
// CHECK:         }
// CHECK-LABEL: words_to_bytes_kernel(
// CHECK-NOT:     tilec_bitcast<i32x4>
// CHECK:         >>
// CHECK:         tilec_bitcast<i8x16>
// CHECK:         }
#l = #layout.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [2, 1], order = [1, 0]}>
#r = #layout.slice<{dim = 1, parent = #l}>
#j = #layout.slice<{dim = 0, parent = #l}>
func.func @bytes(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) attributes {tilec.args = {src = 2064 : i64, dst = 2048 : index}} {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %rows = layout.arange {start = 0 : i64, end = 128 : i64} : tensor<128xi32, #r>
    %j = layout.arange {start = 0 : i64, end = 16 : i64} : tensor<16xi32, #j>
    %c16 = arith.constant 16 : i32
    %c16r = layout.splat %c16 : i32 -> tensor<128xi32, #r>
    %base = arith.muli %rows, %c16r : tensor<128xi32, #r>
    %sh = arith.remsi %rows, %c16r : tensor<128xi32, #r>
    %be = layout.expand_dims %base {axis = 1 : i64} : tensor<128xi32, #r> -> tensor<128x1xi32, #l>
    %bb = layout.broadcast %be : tensor<128x1xi32, #l> -> tensor<128x16xi32, #l>
    %je = layout.expand_dims %j {axis = 0 : i64} : tensor<16xi32, #j> -> tensor<1x16xi32, #l>
    %jb = layout.broadcast %je : tensor<1x16xi32, #l> -> tensor<128x16xi32, #l>
    %offs = arith.addi %bb, %jb : tensor<128x16xi32, #l>
    %c16t = layout.splat %c16 : i32 -> tensor<128x16xi32, #l>
    %offs_hi = arith.addi %offs, %c16t : tensor<128x16xi32, #l>
    %sp = layout.splat %src : !layout.ptr<i8, align 16> -> tensor<128x16x!layout.ptr<i8>, #l>
    %plo = layout.addptr %sp, %offs : tensor<128x16x!layout.ptr<i8>, #l>, tensor<128x16xi32, #l>
    %phi = layout.addptr %sp, %offs_hi : tensor<128x16x!layout.ptr<i8>, #l>, tensor<128x16xi32, #l>
    %lo = layout.ptr_load %plo : tensor<128x16x!layout.ptr<i8>, #l> -> tensor<128x16xi8, #l>
    %hi = layout.ptr_load %phi : tensor<128x16x!layout.ptr<i8>, #l> -> tensor<128x16xi8, #l>
    %out = layout.funnel_shift %lo, %hi, %sh : tensor<128x16xi8, #l>, tensor<128xi32, #r>
    %dp = layout.splat %dst : !layout.ptr<i8, align 16> -> tensor<128x16x!layout.ptr<i8>, #l>
    %pd = layout.addptr %dp, %offs : tensor<128x16x!layout.ptr<i8>, #l>, tensor<128x16xi32, #l>
    layout.ptr_store %out, %pd : tensor<128x16xi8, #l>, tensor<128x16x!layout.ptr<i8>, #l>
  }
  func.return
}
#h = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#hr = #layout.slice<{dim = 1, parent = #h}>
#hj = #layout.slice<{dim = 0, parent = #h}>
func.func @halves(%src: !layout.ptr<i16, align 16>, %dst: !layout.ptr<i16, align 16>) attributes {tilec.args = {src = 264 : index, dst = 256 : index}} {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %rows = layout.arange {start = 0 : i64, end = 32 : i64} : tensor<32xi32, #hr>
    %j = layout.arange {start = 0 : i64, end = 8 : i64} : tensor<8xi32, #hj>
    %c8 = arith.constant 8 : i32
    %c8r = layout.splat %c8 : i32 -> tensor<32xi32, #hr>
    %base = arith.muli %rows, %c8r : tensor<32xi32, #hr>
    %sh = arith.remsi %rows, %c8r : tensor<32xi32, #hr>
    %be = layout.expand_dims %base {axis = 1 : i64} : tensor<32xi32, #hr> -> tensor<32x1xi32, #h>
    %bb = layout.broadcast %be : tensor<32x1xi32, #h> -> tensor<32x8xi32, #h>
    %je = layout.expand_dims %j {axis = 0 : i64} : tensor<8xi32, #hj> -> tensor<1x8xi32, #h>
    %jb = layout.broadcast %je : tensor<1x8xi32, #h> -> tensor<32x8xi32, #h>
    %offs = arith.addi %bb, %jb : tensor<32x8xi32, #h>
    %c8t = layout.splat %c8 : i32 -> tensor<32x8xi32, #h>
    %offs_hi = arith.addi %offs, %c8t : tensor<32x8xi32, #h>
    %sp = layout.splat %src : !layout.ptr<i16, align 16> -> tensor<32x8x!layout.ptr<i16>, #h>
    %plo = layout.addptr %sp, %offs : tensor<32x8x!layout.ptr<i16>, #h>, tensor<32x8xi32, #h>
    %phi = layout.addptr %sp, %offs_hi : tensor<32x8x!layout.ptr<i16>, #h>, tensor<32x8xi32, #h>
    %lo = layout.ptr_load %plo : tensor<32x8x!layout.ptr<i16>, #h> -> tensor<32x8xi16, #h>
    %hi = layout.ptr_load %phi : tensor<32x8x!layout.ptr<i16>, #h> -> tensor<32x8xi16, #h>
    %sh64 = layout.extsi %sh : tensor<32xi32, #hr> to tensor<32xi64, #hr>
    %out = layout.funnel_shift %lo, %hi, %sh64 : tensor<32x8xi16, #h>, tensor<32xi64, #hr>
    %dp = layout.splat %dst : !layout.ptr<i16, align 16> -> tensor<32x8x!layout.ptr<i16>, #h>
    %pd = layout.addptr %dp, %offs : tensor<32x8x!layout.ptr<i16>, #h>, tensor<32x8xi32, #h>
    layout.ptr_store %out, %pd : tensor<32x8xi16, #h>, tensor<32x8x!layout.ptr<i16>, #h>
  }
  func.return
}
#g = #layout.blocked<{sizePerThread = [1, 2], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#gr = #layout.slice<{dim = 1, parent = #g}>
#gj = #layout.slice<{dim = 0, parent = #g}>
func.func @longs(%src: !layout.ptr<i64, align 16>, %dst: !layout.ptr<i64, align 16>) attributes {tilec.args = {src = 66 : i64, dst = 64 : index}} {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %rows = layout.arange {start = 0 : i64, end = 32 : i64} : tensor<32xi32, #gr>
    %j = layout.arange {start = 0 : i64, end = 2 : i64} : tensor<2xi32, #gj>
    %c2 = arith.constant 2 : i32
    %c2r = layout.splat %c2 : i32 -> tensor<32xi32, #gr>
    %base = arith.muli %rows, %c2r : tensor<32xi32, #gr>
    %sh = arith.remsi %rows, %c2r : tensor<32xi32, #gr>
    %be = layout.expand_dims %base {axis = 1 : i64} : tensor<32xi32, #gr> -> tensor<32x1xi32, #g>
    %bb = layout.broadcast %be : tensor<32x1xi32, #g> -> tensor<32x2xi32, #g>
    %je = layout.expand_dims %j {axis = 0 : i64} : tensor<2xi32, #gj> -> tensor<1x2xi32, #g>
    %jb = layout.broadcast %je : tensor<1x2xi32, #g> -> tensor<32x2xi32, #g>
    %offs = arith.addi %bb, %jb : tensor<32x2xi32, #g>
    %c2t = layout.splat %c2 : i32 -> tensor<32x2xi32, #g>
    %offs_hi = arith.addi %offs, %c2t : tensor<32x2xi32, #g>
    %sp = layout.splat %src : !layout.ptr<i64, align 16> -> tensor<32x2x!layout.ptr<i64>, #g>
    %plo = layout.addptr %sp, %offs : tensor<32x2x!layout.ptr<i64>, #g>, tensor<32x2xi32, #g>
    %phi = layout.addptr %sp, %offs_hi : tensor<32x2x!layout.ptr<i64>, #g>, tensor<32x2xi32, #g>
    %lo = layout.ptr_load %plo : tensor<32x2x!layout.ptr<i64>, #g> -> tensor<32x2xi64, #g>
    %hi = layout.ptr_load %phi : tensor<32x2x!layout.ptr<i64>, #g> -> tensor<32x2xi64, #g>
    %out = layout.funnel_shift %lo, %hi, %sh : tensor<32x2xi64, #g>, tensor<32xi32, #gr>
    %dp = layout.splat %dst : !layout.ptr<i64, align 16> -> tensor<32x2x!layout.ptr<i64>, #g>
    %pd = layout.addptr %dp, %offs : tensor<32x2x!layout.ptr<i64>, #g>, tensor<32x2xi32, #g>
    layout.ptr_store %out, %pd : tensor<32x2xi64, #g>, tensor<32x2x!layout.ptr<i64>, #g>
  }
  func.return
}
#w = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [2, 1], order = [1, 0]}>
#wr = #layout.slice<{dim = 1, parent = #w}>
#wj = #layout.slice<{dim = 0, parent = #w}>
func.func @words_to_bytes(%src: !layout.ptr<i32, align 16>, %dst: !layout.ptr<i8, align 16>) attributes {tilec.args = {src = 528 : index, dst = 2048 : index}} {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %rows = layout.arange {start = 0 : i64, end = 128 : i64} : tensor<128xi32, #wr>
    %j = layout.arange {start = 0 : i64, end = 4 : i64} : tensor<4xi32, #wj>
    %c4 = arith.constant 4 : i32
    %c4r = layout.splat %c4 : i32 -> tensor<128xi32, #wr>
    %base = arith.muli %rows, %c4r : tensor<128xi32, #wr>
    %be = layout.expand_dims %base {axis = 1 : i64} : tensor<128xi32, #wr> -> tensor<128x1xi32, #w>
    %bb = layout.broadcast %be : tensor<128x1xi32, #w> -> tensor<128x4xi32, #w>
    %je = layout.expand_dims %j {axis = 0 : i64} : tensor<4xi32, #wj> -> tensor<1x4xi32, #w>
    %jb = layout.broadcast %je : tensor<1x4xi32, #w> -> tensor<128x4xi32, #w>
    %offs = arith.addi %bb, %jb : tensor<128x4xi32, #w>
    %c4t = layout.splat %c4 : i32 -> tensor<128x4xi32, #w>
    %offs_hi = arith.addi %offs, %c4t : tensor<128x4xi32, #w>
    %sp = layout.splat %src : !layout.ptr<i32, align 16> -> tensor<128x4x!layout.ptr<i32>, #w>
    %plo = layout.addptr %sp, %offs : tensor<128x4x!layout.ptr<i32>, #w>, tensor<128x4xi32, #w>
    %phi = layout.addptr %sp, %offs_hi : tensor<128x4x!layout.ptr<i32>, #w>, tensor<128x4xi32, #w>
    %lo = layout.ptr_load %plo : tensor<128x4x!layout.ptr<i32>, #w> -> tensor<128x4xi32, #w>
    %hi = layout.ptr_load %phi : tensor<128x4x!layout.ptr<i32>, #w> -> tensor<128x4xi32, #w>
    %brows = layout.arange {start = 0 : i64, end = 128 : i64} : tensor<128xi32, #r>
    %bj = layout.arange {start = 0 : i64, end = 16 : i64} : tensor<16xi32, #j>
    %c16 = arith.constant 16 : i32
    %c16r = layout.splat %c16 : i32 -> tensor<128xi32, #r>
    %sh = arith.remsi %brows, %c16r : tensor<128xi32, #r>
    %out = layout.funnel_shift %lo, %hi, %sh : tensor<128x4xi32, #w>, tensor<128xi32, #r> -> tensor<128x16xi8, #l>
    %dbase = arith.muli %brows, %c16r : tensor<128xi32, #r>
    %dbe = layout.expand_dims %dbase {axis = 1 : i64} : tensor<128xi32, #r> -> tensor<128x1xi32, #l>
    %dbb = layout.broadcast %dbe : tensor<128x1xi32, #l> -> tensor<128x16xi32, #l>
    %dje = layout.expand_dims %bj {axis = 0 : i64} : tensor<16xi32, #j> -> tensor<1x16xi32, #l>
    %djb = layout.broadcast %dje : tensor<1x16xi32, #l> -> tensor<128x16xi32, #l>
    %doffs = arith.addi %dbb, %djb : tensor<128x16xi32, #l>
    %dp = layout.splat %dst : !layout.ptr<i8, align 16> -> tensor<128x16x!layout.ptr<i8>, #l>
    %pd = layout.addptr %dp, %doffs : tensor<128x16x!layout.ptr<i8>, #l>, tensor<128x16xi32, #l>
    layout.ptr_store %out, %pd : tensor<128x16xi8, #l>, tensor<128x16x!layout.ptr<i8>, #l>
  }
  func.return
}
