// Round trip of the compute ops on distributed values (math functions, layout.cmpi/
// cmpf/select, integer casts, layout.scan, layout.reduce_region, masked load/store),
// in custom and generic form.
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s --print-op-generic | tilec | filecheck %s

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @math(
// CHECK: %e = math.exp %x : tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: %f = math.exp %e fastmath<afn> : tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: %g = math.fma %x, %e, %f : tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: %h = math.powf %g, %x : tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: %r = math.rsqrt %s : f32
func.func @math(%x: tensor<32x16xf32, #b>, %s: f32) {
  %e = math.exp %x : tensor<32x16xf32, #b>
  %f = math.exp %e fastmath<afn> : tensor<32x16xf32, #b>
  %g = math.fma %x, %e, %f : tensor<32x16xf32, #b>
  %h = math.powf %g, %x : tensor<32x16xf32, #b>
  %r = math.rsqrt %s : f32
  func.return
}

// CHECK-LABEL: func.func @compare_select(
// CHECK: %p = layout.cmpf olt, %x, %y : tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: %q = layout.cmpi sge, %i, %j : tensor<32x16xi32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: %m = layout.select %p, %x, %y : tensor<32x16xi1, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>, tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
func.func @compare_select(%x: tensor<32x16xf32, #b>, %y: tensor<32x16xf32, #b>, %i: tensor<32x16xi32, #b>, %j: tensor<32x16xi32, #b>) {
  %p = layout.cmpf olt, %x, %y : tensor<32x16xf32, #b>
  %q = layout.cmpi sge, %i, %j : tensor<32x16xi32, #b>
  %m = layout.select %p, %x, %y : tensor<32x16xi1, #b>, tensor<32x16xf32, #b>
  func.return
}

// CHECK-LABEL: func.func @casts(
// CHECK: %a = layout.extsi %i : tensor<32x16xi8, #layout.blocked<{{.*}}>> to tensor<32x16xi32, #layout.blocked<{{.*}}>>
// CHECK: %b = layout.extui %i : tensor<32x16xi8, #layout.blocked<{{.*}}>> to tensor<32x16xi64, #layout.blocked<{{.*}}>>
// CHECK: %c = layout.trunci %a : tensor<32x16xi32, #layout.blocked<{{.*}}>> to tensor<32x16xi16, #layout.blocked<{{.*}}>>
// CHECK: %d = layout.sitofp %a : tensor<32x16xi32, #layout.blocked<{{.*}}>> to tensor<32x16xf32, #layout.blocked<{{.*}}>>
// CHECK: %e = layout.uitofp %a : tensor<32x16xi32, #layout.blocked<{{.*}}>> to tensor<32x16xbf16, #layout.blocked<{{.*}}>>
// CHECK: %f = layout.fptosi %d : tensor<32x16xf32, #layout.blocked<{{.*}}>> to tensor<32x16xi8, #layout.blocked<{{.*}}>>
// CHECK: %g = layout.fptoui %d : tensor<32x16xf32, #layout.blocked<{{.*}}>> to tensor<32x16xi32, #layout.blocked<{{.*}}>>
// CHECK: %h = arith.truncf %d : tensor<32x16xf32, #layout.blocked<{{.*}}>> to tensor<32x16xf16, #layout.blocked<{{.*}}>>
func.func @casts(%i: tensor<32x16xi8, #b>) {
  %a = layout.extsi %i : tensor<32x16xi8, #b> to tensor<32x16xi32, #b>
  %b = layout.extui %i : tensor<32x16xi8, #b> to tensor<32x16xi64, #b>
  %c = layout.trunci %a : tensor<32x16xi32, #b> to tensor<32x16xi16, #b>
  %d = layout.sitofp %a : tensor<32x16xi32, #b> to tensor<32x16xf32, #b>
  %e = layout.uitofp %a : tensor<32x16xi32, #b> to tensor<32x16xbf16, #b>
  %f = layout.fptosi %d : tensor<32x16xf32, #b> to tensor<32x16xi8, #b>
  %g = layout.fptoui %d : tensor<32x16xf32, #b> to tensor<32x16xi32, #b>
  %h = arith.truncf %d : tensor<32x16xf32, #b> to tensor<32x16xf16, #b>
  func.return
}

// CHECK-LABEL: func.func @scan(
// CHECK: %s = layout.scan %x {axis = 1 : i64, kind = "add"} : tensor<32x16xf32, #layout.blocked<{{.*}}>>
// CHECK: %r = layout.scan %x {axis = 0 : i64, kind = "max", reverse = true} : tensor<32x16xf32, #layout.blocked<{{.*}}>>
func.func @scan(%x: tensor<32x16xf32, #b>) {
  %s = layout.scan %x {axis = 1 : i64, kind = "add"} : tensor<32x16xf32, #b>
  %r = layout.scan %x {axis = 0 : i64, kind = "max", reverse = true} : tensor<32x16xf32, #b>
  func.return
}

// CHECK-LABEL: func.func @masked_load_store(
// CHECK: %x = layout.load %t, %z : f32 mask %m : tensor<32x16xi1, #layout.blocked<{{.*}}>> : !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<32x16xf32, #layout.blocked<{{.*}}>>
// CHECK: %y = layout.load %t mask %m : tensor<32x16xi1, #layout.blocked<{{.*}}>> : !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<32x16xf32, #layout.blocked<{{.*}}>>
// CHECK: layout.store %x, %t mask %m : tensor<32x16xi1, #layout.blocked<{{.*}}>> : tensor<32x16xf32, #layout.blocked<{{.*}}>>, !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>
func.func @masked_load_store(%t: !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>, %m: tensor<32x16xi1, #b>, %z: f32) {
  %x = layout.load %t, %z : f32 mask %m : tensor<32x16xi1, #b> : !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<32x16xf32, #b>
  %y = layout.load %t mask %m : tensor<32x16xi1, #b> : !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<32x16xf32, #b>
  layout.store %x, %t mask %m : tensor<32x16xi1, #b> : tensor<32x16xf32, #b>, !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>
  func.return
}

#r = #layout.slice<{dim = 1, parent = #b}>
// CHECK-LABEL: func.func @argmax(
// CHECK: %m, %i = layout.reduce_region %x, %j {axis = 1 : i64} : tensor<32x16xf32, #layout.blocked<{{.*}}>>, tensor<32x16xi32, #layout.blocked<{{.*}}>> -> tensor<32xf32, #layout.slice<{{.*}}>>, tensor<32xi32, #layout.slice<{{.*}}>> {
// CHECK: ^bb0(%p: f32, %pi: i32, %q: f32, %qi: i32):
// CHECK:   layout.yield %v, %k : f32, i32
// CHECK: }
func.func @argmax(%x: tensor<32x16xf32, #b>, %j: tensor<32x16xi32, #b>) {
  %m, %i = layout.reduce_region %x, %j {axis = 1 : i64} : tensor<32x16xf32, #b>, tensor<32x16xi32, #b> -> tensor<32xf32, #r>, tensor<32xi32, #r> {
  ^bb0(%p: f32, %pi: i32, %q: f32, %qi: i32):
    %gt = arith.cmpf ogt, %q, %p : f32
    %v = arith.select %gt, %q, %p : f32
    %k = arith.select %gt, %qi, %pi : i32
    layout.yield %v, %k : f32, i32
  }
  func.return
}

#col = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-LABEL: func.func @permute(
// CHECK: %t = layout.permute %x {order = array<i64: 1, 0>} : tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<16x32xf32, #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>>
func.func @permute(%x: tensor<32x16xf32, #b>) {
  %t = layout.permute %x {order = array<i64: 1, 0>} : tensor<32x16xf32, #b> -> tensor<16x32xf32, #col>
  func.return
}

#j = #layout.blocked<{sizePerThread = [1, 4, 2], threadsPerWarp = [8, 4, 1], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>
// CHECK-LABEL: func.func @join_split(
// CHECK: %z = layout.join %x, %y : tensor<32x16xf32, #layout.blocked<{{.*}}>> -> tensor<32x16x2xf32, #layout.blocked<{sizePerThread = [1, 4, 2], threadsPerWarp = [8, 4, 1], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>>
// CHECK: %u, %v = layout.split %z : tensor<32x16x2xf32, #layout.blocked<{{.*}}>> -> tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
func.func @join_split(%x: tensor<32x16xf32, #b>, %y: tensor<32x16xf32, #b>) {
  %z = layout.join %x, %y : tensor<32x16xf32, #b> -> tensor<32x16x2xf32, #j>
  %u, %v = layout.split %z : tensor<32x16x2xf32, #j> -> tensor<32x16xf32, #b>
  func.return
}

#i = #layout.blocked<{sizePerThread = [2, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-LABEL: func.func @gather(
// CHECK: %g = layout.gather %x[%j] {axis = 1 : i64} : tensor<32x16xf32, #layout.blocked<{{.*}}>>, tensor<32x8xi32, #layout.blocked<{{.*}}>> -> tensor<32x8xf32, #layout.blocked<{sizePerThread = [2, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>>
func.func @gather(%x: tensor<32x16xf32, #b>, %j: tensor<32x8xi32, #i>) {
  %g = layout.gather %x[%j] {axis = 1 : i64} : tensor<32x16xf32, #b>, tensor<32x8xi32, #i> -> tensor<32x8xf32, #i>
  func.return
}

#flat = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @reshape(
// CHECK: %f = layout.reshape %x : tensor<32x16xf32, #layout.blocked<{{.*}}>> -> tensor<512xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
func.func @reshape(%x: tensor<32x16xf32, #b>) {
  %f = layout.reshape %x : tensor<32x16xf32, #b> -> tensor<512xf32, #flat>
  func.return
}
