// RUN: tilec %s -p stash-rereads | filecheck %s
// RUN: tilec %s -p stash-rereads,stash-rereads | filecheck %s
// RUN: tilec %s -p 'stash-rereads{window=false}' | filecheck %s --check-prefix=LOOP
// RUN: tilec %s -p stash-rereads --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p stash-rereads --check-equivalence --arg m=1 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'stash-rereads,coalesce,vectorize,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'stash-rereads{ahead=false}' | filecheck %s --check-prefix=ONE
// RUN: tilec %s -p 'stash-rereads{ahead=false}' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'stash-rereads{max_bytes=8000 partial=true}' | filecheck %s --check-prefix=PART
// RUN: tilec %s -p 'stash-rereads{max_bytes=8000 partial=true}' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'stash-rereads{max_bytes=8000}' | filecheck %s --check-prefix=NONE
// EQ: @window_f16: equivalent after
// EQ: @window_f32_static: equivalent after
// `stash-rereads` on a launch whose threads are known (after `choose-warps`), where the
// re-read view is a row-major (M, N):(N, 1) view of a pointer tiled [1, chunk] at the
// block id that runs over M: the window fill. Before anything else the block's threads
// copy its row into the stash by 16-byte cp.async chunks (`layout.copy_chunk_async`) of
// the row's address-aligned window (from its first element rounded down to 16 bytes:
// rows of 5001 f16 start at any 2-byte offset), the row's elements past the buffer's
// last whole chunk one at a time (the last row's tail); the first loop waits, trip by
// trip, for the chunks it reads (here the window's first chunk, its 4 groups of 1024
// elements and the rest are all in flight before the loop, so its first trip waits for
// all of them and meets a barrier: ahead.mlir has rows longer than the groups in
// flight); both loops then load the stash through a (1, N) view at the row's misalignment in the
// window (`layout.slice` of a (K, 1, N):(1, 0, 1) re-view), masked as the global tiles
// were. With `window=false` the first loop fills the stash as it loads (LOOP).
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>
!G = !layout.tensor<f16, #layout.cute<(?,5001):(5001,1)>, gmem>
!T = !layout.tensor<f16, #layout.cute<(1,1024):(5001,1)>, gmem, masked>
!G32 = !layout.tensor<f32, #layout.cute<(6,5001):(5001,1)>, gmem>
!T32 = !layout.tensor<f32, #layout.cute<(1,1024):(5001,1)>, gmem, masked>

// CHECK-LABEL: func.func @window_f16
// CHECK:         %[[N:.*]] = arith.constant 5001 : index
// CHECK-NEXT:    %[[MN:.*]] = arith.muli %m, %[[N]] : index
// CHECK-NEXT:    %[[FLAT:.*]] = layout.view %src(%[[MN]]) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?):(1)>, gmem>
// CHECK:         layout.launch grid(%m, %{{.*}}, %{{.*}}) threads(128) {
// CHECK-NEXT:    ^{{.*}}(%[[BX:.*]]: index, %{{.*}}: index, %{{.*}}: index, %[[TID:.*]]: index):
// CHECK:           %[[S:.*]] = layout.alloc : !layout.tensor<f16, #layout.cute<(1,5008):(0,1)>, smem>
// CHECK:           %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:      scf.for %{{.*}} = %[[TID]] to %[[C1]] step %{{.*}} {
// CHECK:             layout.copy_chunk_async %[[FLAT]][%{{.*}}], %[[S]][%{{.*}}] {width = 8 : i64}
// CHECK:           %[[G:.*]] = arith.constant 4 : index
// CHECK:           scf.for %{{.*}} = %{{.*}} to %[[G]] step %{{.*}} {
// CHECK:             layout.copy_chunk_async %[[FLAT]][%{{.*}}], %[[S]][%{{.*}}] {width = 8 : i64}
// CHECK:           %[[R:.*]] = arith.constant 513 : index
// CHECK-NEXT:      %[[RT:.*]] = arith.addi %[[R]], %[[TID]] : index
// CHECK-NEXT:      scf.for %{{.*}} = %[[RT]] to %{{.*}} step %{{.*}} {
// CHECK:             layout.copy_chunk_async %[[FLAT]][%{{.*}}], %[[S]][%{{.*}}] {width = 8 : i64}
// CHECK:           scf.if
// CHECK:             layout.read %[[FLAT]]
// CHECK:             layout.write %{{.*}}, %[[S]]
// CHECK-NOT:       layout.async_wait
// CHECK:           %[[W:.*]] = layout.view %[[S]] : !layout.tensor<f16, #layout.cute<(1,5008):(0,1)>, smem> -> !layout.tensor<f16, #layout.cute<(8,1,5001):(1,0,1)>, smem>
// CHECK-NEXT:      %[[ROW:.*]] = layout.slice %[[W]][%{{.*}}, _, _]
// CHECK:           scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:               %[[FIRST:.*]] = arith.cmpi eq
// CHECK-NEXT:        scf.if %[[FIRST]] {
// CHECK-NEXT:          layout.async_wait {pending = 0 : i64}
// CHECK-NEXT:          layout.barrier
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[T1:.*]] = layout.tile %[[ROW]][%{{.*}}, %[[J]]] {tile = array<i64: 1, 1024>} : !layout.tensor<f16, #layout.cute<(1,5001):(0,1)>, smem> -> !layout.tensor<f16, #layout.cute<(1,1024):(0,1)>, smem, masked>
// CHECK-NEXT:        layout.load %[[T1]], %{{.*}} : f16 : !layout.tensor<f16, #layout.cute<(1,1024):(0,1)>, smem, masked>
// CHECK:           scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %{{.*}} = arith.constant
// CHECK-NEXT:        %[[T2:.*]] = layout.tile %[[ROW]][%{{.*}}, %[[K]]] {tile = array<i64: 1, 1024>}
// CHECK-NEXT:        layout.load %[[T2]], %{{.*}} : f16 : !layout.tensor<f16, #layout.cute<(1,1024):(0,1)>, smem, masked>
// CHECK:             layout.store %{{.*}}, %{{.*}} : tensor<1x1024xf16, {{.*}}>, !layout.tensor<f16, #layout.cute<(1,1024):(5001,1)>, gmem, masked>
// With `ahead=false` the whole window is copied, then one wait and a barrier, before
// the first loop (ONE).
// ONE-LABEL: func.func @window_f16
// ONE:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// ONE:           layout.copy_chunk_async
// ONE:         scf.if
// ONE:         layout.async_wait {pending = 0 : i64}
// ONE-NEXT:    layout.barrier
// ONE:         scf.for
// ONE-NOT:       layout.async_wait
// ONE:         func.return
// With 8000 bytes (room for 5952 beside the 2 KiB scratch) the row's first 2 chunks of
// 1024 and the window's spare 16 bytes are stashed (PART): 2 x 1024 + 8 elements, copied
// by (2 x 1024 + 8) / 8 = 257 chunks (the first, then two groups of 128), no tail; each
// loop is split at trip 2, the trips below it reading the stash (the first loop's
// waiting for its group), the others global memory a trip ahead (carried), carrying on
// from the first part's results (`partial=true`). By default the row does not fit, nothing changes (NONE).
// PART-LABEL: func.func @window_f16
// PART:         layout.alloc : !layout.tensor<f16, #layout.cute<(1,2056):(0,1)>, smem>
// PART:         scf.for %{{.*}} = %tid to %{{.*}} step %{{.*}} {
// PART:           layout.copy_chunk_async
// PART:         %[[G:.*]] = arith.constant 2 : index
// PART-NEXT:    %{{.*}} = arith.constant 1 : index
// PART-NEXT:    scf.for %{{.*}} = %{{.*}} to %[[G]] step
// PART:           layout.copy_chunk_async
// PART-NOT:     scf.if
// PART:         layout.view %{{.*}} -> !layout.tensor<f16, #layout.cute<(8,1,2048):(1,0,1)>, smem>
// PART:         %[[TWO:.*]] = arith.constant 2 : index
// PART:         %[[A:.*]] = scf.for %{{.*}} = %{{.*}} to %[[TWO]] step %{{.*}} iter_args
// PART:             scf.if
// PART-NEXT:          layout.async_wait {pending = 0 : i64}
// PART-NEXT:          layout.barrier
// PART:           layout.load %{{.*}} : !layout.tensor<f16, #layout.cute<(1,1024):(0,1)>, smem>
// PART:         %[[X0:.*]] = layout.load %{{.*}} : !layout.tensor<f16, #layout.cute<(1,1024):(5001,1)>, gmem, masked>
// PART:         scf.for %{{.*}} = %[[TWO]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[A]], %{{.*}} = %[[X0]])
// PART:           layout.load %{{.*}} : !layout.tensor<f16, #layout.cute<(1,1024):(5001,1)>, gmem, masked>
// PART:         scf.for %{{.*}} = %{{.*}} to %[[TWO]] step
// PART:           layout.load %{{.*}} : !layout.tensor<f16, #layout.cute<(1,1024):(0,1)>, smem>
// PART:         scf.for %{{.*}} = %[[TWO]] to %{{.*}} step %{{.*}} iter_args
// PART:           layout.load %{{.*}} : !layout.tensor<f16, #layout.cute<(1,1024):(5001,1)>, gmem, masked>
// NONE-LABEL: func.func @window_f16
// NONE-NOT:     layout.alloc
// NONE:         func.return
// LOOP-LABEL: func.func @window_f16
// LOOP:         layout.alloc : !layout.tensor<f16, #layout.cute<(1,5120):(0,1)>, smem>
// LOOP-NOT:     layout.copy_chunk_async
// LOOP:         func.return
func.func @window_f16(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
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
    scf.for %j = %lo to %hi step %one {
      %ninf2 = arith.constant 0xFC00 : f16
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

// A static row count (6 rows, grid 6): the flat view is static, its last whole chunk a
// constant.
// CHECK-LABEL: func.func @window_f32_static
// CHECK:         layout.view %src : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(30006):(1)>, gmem>
// CHECK:         layout.alloc : !layout.tensor<f32, #layout.cute<(1,5004):(0,1)>, smem>
// CHECK:         layout.copy_chunk_async {{.*}} {width = 4 : i64}
// CHECK:         layout.view %{{.*}} -> !layout.tensor<f32, #layout.cute<(4,1,5001):(1,0,1)>, smem>
func.func @window_f32_static(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G32
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G32
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  layout.launch grid(%c6, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant 0.0 : f32
    %q0 = layout.splat %zero : f32 -> tensor<1xf32, #r>
    %lo = arith.constant 0 : index
    %hi = arith.constant 5 : index
    %one = arith.constant 1 : index
    %q = scf.for %j = %lo to %hi step %one iter_args(%acc = %q0) -> (tensor<1xf32, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G32 -> !T32
      %x = layout.load %t, %zero : f32 : !T32 -> tensor<1x1024xf32, #a>
      %s = layout.reduce %x {axis = 1 : i64, kind = "add"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
      %n = arith.addf %acc, %s : tensor<1xf32, #r>
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
