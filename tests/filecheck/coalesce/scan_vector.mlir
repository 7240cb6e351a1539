// RUN: tilec %s -p 'coalesce{scan_vector=true},vectorize' | filecheck %s
// RUN: tilec %s -p 'coalesce,vectorize' | filecheck %s
// RUN: tilec %s -p 'coalesce{scan_vector=true},vectorize' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'coalesce{scan_vector=true},vectorize,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'coalesce{scan_vector=false}' | filecheck %s --check-prefix=OFF
// RUN: tilec %s -p 'coalesce{scan_vector=true},vectorize,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize' -t cuda | filecheck %s --check-prefix=CUDA
// EQ: @cumsum_odd_rows: equivalent after
// EQ: @cumsum_aligned_rows: equivalent after
// EQ: @sum_odd_rows: equivalent after
// `scan_vector`: a tensor scanned along its rows gets the width an aligned row would get
// (16 bytes a thread: 4 i32) even where its rows are only 4-byte aligned (1001 elements);
// the scalar load and store then move it in a coalesced layout of their own, with a
// convert_layout (a shared-memory round trip) to and from the scan's. Integer sums are
// exact in any order, so the equivalence runs compare exactly.
#a = #layout.auto<{rank = 2, warps = 4}>
!G = !layout.tensor<i32, #layout.cute<(?,1001):(1001,1)>, gmem>
!T = !layout.tensor<i32, #layout.cute<(1,1024):(1001,1)>, gmem, masked>

// CHECK-LABEL: func.func @cumsum_odd_rows
// CHECK:         %[[X:.*]] = layout.load %{{.*}} -> tensor<1x1024xi32, #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
// CHECK-NEXT:    %[[W:.*]] = layout.convert_layout %[[X]] : {{.*}} -> tensor<1x1024xi32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
// CHECK-NEXT:    %[[S:.*]] = layout.scan %[[W]] {axis = 1 : i64, kind = "add"} : tensor<1x1024xi32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    %[[N:.*]] = layout.convert_layout %[[S]] : {{.*}} -> tensor<1x1024xi32, #layout.blocked<{sizePerThread = [1, 1]
// CHECK-NEXT:    layout.store %[[N]], %{{.*}} : tensor<1x1024xi32, #layout.blocked<{sizePerThread = [1, 1]
// OFF-LABEL: func.func @cumsum_odd_rows
// OFF-NOT:       layout.convert_layout
// OFF:           layout.scan %{{.*}} : tensor<1x1024xi32, #layout.blocked<{sizePerThread = [1, 1]
// CUDA-LABEL: cumsum_odd_rows
// CUDA:         convert_layout via smem
func.func @cumsum_odd_rows(%src: !layout.ptr<i32, align 16>, %dst: !layout.ptr<i32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<i32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<i32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !G -> !T
    %x = layout.load %ta : !T -> tensor<1x1024xi32, #a>
    %y = layout.scan %x {axis = 1 : i64, kind = "add"} : tensor<1x1024xi32, #a>
    layout.store %y, %tb : tensor<1x1024xi32, #a>, !T
  }
  func.return
}

// Rows 16-byte aligned (1000 i32): the accesses are as wide as the scan's layout; no
// conversion.
// CHECK-LABEL: func.func @cumsum_aligned_rows
// CHECK-NOT:     layout.convert_layout
// CHECK:         layout.scan %{{.*}} : tensor<1x1024xi32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NOT:     layout.convert_layout
// CHECK:         func.return
func.func @cumsum_aligned_rows(%src: !layout.ptr<i32, align 16>, %dst: !layout.ptr<i32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<i32, align 16> -> !layout.tensor<i32, #layout.cute<(?,1000):(1000,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<i32, align 16> -> !layout.tensor<i32, #layout.cute<(?,1000):(1000,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<i32, #layout.cute<(?,1000):(1000,1)>, gmem> -> !layout.tensor<i32, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<i32, #layout.cute<(?,1000):(1000,1)>, gmem> -> !layout.tensor<i32, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
    %x = layout.load %ta : !layout.tensor<i32, #layout.cute<(1,1024):(1000,1)>, gmem, masked> -> tensor<1x1024xi32, #a>
    %y = layout.scan %x {axis = 1 : i64, kind = "add"} : tensor<1x1024xi32, #a>
    layout.store %y, %tb : tensor<1x1024xi32, #a>, !layout.tensor<i32, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
  }
  func.return
}

// No scan (a row sum): the layout stays as wide as the accesses.
// CHECK-LABEL: func.func @sum_odd_rows
// CHECK-NOT:     layout.convert_layout
// CHECK:         layout.reduce %{{.*}} : tensor<1x1024xi32, #layout.blocked<{sizePerThread = [1, 1]
func.func @sum_odd_rows(%src: !layout.ptr<i32, align 16>, %dst: !layout.ptr<i32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<i32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<i32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !G -> !T
    %x = layout.load %ta : !T -> tensor<1x1024xi32, #a>
    %s = layout.reduce %x {axis = 1 : i64, kind = "add"} : tensor<1x1024xi32, #a> -> tensor<1xi32, #layout.slice<{dim = 1, parent = #a}>>
    %e = layout.expand_dims %s {axis = 1 : i64} : tensor<1xi32, #layout.slice<{dim = 1, parent = #a}>> -> tensor<1x1xi32, #a>
    %y = layout.broadcast %e : tensor<1x1xi32, #a> -> tensor<1x1024xi32, #a>
    layout.store %y, %tb : tensor<1x1024xi32, #a>, !T
  }
  func.return
}
