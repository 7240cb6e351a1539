// RUN: tilec %s -p 'choose-warps{stash_rows=true}' | filecheck %s
// RUN: tilec %s -p 'choose-warps{stash_rows=false}' | filecheck %s --check-prefix=OFF
// RUN: tilec %s -p 'choose-warps{stash_rows=true}' --check-equivalence --arg m=2 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'choose-warps{stash_rows=true},stash-rereads' | filecheck %s --check-prefix=STASH
// RUN: tilec %s -p 'choose-warps{stash_rows=true stash_partial=true}' | filecheck %s --check-prefix=PART
// RUN: tilec %s -p 'choose-warps{stash_rows=true stash_partial=true}' --check-equivalence --arg m=2 | filecheck %s --check-prefix=EQ
// EQ: @rows_of_20k: equivalent after
// EQ: @rows_of_100k: equivalent after
// EQ: @rows_of_256k: equivalent after
// EQ: @read_once: equivalent after
// `choose-warps{stash_rows}`: a launch that `stash-rereads` will give a window stash of
// S bytes (its row read once into shared memory) holds B = (227 KiB + 1 KiB) //
// (S + 2 KiB + 1 KiB) blocks a multiprocessor on sm_90, and gets 2048 / B threads (at
// most 32 warps, and at most a 16-byte vector of the chunk a thread) where the bytes
// rule gives fewer. Rows of 50257 f16 (a 100528-byte stash): B = 2, 2048 / 2 threads
// would be 32 warps, but 4096 f16 chunks keep 16 bytes a thread at 16; rows of 5000 f32
// (20000 bytes): B = 10, 4 warps (2048 / 10 threads: 6 warps, a power of two: 4), as the
// bytes rule's 4; a row read once: no stash.
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>
!G = !layout.tensor<f32, #layout.cute<(?,5000):(5000,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,1024):(5000,1)>, gmem, masked>
!H = !layout.tensor<f16, #layout.cute<(?,50257):(50257,1)>, gmem>
!HT = !layout.tensor<f16, #layout.cute<(1,4096):(50257,1)>, gmem, masked>
!K = !layout.tensor<f16, #layout.cute<(?,131072):(131072,1)>, gmem>
!KT = !layout.tensor<f16, #layout.cute<(1,4096):(131072,1)>, gmem, masked>

// CHECK-LABEL: func.func @rows_of_20k
// CHECK:         layout.launch grid(%m, %c1, %c1) threads(128) {
// OFF-LABEL: func.func @rows_of_20k
// OFF:         layout.launch grid(%m, %c1, %c1) threads(128) {
// STASH-LABEL: func.func @rows_of_20k
// STASH:         layout.alloc : !layout.tensor<f32, #layout.cute<(1,5000):(0,1)>, smem>
func.func @rows_of_20k(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant 0.0 : f32
    %q0 = layout.splat %zero : f32 -> tensor<1xf32, #r>
    %lo = arith.constant 0 : index
    %hi = arith.constant 5 : index
    %one = arith.constant 1 : index
    %q = scf.for %j = %lo to %hi step %one iter_args(%acc = %q0) -> (tensor<1xf32, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      %x = layout.load %t, %zero : f32 : !T -> tensor<1x1024xf32, #a>
      %s = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
      %n = arith.maximumf %acc, %s : tensor<1xf32, #r>
      scf.yield %n : tensor<1xf32, #r>
    }
    %e = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %qb = layout.broadcast %e : tensor<1x1xf32, #a> -> tensor<1x1024xf32, #a>
    scf.for %j = %lo to %hi step %one {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      %x = layout.load %t, %zero : f32 : !T -> tensor<1x1024xf32, #a>
      %y = arith.subf %x, %qb : tensor<1x1024xf32, #a>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      layout.store %y, %to : tensor<1x1024xf32, #a>, !T
    }
  }
  func.return
}

// CHECK-LABEL: func.func @rows_of_100k
// CHECK:         layout.launch grid(%m, %c1, %c1) threads(512) {
// CHECK:           tensor<1x4096xf16, #layout.auto<{rank = 2, warps = 16}>>
// OFF-LABEL: func.func @rows_of_100k
// OFF:         layout.launch grid(%m, %c1, %c1) threads(128) {
// STASH-LABEL: func.func @rows_of_100k
// STASH:         layout.launch grid(%m, %c1, %c1) threads(512) {
// STASH:           layout.alloc : !layout.tensor<f16, #layout.cute<(1,50264):(0,1)>, smem>
// STASH:           layout.copy_chunk_async
func.func @rows_of_100k(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 16> -> !H
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 16> -> !H
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant 0.0 : f16
    %q0 = layout.splat %zero : f16 -> tensor<1xf16, #r>
    %lo = arith.constant 0 : index
    %hi = arith.constant 13 : index
    %one = arith.constant 1 : index
    %q = scf.for %j = %lo to %hi step %one iter_args(%acc = %q0) -> (tensor<1xf16, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 4096>} : !H -> !HT
      %x = layout.load %t, %zero : f16 : !HT -> tensor<1x4096xf16, #a>
      %s = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x4096xf16, #a> -> tensor<1xf16, #r>
      %n = arith.maximumf %acc, %s : tensor<1xf16, #r>
      scf.yield %n : tensor<1xf16, #r>
    }
    %e = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf16, #r> -> tensor<1x1xf16, #a>
    %qb = layout.broadcast %e : tensor<1x1xf16, #a> -> tensor<1x4096xf16, #a>
    scf.for %j = %lo to %hi step %one {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 4096>} : !H -> !HT
      %x = layout.load %t, %zero : f16 : !HT -> tensor<1x4096xf16, #a>
      %y = arith.subf %x, %qb : tensor<1x4096xf16, #a>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 4096>} : !H -> !HT
      layout.store %y, %to : tensor<1x4096xf16, #a>, !HT
    }
  }
  func.return
}

// Rows of 131072 f16 (256 KiB) do not fit: no stash, the bytes rule's 4 warps, unless
// `stash_partial` (for `stash-rereads{partial=true}`, which stashes their first 28
// chunks of 4096: 224 KiB, one block a multiprocessor): 16 warps.
// CHECK-LABEL: func.func @rows_of_256k
// CHECK:         layout.launch grid(%m, %c1, %c1) threads(128) {
// PART-LABEL: func.func @rows_of_256k
// PART:         layout.launch grid(%m, %c1, %c1) threads(512) {
func.func @rows_of_256k(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 16> -> !K
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 16> -> !K
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant 0.0 : f16
    %q0 = layout.splat %zero : f16 -> tensor<1xf16, #r>
    %lo = arith.constant 0 : index
    %hi = arith.constant 32 : index
    %one = arith.constant 1 : index
    %q = scf.for %j = %lo to %hi step %one iter_args(%acc = %q0) -> (tensor<1xf16, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 4096>} : !K -> !KT
      %x = layout.load %t, %zero : f16 : !KT -> tensor<1x4096xf16, #a>
      %s = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x4096xf16, #a> -> tensor<1xf16, #r>
      %n = arith.maximumf %acc, %s : tensor<1xf16, #r>
      scf.yield %n : tensor<1xf16, #r>
    }
    %e = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf16, #r> -> tensor<1x1xf16, #a>
    %qb = layout.broadcast %e : tensor<1x1xf16, #a> -> tensor<1x4096xf16, #a>
    scf.for %j = %lo to %hi step %one {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 4096>} : !K -> !KT
      %x = layout.load %t, %zero : f16 : !KT -> tensor<1x4096xf16, #a>
      %y = arith.subf %x, %qb : tensor<1x4096xf16, #a>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 4096>} : !K -> !KT
      layout.store %y, %to : tensor<1x4096xf16, #a>, !KT
    }
  }
  func.return
}

// One loop over the chunks (a cumsum made by chunk-rows reads each chunk once): no
// stash, the bytes rule's 4 warps.
// CHECK-LABEL: func.func @read_once
// OFF-LABEL: func.func @read_once
// OFF:         layout.launch grid(%m, %c1, %c1) threads(128) {
// CHECK:         layout.launch grid(%m, %c1, %c1) threads(128) {
// STASH-LABEL: func.func @read_once
// STASH-NOT:     layout.alloc
// STASH:         func.return
func.func @read_once(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant 0.0 : f32
    %lo = arith.constant 0 : index
    %hi = arith.constant 5 : index
    %one = arith.constant 1 : index
    scf.for %j = %lo to %hi step %one {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      %x = layout.load %t, %zero : f32 : !T -> tensor<1x1024xf32, #a>
      %y = arith.addf %x, %x : tensor<1x1024xf32, #a>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      layout.store %y, %to : tensor<1x1024xf32, #a>, !T
    }
  }
  func.return
}
