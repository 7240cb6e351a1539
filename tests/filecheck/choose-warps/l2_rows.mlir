// RUN: tilec %s -p 'choose-warps{l2_rows=true}' | filecheck %s
// RUN: tilec %s -p 'choose-warps{stash_rows=false}' | filecheck %s --check-prefix=OFF
// RUN: tilec %s -p 'choose-warps{l2_rows=true}' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'choose-warps{l2_rows=true}' --print-between-passes 2>&1 | filecheck %s --check-prefix=SHOW
// EQ: @rows_of_20k: equivalent after
// EQ: @rows_of_100k: equivalent after
// EQ: @read_once: equivalent after
// SHOW: // -----// IR after choose-warps //----- //
// SHOW: layout.launch grid(%m, %c1, %c1) threads(256) {
// `choose-warps{l2_rows}`: a launch whose second loop over a row's chunks reads again
// the chunks its first loop read gets warps enough that its rows in flight (132
// multiprocessors x 2048 / threads blocks, a row each) take at most half of sm_90's 50
// MiB of L2 (26.2 MB). Rows of 5 x 1024 f32 (20 KiB): at the bytes rule's 4 warps 16
// blocks a multiprocessor keep 132 x 16 x 20 KiB = 43 MB of rows in flight; at 8 warps
// 21.6 MB.
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>
!G = !layout.tensor<f32, #layout.cute<(?,5000):(5000,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,1024):(5000,1)>, gmem, masked>
!H = !layout.tensor<f16, #layout.cute<(?,50257):(50257,1)>, gmem>
!HT = !layout.tensor<f16, #layout.cute<(1,4096):(50257,1)>, gmem, masked>

// CHECK-LABEL: func.func @rows_of_20k
// CHECK:         layout.launch grid(%m, %c1, %c1) threads(256) {
// CHECK:           tensor<1x1024xf32, #layout.auto<{rank = 2, warps = 8}>>
// OFF-LABEL: func.func @rows_of_20k
// OFF:         layout.launch grid(%m, %c1, %c1) threads(128) {
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

// Rows of 50257 f16 in 13 chunks of 4096 (106 KB read twice): 32 warps, the most (264
// rows in flight, 28 MB: the most a block can do).
// CHECK-LABEL: func.func @rows_of_100k
// CHECK:         layout.launch grid(%m, %c1, %c1) threads(1024) {
// OFF-LABEL: func.func @rows_of_100k
// OFF:         layout.launch grid(%m, %c1, %c1) threads(128) {
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

// One loop over the chunks (a cumsum made by chunk-rows reads each chunk once): the
// bytes rule's 4 warps.
// CHECK-LABEL: func.func @read_once
// OFF-LABEL: func.func @read_once
// OFF:         layout.launch grid(%m, %c1, %c1) threads(128) {
// CHECK:         layout.launch grid(%m, %c1, %c1) threads(128) {
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
