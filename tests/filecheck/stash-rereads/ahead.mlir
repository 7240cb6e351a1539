// RUN: tilec %s -p stash-rereads | filecheck %s
// RUN: tilec %s -p stash-rereads --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p stash-rereads --check-equivalence --arg m=1 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'stash-rereads,coalesce,vectorize,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// EQ: @ahead_f16: equivalent after
// EQ: @ahead_f16_aligned: equivalent after
// EQ: @ahead_f32: equivalent after
// EQ: @ahead_weight: equivalent after
// EQ: @ahead_few_chunks: equivalent after
// The window fill overlapped with the first loop (`stash-rereads`' `_ahead`): rows longer
// than the groups kept in flight. The window's chunks after its first (the head, where
// rows are not 16-byte aligned) come in groups of one trip's elements, each thread
// copying the same count of each group (here one trip of 256 f16 = 32 chunks of 16
// bytes over 32 threads: one a thread); 7 groups are issued before the first loop (at
// most 7 commit groups a wait leaves in flight) and each trip issues the next group,
// waits until 7 are pending (so its own group and those before it have landed) and
// meets a barrier; past the last whole group (9 of them in a row of 2561) the trip
// whose next group would be the 10th issues the rest of the window, waits for all of it
// and meets a barrier, and the trips after it find the stash landed.
#a = #layout.auto<{rank = 2, warps = 1}>
#r = #layout.slice<{dim = 1, parent = #a}>
#c = #layout.slice<{dim = 0, parent = #a}>
#a2 = #layout.auto<{rank = 2, warps = 2}>
#r2 = #layout.slice<{dim = 1, parent = #a2}>

// CHECK-LABEL: func.func @ahead_f16
// CHECK:         layout.alloc : !layout.tensor<f16, #layout.cute<(1,2568):(0,1)>, smem>
// CHECK:         scf.for %{{.*}} = %tid to %{{.*}} step %{{.*}} {
// CHECK:           layout.copy_chunk_async
// CHECK:         %[[D:.*]] = arith.constant 7 : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    scf.for %{{.*}} = %{{.*}} to %[[D]] step %[[ONE]] {
// CHECK:           layout.copy_chunk_async
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-NEXT:      %[[SEVEN:.*]] = arith.constant 7 : index
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[J]], %[[SEVEN]] : index
// CHECK-NEXT:      %[[NINE:.*]] = arith.constant 9 : index
// CHECK-NEXT:      %[[MORE:.*]] = arith.cmpi ult, %[[NEXT]], %[[NINE]] : index
// CHECK-NEXT:      scf.if %[[MORE]] {
// CHECK:             layout.copy_chunk_async
// CHECK-NEXT:        layout.async_wait {pending = 7 : i64}
// CHECK-NEXT:        layout.barrier
// CHECK-NEXT:      }
// CHECK:           %[[LAST:.*]] = arith.cmpi eq, %[[NEXT]], %{{.*}} : index
// CHECK-NEXT:      scf.if %[[LAST]] {
// CHECK:             layout.copy_chunk_async
// CHECK:           layout.async_wait {pending = 0 : i64}
// CHECK-NEXT:        layout.barrier
// CHECK-NEXT:      }
// CHECK-NEXT:      layout.tile
// CHECK-NEXT:      layout.load %{{.*}} : f16 : !layout.tensor<f16, #layout.cute<(1,256):(0,1)>, smem, masked>
func.func @ahead_f16(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,2561):(2561,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,2561):(2561,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant 0.0 : f16
    %zero32 = arith.constant 0.0 : f32
    %q0 = layout.splat %zero32 : f32 -> tensor<1xf32, #r>
    %lo = arith.constant 0 : index
    %hi = arith.constant 11 : index
    %one = arith.constant 1 : index
    %q = scf.for %j = %lo to %hi step %one iter_args(%acc = %q0) -> (tensor<1xf32, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 256>} : !layout.tensor<f16, #layout.cute<(?,2561):(2561,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,256):(2561,1)>, gmem, masked>
      %x = layout.load %t, %zero : f16 : !layout.tensor<f16, #layout.cute<(1,256):(2561,1)>, gmem, masked> -> tensor<1x256xf16, #a>
      %xf = arith.extf %x : tensor<1x256xf16, #a> to tensor<1x256xf32, #a>
      %s = layout.reduce %xf {axis = 1 : i64, kind = "add"} : tensor<1x256xf32, #a> -> tensor<1xf32, #r>
      %n = arith.addf %acc, %s : tensor<1xf32, #r>
      scf.yield %n : tensor<1xf32, #r>
    }
    %e = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %qb = layout.broadcast %e : tensor<1x1xf32, #a> -> tensor<1x256xf32, #a>
    scf.for %j = %lo to %hi step %one {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 256>} : !layout.tensor<f16, #layout.cute<(?,2561):(2561,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,256):(2561,1)>, gmem, masked>
      %x = layout.load %t, %zero : f16 : !layout.tensor<f16, #layout.cute<(1,256):(2561,1)>, gmem, masked> -> tensor<1x256xf16, #a>
      %xf = arith.extf %x : tensor<1x256xf16, #a> to tensor<1x256xf32, #a>
      %y = arith.subf %xf, %qb : tensor<1x256xf32, #a>
      %yh = arith.truncf %y : tensor<1x256xf32, #a> to tensor<1x256xf16, #a>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 256>} : !layout.tensor<f16, #layout.cute<(?,2561):(2561,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,256):(2561,1)>, gmem, masked>
      layout.store %yh, %to : tensor<1x256xf16, #a>, !layout.tensor<f16, #layout.cute<(1,256):(2561,1)>, gmem, masked>
    }
  }
  func.return
}

// Rows of 2560 f16 start on 16-byte boundaries: no head, 10 whole groups, no rest.
// CHECK-LABEL: func.func @ahead_f16_aligned
// CHECK:         layout.alloc : !layout.tensor<f16, #layout.cute<(1,2560):(0,1)>, smem>
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:           %[[TEN:.*]] = arith.constant 10 : index
// CHECK-NEXT:      arith.cmpi ult, %{{.*}}, %[[TEN]] : index
// CHECK:           layout.async_wait {pending = 7 : i64}
func.func @ahead_f16_aligned(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,2560):(2560,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,2560):(2560,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant 0.0 : f16
    %zero32 = arith.constant 0.0 : f32
    %q0 = layout.splat %zero32 : f32 -> tensor<1xf32, #r>
    %lo = arith.constant 0 : index
    %hi = arith.constant 10 : index
    %one = arith.constant 1 : index
    %q = scf.for %j = %lo to %hi step %one iter_args(%acc = %q0) -> (tensor<1xf32, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 256>} : !layout.tensor<f16, #layout.cute<(?,2560):(2560,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,256):(2560,1)>, gmem, masked>
      %x = layout.load %t, %zero : f16 : !layout.tensor<f16, #layout.cute<(1,256):(2560,1)>, gmem, masked> -> tensor<1x256xf16, #a>
      %xf = arith.extf %x : tensor<1x256xf16, #a> to tensor<1x256xf32, #a>
      %s = layout.reduce %xf {axis = 1 : i64, kind = "add"} : tensor<1x256xf32, #a> -> tensor<1xf32, #r>
      %n = arith.addf %acc, %s : tensor<1xf32, #r>
      scf.yield %n : tensor<1xf32, #r>
    }
    %e = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %qb = layout.broadcast %e : tensor<1x1xf32, #a> -> tensor<1x256xf32, #a>
    scf.for %j = %lo to %hi step %one {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 256>} : !layout.tensor<f16, #layout.cute<(?,2560):(2560,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,256):(2560,1)>, gmem, masked>
      %x = layout.load %t, %zero : f16 : !layout.tensor<f16, #layout.cute<(1,256):(2560,1)>, gmem, masked> -> tensor<1x256xf16, #a>
      %xf = arith.extf %x : tensor<1x256xf16, #a> to tensor<1x256xf32, #a>
      %y = arith.subf %xf, %qb : tensor<1x256xf32, #a>
      %yh = arith.truncf %y : tensor<1x256xf32, #a> to tensor<1x256xf16, #a>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 256>} : !layout.tensor<f16, #layout.cute<(?,2560):(2560,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,256):(2560,1)>, gmem, masked>
      layout.store %yh, %to : tensor<1x256xf16, #a>, !layout.tensor<f16, #layout.cute<(1,256):(2560,1)>, gmem, masked>
    }
  }
  func.return
}

// f32: a trip of 256 is 64 chunks, two a thread: 3 groups ahead (6 commit groups of each
// thread pending at the wait), 7 whole groups in a row of 2001.
// CHECK-LABEL: func.func @ahead_f32
// CHECK:         layout.alloc : !layout.tensor<f32, #layout.cute<(1,2004):(0,1)>, smem>
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:           %[[SEVEN:.*]] = arith.constant 7 : index
// CHECK-NEXT:      arith.cmpi ult, %{{.*}}, %[[SEVEN]] : index
// CHECK:             layout.copy_chunk_async
// CHECK:             layout.copy_chunk_async
// CHECK-NEXT:        layout.async_wait {pending = 6 : i64}
func.func @ahead_f32(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,2001):(2001,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,2001):(2001,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant 0.0 : f32
    %zero32 = arith.constant 0.0 : f32
    %q0 = layout.splat %zero32 : f32 -> tensor<1xf32, #r>
    %lo = arith.constant 0 : index
    %hi = arith.constant 8 : index
    %one = arith.constant 1 : index
    %q = scf.for %j = %lo to %hi step %one iter_args(%acc = %q0) -> (tensor<1xf32, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 256>} : !layout.tensor<f32, #layout.cute<(?,2001):(2001,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,256):(2001,1)>, gmem, masked>
      %x = layout.load %t, %zero : f32 : !layout.tensor<f32, #layout.cute<(1,256):(2001,1)>, gmem, masked> -> tensor<1x256xf32, #a>
      %s = layout.reduce %x {axis = 1 : i64, kind = "add"} : tensor<1x256xf32, #a> -> tensor<1xf32, #r>
      %n = arith.addf %acc, %s : tensor<1xf32, #r>
      scf.yield %n : tensor<1xf32, #r>
    }
    %e = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %qb = layout.broadcast %e : tensor<1x1xf32, #a> -> tensor<1x256xf32, #a>
    scf.for %j = %lo to %hi step %one {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 256>} : !layout.tensor<f32, #layout.cute<(?,2001):(2001,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,256):(2001,1)>, gmem, masked>
      %x = layout.load %t, %zero : f32 : !layout.tensor<f32, #layout.cute<(1,256):(2001,1)>, gmem, masked> -> tensor<1x256xf32, #a>
      %y = arith.subf %x, %qb : tensor<1x256xf32, #a>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 256>} : !layout.tensor<f32, #layout.cute<(?,2001):(2001,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,256):(2001,1)>, gmem, masked>
      layout.store %y, %to : tensor<1x256xf32, #a>, !layout.tensor<f32, #layout.cute<(1,256):(2001,1)>, gmem, masked>
    }
  }
  func.return
}

// The global loads left in the second loop (a norm's weight) are issued a trip ahead:
// trip 0's tile before the loop, and at trip j the tile of min(j + 1, last), carried
// to the next trip in a loop slot, first thing in the trip.
// CHECK-LABEL: func.func @ahead_weight
// CHECK:         layout.reduce
// CHECK:         %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[W0:.*]] = layout.tile %w[%[[Z]]] {tile = array<i64: 256>}
// CHECK-NEXT:    %[[V0:.*]] = layout.load %[[W0]]
// CHECK-NEXT:    scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[V:.*]] = %[[V0]])
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[LAST:.*]] = arith.constant 10 : index
// CHECK-NEXT:      %[[N:.*]] = arith.addi %[[J]], %[[ONE]] : index
// CHECK-NEXT:      %[[AT:.*]] = arith.minui %[[N]], %[[LAST]] : index
// CHECK-NEXT:      %[[WT:.*]] = layout.tile %w[%[[AT]]] {tile = array<i64: 256>}
// CHECK-NEXT:      %[[NEXT:.*]] = layout.load %[[WT]]
// CHECK:           arith.extf %[[V]]
// CHECK:           scf.yield %[[NEXT]]
func.func @ahead_weight(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %wp: !layout.ptr<f16, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,2561):(2561,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,2561):(2561,1)>, gmem>
  %w = layout.view %wp : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<2561:1>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant 0.0 : f16
    %zero32 = arith.constant 0.0 : f32
    %q0 = layout.splat %zero32 : f32 -> tensor<1xf32, #r>
    %lo = arith.constant 0 : index
    %hi = arith.constant 11 : index
    %one = arith.constant 1 : index
    %q = scf.for %j = %lo to %hi step %one iter_args(%acc = %q0) -> (tensor<1xf32, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 256>} : !layout.tensor<f16, #layout.cute<(?,2561):(2561,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,256):(2561,1)>, gmem, masked>
      %x = layout.load %t, %zero : f16 : !layout.tensor<f16, #layout.cute<(1,256):(2561,1)>, gmem, masked> -> tensor<1x256xf16, #a>
      %xf = arith.extf %x : tensor<1x256xf16, #a> to tensor<1x256xf32, #a>
      %s = layout.reduce %xf {axis = 1 : i64, kind = "add"} : tensor<1x256xf32, #a> -> tensor<1xf32, #r>
      %n = arith.addf %acc, %s : tensor<1xf32, #r>
      scf.yield %n : tensor<1xf32, #r>
    }
    %e = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %qb = layout.broadcast %e : tensor<1x1xf32, #a> -> tensor<1x256xf32, #a>
    scf.for %j = %lo to %hi step %one {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 256>} : !layout.tensor<f16, #layout.cute<(?,2561):(2561,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,256):(2561,1)>, gmem, masked>
      %x = layout.load %t, %zero : f16 : !layout.tensor<f16, #layout.cute<(1,256):(2561,1)>, gmem, masked> -> tensor<1x256xf16, #a>
      %xf = arith.extf %x : tensor<1x256xf16, #a> to tensor<1x256xf32, #a>
      %wt = layout.tile %w[%j] {tile = array<i64: 256>} : !layout.tensor<f16, #layout.cute<2561:1>, gmem> -> !layout.tensor<f16, #layout.cute<256:1>, gmem, masked>
      %wv = layout.load %wt : !layout.tensor<f16, #layout.cute<256:1>, gmem, masked> -> tensor<256xf16, #c>
      %wf = arith.extf %wv : tensor<256xf16, #c> to tensor<256xf32, #c>
      %we = layout.expand_dims %wf {axis = 0 : i64} : tensor<256xf32, #c> -> tensor<1x256xf32, #a>
      %y0 = arith.subf %xf, %qb : tensor<1x256xf32, #a>
      %y = arith.mulf %y0, %we : tensor<1x256xf32, #a>
      %yh = arith.truncf %y : tensor<1x256xf32, #a> to tensor<1x256xf16, #a>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 256>} : !layout.tensor<f16, #layout.cute<(?,2561):(2561,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,256):(2561,1)>, gmem, masked>
      layout.store %yh, %to : tensor<1x256xf16, #a>, !layout.tensor<f16, #layout.cute<(1,256):(2561,1)>, gmem, masked>
    }
  }
  func.return
}

// More threads (64) than a trip's chunks (32): the first 32 threads copy the groups
// (one chunk each), the others none (their waits wait for nothing; the trip's barrier
// shows them the chunks).
// CHECK-LABEL: func.func @ahead_few_chunks
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[ISS:.*]] = arith.constant 32 : index
// CHECK-NEXT:      %[[MINE:.*]] = arith.cmpi ult, %tid, %[[ISS]] : index
// CHECK-NEXT:      scf.if %[[MINE]] {
// CHECK:             layout.copy_chunk_async
// CHECK:         scf.for %{{.*}} iter_args
// CHECK:           layout.async_wait {pending = 7 : i64}
func.func @ahead_few_chunks(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,2561):(2561,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,2561):(2561,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant 0.0 : f16
    %zero32 = arith.constant 0.0 : f32
    %q0 = layout.splat %zero32 : f32 -> tensor<1xf32, #r2>
    %lo = arith.constant 0 : index
    %hi = arith.constant 11 : index
    %one = arith.constant 1 : index
    %q = scf.for %j = %lo to %hi step %one iter_args(%acc = %q0) -> (tensor<1xf32, #r2>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 256>} : !layout.tensor<f16, #layout.cute<(?,2561):(2561,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,256):(2561,1)>, gmem, masked>
      %x = layout.load %t, %zero : f16 : !layout.tensor<f16, #layout.cute<(1,256):(2561,1)>, gmem, masked> -> tensor<1x256xf16, #a2>
      %xf = arith.extf %x : tensor<1x256xf16, #a2> to tensor<1x256xf32, #a2>
      %s = layout.reduce %xf {axis = 1 : i64, kind = "add"} : tensor<1x256xf32, #a2> -> tensor<1xf32, #r2>
      %n = arith.addf %acc, %s : tensor<1xf32, #r2>
      scf.yield %n : tensor<1xf32, #r2>
    }
    %e = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf32, #r2> -> tensor<1x1xf32, #a2>
    %qb = layout.broadcast %e : tensor<1x1xf32, #a2> -> tensor<1x256xf32, #a2>
    scf.for %j = %lo to %hi step %one {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 256>} : !layout.tensor<f16, #layout.cute<(?,2561):(2561,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,256):(2561,1)>, gmem, masked>
      %x = layout.load %t, %zero : f16 : !layout.tensor<f16, #layout.cute<(1,256):(2561,1)>, gmem, masked> -> tensor<1x256xf16, #a2>
      %xf = arith.extf %x : tensor<1x256xf16, #a2> to tensor<1x256xf32, #a2>
      %y = arith.subf %xf, %qb : tensor<1x256xf32, #a2>
      %yh = arith.truncf %y : tensor<1x256xf32, #a2> to tensor<1x256xf16, #a2>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 256>} : !layout.tensor<f16, #layout.cute<(?,2561):(2561,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,256):(2561,1)>, gmem, masked>
      layout.store %yh, %to : tensor<1x256xf16, #a2>, !layout.tensor<f16, #layout.cute<(1,256):(2561,1)>, gmem, masked>
    }
  }
  func.return
}
