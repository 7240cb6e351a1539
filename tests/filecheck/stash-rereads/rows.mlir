// RUN: tilec %s -p stash-rereads | filecheck %s
// RUN: tilec %s -p stash-rereads,stash-rereads | filecheck %s
// RUN: tilec %s -p 'stash-rereads{max_bytes=16384}' | filecheck %s --check-prefix=SMALL
// RUN: tilec %s -p stash-rereads --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'stash-rereads{max_bytes=16384}' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p reread-order,stash-rereads --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'stash-rereads,choose-warps,coalesce,vectorize,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p 'stash-rereads{max_bytes=-1}' 2>&1 | filecheck %s --check-prefix=ERR
// EQ: @two_pass_f16: equivalent after
// EQ: @two_pass_f32: equivalent after
// EQ: @other_differs_stays: equivalent after
// EQ: @in_place_stays: equivalent after
// ERR: stash-rereads: max_bytes=-1 must be at least 0
// `stash-rereads`: the second of two loops over a row's chunks that load the same tiles
// (softmax's running max and sum, then its outputs) takes them from a shared-memory
// stash that the first loop fills: rows of 5000 in 5 chunks of 1024, the last partial
// (elements past the row are the loads' `other`, -inf, and are stored into the stash
// whole: a stash of 5 x 1024 elements, never masked). A barrier orders the stash's
// stores before the second loop's loads. f16 rows: 10 KiB; f32: 20 KiB, more than a
// `max_bytes` of 16 KiB, so that row stays as it was (SMALL).
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>
!G = !layout.tensor<f16, #layout.cute<(?,5000):(5000,1)>, gmem>
!T = !layout.tensor<f16, #layout.cute<(1,1024):(5000,1)>, gmem, masked>
!G32 = !layout.tensor<f32, #layout.cute<(?,5000):(5000,1)>, gmem>
!T32 = !layout.tensor<f32, #layout.cute<(1,1024):(5000,1)>, gmem, masked>

// CHECK-LABEL: func.func @two_pass_f16
// CHECK:         %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[S:.*]] = layout.alloc : !layout.tensor<f16, #layout.cute<(1,5120):(0,1)>, smem>
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:           %[[X:.*]] = layout.load %{{.*}}, %{{.*}} : f16 : !layout.tensor<f16, #layout.cute<(1,1024):(5000,1)>, gmem, masked>
// CHECK-NEXT:      %[[ST:.*]] = layout.tile %[[S]][%[[Z]], %[[J]]] {tile = array<i64: 1, 1024>}
// CHECK-NEXT:      layout.store %[[X]], %[[ST]] : tensor<1x1024xf16, #layout.auto<{rank = 2, warps = 4}>>, !layout.tensor<f16, #layout.cute<(1,1024):(0,1)>, smem>
// CHECK:           scf.yield
// CHECK:         layout.barrier
// CHECK-NEXT:    scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[LT:.*]] = layout.tile %[[S]][%[[Z]], %[[K]]] {tile = array<i64: 1, 1024>}
// CHECK-NEXT:      layout.load %[[LT]] : !layout.tensor<f16, #layout.cute<(1,1024):(0,1)>, smem>
// CHECK-NOT:       gmem, masked> -> tensor
// CHECK:           layout.store %{{.*}}, %{{.*}} : tensor<1x1024xf16, {{.*}}>, !layout.tensor<f16, #layout.cute<(1,1024):(5000,1)>, gmem, masked>
// SMALL-LABEL: func.func @two_pass_f16
// SMALL:         layout.alloc : !layout.tensor<f16, #layout.cute<(1,5120):(0,1)>, smem>
func.func @two_pass_f16(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ninf = arith.constant 0xFC00 : f16
    %ninf32 = arith.constant 0xFF800000 : f32
    %q0 = layout.splat %ninf32 : f32 -> tensor<1xf32, #r>
    %lo = arith.constant 0 : index
    %hi = arith.constant 5 : index
    %one = arith.constant 1 : index
    %q = scf.for %j = %lo to %hi step %one iter_args(%acc = %q0) -> (tensor<1xf32, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      %x = layout.load %t, %ninf : f16 : !T -> tensor<1x1024xf16, #a>
      %xf = arith.extf %x : tensor<1x1024xf16, #a> to tensor<1x1024xf32, #a>
      %s = layout.reduce %xf {axis = 1 : i64, kind = "max"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
      %n = arith.maximumf %acc, %s : tensor<1xf32, #r>
      scf.yield %n : tensor<1xf32, #r>
    }
    %e = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %qb = layout.broadcast %e : tensor<1x1xf32, #a> -> tensor<1x1024xf32, #a>
    %ninf2 = arith.constant 0xFC00 : f16
    scf.for %j = %lo to %hi step %one {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      %x = layout.load %t, %ninf2 : f16 : !T -> tensor<1x1024xf16, #a>
      %xf = arith.extf %x : tensor<1x1024xf16, #a> to tensor<1x1024xf32, #a>
      %y = arith.subf %xf, %qb : tensor<1x1024xf32, #a>
      %yh = arith.truncf %y : tensor<1x1024xf32, #a> to tensor<1x1024xf16, #a>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      layout.store %yh, %to : tensor<1x1024xf16, #a>, !T
    }
  }
  func.return
}

// CHECK-LABEL: func.func @two_pass_f32
// CHECK:         layout.alloc : !layout.tensor<f32, #layout.cute<(1,5120):(0,1)>, smem>
// CHECK:         layout.barrier
// SMALL-LABEL: func.func @two_pass_f32
// SMALL-NOT:     layout.alloc
// SMALL-NOT:     layout.barrier
// SMALL:         func.return
func.func @two_pass_f32(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G32
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G32
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant 0.0 : f32
    %q0 = layout.splat %zero : f32 -> tensor<1xf32, #r>
    %lo = arith.constant 0 : index
    %hi = arith.constant 5 : index
    %one = arith.constant 1 : index
    %q = scf.for %j = %lo to %hi step %one iter_args(%acc = %q0) -> (tensor<1xf32, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G32 -> !T32
      %x = layout.load %t, %zero : f32 : !T32 -> tensor<1x1024xf32, #a>
      %s = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
      %n = arith.maximumf %acc, %s : tensor<1xf32, #r>
      scf.yield %n : tensor<1xf32, #r>
    }
    %e = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %qb = layout.broadcast %e : tensor<1x1xf32, #a> -> tensor<1x1024xf32, #a>
    scf.for %j = %lo to %hi step %one {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G32 -> !T32
      %x = layout.load %t, %zero : f32 : !T32 -> tensor<1x1024xf32, #a>
      %y = arith.subf %x, %qb : tensor<1x1024xf32, #a>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 1024>} : !G32 -> !T32
      layout.store %y, %to : tensor<1x1024xf32, #a>, !T32
    }
  }
  func.return
}

// The second loop reads past the row as 1.0, the first as 0.0: the stash would give
// the first's, so the program stays.
// CHECK-LABEL: func.func @other_differs_stays
// CHECK-NOT:     layout.alloc
// CHECK-NOT:     layout.barrier
// CHECK:         func.return
func.func @other_differs_stays(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G32
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G32
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant 0.0 : f32
    %onef = arith.constant 1.0 : f32
    %q0 = layout.splat %zero : f32 -> tensor<1xf32, #r>
    %lo = arith.constant 0 : index
    %hi = arith.constant 5 : index
    %one = arith.constant 1 : index
    %q = scf.for %j = %lo to %hi step %one iter_args(%acc = %q0) -> (tensor<1xf32, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G32 -> !T32
      %x = layout.load %t, %zero : f32 : !T32 -> tensor<1x1024xf32, #a>
      %s = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
      %n = arith.maximumf %acc, %s : tensor<1xf32, #r>
      scf.yield %n : tensor<1xf32, #r>
    }
    %e = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %qb = layout.broadcast %e : tensor<1x1xf32, #a> -> tensor<1x1024xf32, #a>
    scf.for %j = %lo to %hi step %one {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G32 -> !T32
      %x = layout.load %t, %onef : f32 : !T32 -> tensor<1x1024xf32, #a>
      %y = arith.subf %x, %qb : tensor<1x1024xf32, #a>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 1024>} : !G32 -> !T32
      layout.store %y, %to : tensor<1x1024xf32, #a>, !T32
    }
  }
  func.return
}

// Stored in place (the view the loops read): the stash could differ from memory, stays.
// CHECK-LABEL: func.func @in_place_stays
// CHECK-NOT:     layout.alloc
// CHECK-NOT:     layout.barrier
// CHECK:         func.return
func.func @in_place_stays(%src: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G32
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant 0.0 : f32
    %q0 = layout.splat %zero : f32 -> tensor<1xf32, #r>
    %lo = arith.constant 0 : index
    %hi = arith.constant 5 : index
    %one = arith.constant 1 : index
    %q = scf.for %j = %lo to %hi step %one iter_args(%acc = %q0) -> (tensor<1xf32, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G32 -> !T32
      %x = layout.load %t, %zero : f32 : !T32 -> tensor<1x1024xf32, #a>
      %s = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
      %n = arith.maximumf %acc, %s : tensor<1xf32, #r>
      scf.yield %n : tensor<1xf32, #r>
    }
    %e = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %qb = layout.broadcast %e : tensor<1x1xf32, #a> -> tensor<1x1024xf32, #a>
    scf.for %j = %lo to %hi step %one {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G32 -> !T32
      %x = layout.load %t, %zero : f32 : !T32 -> tensor<1x1024xf32, #a>
      %y = arith.subf %x, %qb : tensor<1x1024xf32, #a>
      layout.store %y, %t : tensor<1x1024xf32, #a>, !T32
    }
  }
  func.return
}
