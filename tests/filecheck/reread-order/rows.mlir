// RUN: tilec %s -p reread-order | filecheck %s
// RUN: tilec %s -p reread-order,reread-order | filecheck %s
// RUN: tilec %s -p reread-order --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'reread-order,choose-warps{l2_rows=true},coalesce,vectorize,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p reread-order --print-between-passes 2>&1 | filecheck %s --check-prefix=SHOW
// RUN: tilec %s -p 'reread-order,choose-warps{l2_rows=true}' | filecheck %s --check-prefix=L2
// EQ: @two_pass: equivalent after
// EQ: @carried_stays: equivalent after
// EQ: @in_place_stays: equivalent after
// EQ: @other_bounds_stays: equivalent after
// SHOW: // -----// IR after reread-order //----- //
// SHOW: arith.subi %{{.*}}, %{{.*}} : index
// `reread-order`: the second of two loops over a row's chunks that load the same tiles
// (a norm's statistics, then its outputs; here a row's largest square scales it) runs backwards, reading first the chunks the
// first loop read last (what L2 still holds): its body takes 4 - j for j (5 chunks of
// 1024 of rows of 5000). Each trip computes and stores its own chunk as before, so the
// results are the same bit for bit (maxima and minima: exact in any order, also after
// the lowering).
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>
#c = #layout.slice<{dim = 0, parent = #a}>
!G = !layout.tensor<f32, #layout.cute<(?,5000):(5000,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,1024):(5000,1)>, gmem, masked>
!W = !layout.tensor<f32, #layout.cute<5000:1>, gmem>
!WT = !layout.tensor<f32, #layout.cute<1024:1>, gmem, masked>

// A reversed loop still reads the first loop's chunks (the same trips, backwards), so
// `choose-warps{l2_rows}` after this pass sees the 20 KB re-read row and gives it 8 warps.
// L2-LABEL: func.func @two_pass
// L2:         layout.launch grid(%{{.*}}) threads(256)
// CHECK-LABEL: func.func @two_pass
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-NOT:       arith.subi
// CHECK:           scf.yield
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[LAST:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %[[R:.*]] = arith.subi %[[LAST]], %[[J]] : index
// CHECK-NEXT:      layout.tile %a[%bx, %[[R]]]
// CHECK:           layout.tile %w[%[[R]]]
// CHECK:           layout.tile %b[%bx, %[[R]]]
func.func @two_pass(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %weight: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G
  %w = layout.view %weight : !layout.ptr<f32, align 16> -> !W
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
      %x2 = arith.mulf %x, %x : tensor<1x1024xf32, #a>
      %s = layout.reduce %x2 {axis = 1 : i64, kind = "max"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
      %n = arith.maximumf %acc, %s : tensor<1xf32, #r>
      scf.yield %n : tensor<1xf32, #r>
    }
    %e = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %qb = layout.broadcast %e : tensor<1x1xf32, #a> -> tensor<1x1024xf32, #a>
    %lo2 = arith.constant 0 : index
    %hi2 = arith.constant 5 : index
    %one2 = arith.constant 1 : index
    scf.for %j = %lo2 to %hi2 step %one2 {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      %x = layout.load %t, %zero : f32 : !T -> tensor<1x1024xf32, #a>
      %tw = layout.tile %w[%j] {tile = array<i64: 1024>} : !W -> !WT
      %wv = layout.load %tw : !WT -> tensor<1024xf32, #c>
      %we = layout.expand_dims %wv {axis = 0 : i64} : tensor<1024xf32, #c> -> tensor<1x1024xf32, #a>
      %wb = layout.broadcast %we : tensor<1x1024xf32, #a> -> tensor<1x1024xf32, #a>
      %y = arith.mulf %x, %qb : tensor<1x1024xf32, #a>
      %z = arith.mulf %y, %wb : tensor<1x1024xf32, #a>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      layout.store %z, %to : tensor<1x1024xf32, #a>, !T
    }
  }
  func.return
}

// A second loop with a loop-carried value (a running sum written per chunk) stays.
// L2-LABEL: func.func @carried_stays
// CHECK-LABEL: func.func @carried_stays
// CHECK-NOT:     arith.subi
// CHECK:         func.return
func.func @carried_stays(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
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
    %p = scf.for %j = %lo to %hi step %one iter_args(%acc = %q) -> (tensor<1xf32, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      %x = layout.load %t, %zero : f32 : !T -> tensor<1x1024xf32, #a>
      %s = layout.reduce %x {axis = 1 : i64, kind = "min"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
      %n = arith.subf %acc, %s : tensor<1xf32, #r>
      %e = layout.expand_dims %n {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
      %nb = layout.broadcast %e : tensor<1x1xf32, #a> -> tensor<1x1024xf32, #a>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      layout.store %nb, %to : tensor<1x1024xf32, #a>, !T
      scf.yield %n : tensor<1xf32, #r>
    }
  }
  func.return
}

// Stored in place (the view the loops read): stays.
// CHECK-LABEL: func.func @in_place_stays
// CHECK-NOT:     arith.subi
// CHECK:         func.return
func.func @in_place_stays(%src: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
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
      layout.store %y, %t : tensor<1x1024xf32, #a>, !T
    }
  }
  func.return
}

// Loops over other trips (the second reads 4 chunks of the first's 5): stays.
// CHECK-LABEL: func.func @other_bounds_stays
// CHECK-NOT:     arith.subi
// CHECK:         func.return
func.func @other_bounds_stays(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant 0.0 : f32
    %q0 = layout.splat %zero : f32 -> tensor<1xf32, #r>
    %lo = arith.constant 0 : index
    %hi = arith.constant 5 : index
    %hi4 = arith.constant 4 : index
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
    scf.for %j = %lo to %hi4 step %one {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      %x = layout.load %t, %zero : f32 : !T -> tensor<1x1024xf32, #a>
      %y = arith.subf %x, %qb : tensor<1x1024xf32, #a>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      layout.store %y, %to : tensor<1x1024xf32, #a>, !T
    }
  }
  func.return
}
