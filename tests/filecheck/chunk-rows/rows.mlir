// RUN: tilec %s -p 'chunk-rows{max_row=1024 chunk=256}' | filecheck %s
// RUN: tilec %s -p 'chunk-rows{max_row=1024 chunk=256}' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'expand-iterators,tile,order-grid,tma,distribute,chunk-rows{max_row=1024 chunk=256},pack-rows,coalesce,vectorize,vectorize-pointers,vectorize-element-loops,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p 'chunk-rows{chunk=100}' 2>&1 | filecheck %s --check-prefix=ERR
// EQ: @cumsum_long: equivalent after
// EQ: @max_scan_scaled: equivalent after
// EQ: @int_max_min_scans: equivalent after
// EQ: @two_scans: equivalent after
// EQ: @short_rows_stay: equivalent after
// EQ: @reduce_stays: equivalent after
// EQ: @explicit_layout_stays: equivalent after
// ERR: chunk-rows: chunk=100 must be a power of two
// `chunk-rows` makes a row-wise kernel whose row tile is longer than registers hold (here
// more than 1024 elements) a loop over chunks (here of 256), each scan carrying the
// combination of the chunks before it. Integer sums and float maxima are exact in any
// order, so the equivalence runs compare exactly.
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>
!G = !layout.tensor<i32, #layout.cute<(?,1500):(1500,1)>, gmem>
!T = !layout.tensor<i32, #layout.cute<(1,2048):(1500,1)>, gmem, masked>
!F = !layout.tensor<f32, #layout.cute<(?,1500):(1500,1)>, gmem>
!FT = !layout.tensor<f32, #layout.cute<(1,2048):(1500,1)>, gmem, masked>

// A cumsum of rows of 1500 i32 under a 2048 tile: ceil(1500 / 256) = 6 chunks (not
// 2048 / 256: the chunks past the row would be all mask), the running sum carried from
// 0; each chunk's scan plus the carry broadcast over it; the carry plus the chunk's sum.
// CHECK-LABEL: func.func @cumsum_long
// CHECK:         %[[LO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[HI:.*]] = arith.constant 6 : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[INIT:.*]] = layout.splat %[[ZERO]] : i32 -> tensor<1xi32, #layout.slice<{dim = 1, parent = #layout.auto<{rank = 2, warps = 4}>}>>
// CHECK-NEXT:    scf.for %[[J:.*]] = %[[LO]] to %[[HI]] step %[[ONE]] iter_args(%[[C:.*]] = %[[INIT]])
// CHECK:           layout.tile %a[%bx, %[[J]]] {tile = array<i64: 1, 256>}
// CHECK:           %[[S:.*]] = layout.scan %{{.*}} {axis = 1 : i64, kind = "add"} : tensor<1x256xi32
// CHECK-NEXT:      %[[SUM:.*]] = layout.reduce %{{.*}} {axis = 1 : i64, kind = "add"}
// CHECK-NEXT:      %[[E:.*]] = layout.expand_dims %[[C]] {axis = 1 : i64}
// CHECK-NEXT:      %[[B:.*]] = layout.broadcast %[[E]] : tensor<1x1xi32, {{.*}} -> tensor<1x256xi32
// CHECK-NEXT:      %[[Y:.*]] = arith.addi %[[S]], %[[B]]
// CHECK-NEXT:      %[[N:.*]] = arith.addi %[[C]], %[[SUM]]
// CHECK:           layout.store %[[Y]]
// CHECK:           scf.yield %[[N]]
func.func @cumsum_long(%src: !layout.ptr<i32, align 16>, %dst: !layout.ptr<i32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<i32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<i32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 2048>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 2048>} : !G -> !T
    %x = layout.load %ta : !T -> tensor<1x2048xi32, #a>
    %y = layout.scan %x {axis = 1 : i64, kind = "add"} : tensor<1x2048xi32, #a>
    layout.store %y, %tb : tensor<1x2048xi32, #a>, !T
  }
  func.return
}

// A running maximum of 2x (f32): elementwise math before the scan is chunked with it;
// the carry starts at -inf and combines with maximumf.
// CHECK-LABEL: func.func @max_scan_scaled
// CHECK:         arith.constant 0xff800000 : f32
// CHECK:         scf.for
// CHECK:           arith.constant dense<2.000000e+00> : tensor<1x256xf32
// CHECK:           arith.mulf {{.*}} : tensor<1x256xf32
// CHECK:           layout.scan {{.*}} kind = "max"
// CHECK:           arith.maximumf {{.*}} : tensor<1x256xf32
// CHECK:           arith.maximumf {{.*}} : tensor<1xf32
func.func @max_scan_scaled(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !F
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !F
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 2048>} : !F -> !FT
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 2048>} : !F -> !FT
    %ninf = arith.constant 0xFF800000 : f32
    %x = layout.load %ta, %ninf : f32 : !FT -> tensor<1x2048xf32, #a>
    %two = arith.constant dense<2.0> : tensor<1x2048xf32, #a>
    %x2 = arith.mulf %x, %two : tensor<1x2048xf32, #a>
    %y = layout.scan %x2 {axis = 1 : i64, kind = "max"} : tensor<1x2048xf32, #a>
    layout.store %y, %tb : tensor<1x2048xf32, #a>, !FT
  }
  func.return
}

// Integer maxima and minima: the carries start at the smallest and the largest i32
// (a larger start would hide the maxima of rows whose elements are all below it).
// CHECK-LABEL: func.func @int_max_min_scans
// CHECK-DAG:     arith.constant -2147483648 : i32
// CHECK-DAG:     arith.constant 2147483647 : i32
// CHECK:         scf.for
// CHECK:           layout.scan {{.*}} kind = "max"
// CHECK:           layout.scan {{.*}} kind = "min"
func.func @int_max_min_scans(%src: !layout.ptr<i32, align 16>, %dst: !layout.ptr<i32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<i32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<i32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 2048>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 2048>} : !G -> !T
    %x = layout.load %ta : !T -> tensor<1x2048xi32, #a>
    %y = layout.scan %x {axis = 1 : i64, kind = "max"} : tensor<1x2048xi32, #a>
    %z = layout.scan %y {axis = 1 : i64, kind = "min"} : tensor<1x2048xi32, #a>
    layout.store %z, %tb : tensor<1x2048xi32, #a>, !T
  }
  func.return
}

// A scan of a scan (the sum of prefix sums): each carries its own value.
// CHECK-LABEL: func.func @two_scans
// CHECK:         scf.for {{.*}} iter_args({{.*}}, {{.*}}) -> (tensor<1xi32, {{.*}}>, tensor<1xi32, {{.*}}>)
// CHECK-COUNT-2:   layout.scan
// CHECK:           scf.yield {{.*}}, {{.*}} :
func.func @two_scans(%src: !layout.ptr<i32, align 16>, %dst: !layout.ptr<i32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<i32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<i32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 2048>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 2048>} : !G -> !T
    %x = layout.load %ta : !T -> tensor<1x2048xi32, #a>
    %y = layout.scan %x {axis = 1 : i64, kind = "add"} : tensor<1x2048xi32, #a>
    %z = layout.scan %y {axis = 1 : i64, kind = "add"} : tensor<1x2048xi32, #a>
    layout.store %z, %tb : tensor<1x2048xi32, #a>, !T
  }
  func.return
}

// Rows of at most max-row elements stay as written.
// CHECK-LABEL: func.func @short_rows_stay
// CHECK-NOT:     scf.for
// CHECK:         layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>}
!S = !layout.tensor<i32, #layout.cute<(?,1000):(1000,1)>, gmem>
!ST = !layout.tensor<i32, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
func.func @short_rows_stay(%src: !layout.ptr<i32, align 16>, %dst: !layout.ptr<i32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<i32, align 16> -> !S
  %b = layout.view %dst(%m) : !layout.ptr<i32, align 16> -> !S
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !S -> !ST
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !S -> !ST
    %x = layout.load %ta : !ST -> tensor<1x1024xi32, #a>
    %y = layout.scan %x {axis = 1 : i64, kind = "add"} : tensor<1x1024xi32, #a>
    layout.store %y, %tb : tensor<1x1024xi32, #a>, !ST
  }
  func.return
}

// A reduction needs another algorithm in chunks (the program's to write): it stays.
// CHECK-LABEL: func.func @reduce_stays
// CHECK-NOT:     scf.for
// CHECK:         layout.tile %a[%bx, %c0] {tile = array<i64: 1, 2048>}
func.func @reduce_stays(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !F
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !F
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 2048>} : !F -> !FT
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 2048>} : !F -> !FT
    %ninf = arith.constant 0xFF800000 : f32
    %x = layout.load %ta, %ninf : f32 : !FT -> tensor<1x2048xf32, #a>
    %mx = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x2048xf32, #a> -> tensor<1xf32, #r>
    %e = layout.expand_dims %mx {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %mb = layout.broadcast %e : tensor<1x1xf32, #a> -> tensor<1x2048xf32, #a>
    %y = arith.subf %x, %mb : tensor<1x2048xf32, #a>
    layout.store %y, %tb : tensor<1x2048xf32, #a>, !FT
  }
  func.return
}

// A layout the program wrote is the program's: the launch stays.
// CHECK-LABEL: func.func @explicit_layout_stays
// CHECK-NOT:     scf.for
// CHECK:         layout.tile %a[%bx, %c0] {tile = array<i64: 1, 2048>}
#bl = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
func.func @explicit_layout_stays(%src: !layout.ptr<i32, align 16>, %dst: !layout.ptr<i32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<i32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<i32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 2048>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 2048>} : !G -> !T
    %x = layout.load %ta : !T -> tensor<1x2048xi32, #bl>
    %y = layout.scan %x {axis = 1 : i64, kind = "add"} : tensor<1x2048xi32, #bl>
    layout.store %y, %tb : tensor<1x2048xi32, #bl>, !T
  }
  func.return
}
