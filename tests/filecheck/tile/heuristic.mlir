// RUN: tilec %s -p tile | filecheck %s
// RUN: tilec %s -p tile --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @row_major: equivalent after
// EQ: @column_major: equivalent after
// EQ: @transposed: equivalent after
// EQ: @nested: equivalent after
// EQ: @strided_rows: equivalent after
// EQ: @one_d: equivalent after
// EQ: @three_d: equivalent after
// EQ: @four_d: equivalent after
// EQ: @masked: equivalent after
// EQ: @f16_rows: equivalent after
// EQ: @f64_rows: equivalent after
// EQ: @i8_transposed: equivalent after
// EQ: @f16_one_d: equivalent after
// EQ: @short_rows: equivalent after
// EQ: @inside_launch: equivalent after
// EQ: @misaligned_transpose: equivalent after
// EQ: @unaligned_pointer_transpose: equivalent after
// EQ: @misaligned_transpose_f16: equivalent after
// EQ: @misaligned_transpose_f64: equivalent after
// EQ: @misaligned_transpose_i8_i16: equivalent after
// EQ: @small_misaligned_transpose: equivalent after
// EQ: @misaligned_short_rows: equivalent after
// EQ: @misaligned_short_src_rows: equivalent after
// EQ: @misaligned_rank6_short_rows: equivalent after
// Tile choice and grid mapping of the `tile` pass, one function per layout.

// CHECK-LABEL: func.func @row_major
// CHECK-DAG:     %[[GX:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[GY:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : index
// CHECK:         layout.launch grid(%[[GX]], %[[GY]], %[[ONE]]) threads(256) {
// CHECK-NEXT:    ^bb0(%[[BX:.*]]: index, %[[BY:.*]]: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT:      %[[TA:.*]] = layout.tile %a[%[[BY]], %[[BX]]] {tile = array<i64: 32, 256>} : {{.*}} -> !layout.tensor<f32, #layout.cute<(32,256):(1024,1)>, gmem>
// CHECK-NEXT:      %[[TB:.*]] = layout.tile %b[%[[BY]], %[[BX]]] {tile = array<i64: 32, 256>} : {{.*}} -> !layout.tensor<f32, #layout.cute<(32,256):(1024,1)>, gmem>
// CHECK-NEXT:      layout.copy %[[TA]], %[[TB]]
// CHECK-NEXT:    }
// CHECK-NOT:     layout.copy
func.func @row_major(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  func.return
}

// Column-major: the long side of the tile and block x follow mode 0.
// CHECK-LABEL: func.func @column_major
// CHECK:         ^bb0(%[[BX:.*]]: index, %[[BY:.*]]: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT:      layout.tile %a[%[[BX]], %[[BY]]] {tile = array<i64: 256, 32>}
// CHECK-SAME:        -> !layout.tensor<f32, #layout.cute<(256,32):(1,1024)>, gmem>
func.func @column_major(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>, !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  func.return
}

// Transpose: a square 64x64 tile (16 KiB of f32 through shared memory); block x
// walks the destination's contiguous mode (mode 0).
// CHECK-LABEL: func.func @transposed
// CHECK:         layout.launch grid(%[[G:.*]], %[[G]], %{{.*}}) threads(256)
// CHECK-NEXT:    ^bb0(%[[BX:.*]]: index, %[[BY:.*]]: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT:      layout.tile %a[%[[BX]], %[[BY]]] {tile = array<i64: 64, 64>} : {{.*}} -> !layout.tensor<f32, #layout.cute<(64,64):(1024,1)>, gmem>
// CHECK-NEXT:      layout.tile %b[%[[BX]], %[[BY]]] {tile = array<i64: 64, 64>} : {{.*}} -> !layout.tensor<f32, #layout.cute<(64,64):(1,1024)>, gmem>
func.func @transposed(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  func.return
}

// A nested (tiled) source layout: a tile of 64 of a (8,128) mode composes to (8,8).
// CHECK-LABEL: func.func @nested
// CHECK:         layout.tile %a{{.*}} {tile = array<i64: 64, 64>} : {{.*}} -> !layout.tensor<f32, #layout.cute<((8,8),(8,8)):((128,8192),(1,1024))>, gmem>
// CHECK-NEXT:    layout.tile %b{{.*}} {tile = array<i64: 64, 64>} : {{.*}} -> !layout.tensor<f32, #layout.cute<(64,64):(1,1024)>, gmem>
func.func @nested(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<((8,128),(8,128)):((128,8192),(1,1024))>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<((8,128),(8,128)):((128,8192),(1,1024))>, gmem>, !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  func.return
}

// Every second row: both views contiguous along mode 1.
// CHECK-LABEL: func.func @strided_rows
// CHECK:         layout.tile %a{{.*}} {tile = array<i64: 32, 256>} : {{.*}} -> !layout.tensor<f32, #layout.cute<(32,256):(1024,1)>, gmem>
// CHECK-NEXT:    layout.tile %b{{.*}} {tile = array<i64: 32, 256>} : {{.*}} -> !layout.tensor<f32, #layout.cute<(32,256):(512,1)>, gmem>
func.func @strided_rows(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(512,512):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(512,512):(512,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(512,512):(1024,1)>, gmem>, !layout.tensor<f32, #layout.cute<(512,512):(512,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @one_d
// CHECK:         %[[G:.*]] = arith.constant 256 : index
// CHECK:         layout.launch grid(%[[G]], %{{.*}}, %{{.*}}) threads(256)
// CHECK:           layout.tile %a[%{{.*}}] {tile = array<i64: 4096>}
func.func @one_d(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<1048576:1>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<1048576:1>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<1048576:1>, gmem>, !layout.tensor<f32, #layout.cute<1048576:1>, gmem>
  func.return
}

// 3-D: the two fastest modes are tiled, the slowest one goes to grid z.
// CHECK-LABEL: func.func @three_d
// CHECK-DAG:     %[[X:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[Y:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[Z:.*]] = arith.constant 16 : index
// CHECK:         layout.launch grid(%[[X]], %[[Y]], %[[Z]]) threads(256)
// CHECK-NEXT:    ^bb0(%[[BX:.*]]: index, %[[BY:.*]]: index, %[[BZ:.*]]: index, %{{.*}}: index):
// CHECK-NEXT:      layout.tile %a[%[[BZ]], %[[BY]], %[[BX]]] {tile = array<i64: 1, 32, 256>}
func.func @three_d(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(16,128,512):(65536,512,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(16,128,512):(65536,512,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(16,128,512):(65536,512,1)>, gmem>, !layout.tensor<f32, #layout.cute<(16,128,512):(65536,512,1)>, gmem>
  func.return
}

// 4-D: modes past the second are linearised into block z.
// CHECK-LABEL: func.func @four_d
// CHECK:         %[[Z:.*]] = arith.constant 12 : index
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %[[Z]]) threads(256)
// CHECK-NEXT:    ^bb0(%{{.*}}: index, %{{.*}}: index, %[[BZ:.*]]: index, %{{.*}}: index):
// CHECK-NEXT:      %[[N:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %[[C1:.*]] = arith.remui %[[BZ]], %[[N]] : index
// CHECK-NEXT:      %[[C0:.*]] = arith.divui %[[BZ]], %[[N]] : index
// CHECK-NEXT:      layout.tile %a[%[[C0]], %[[C1]], %{{.*}}, %{{.*}}] {tile = array<i64: 1, 1, 32, 256>}
func.func @four_d(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(3,4,64,512):(131072,32768,512,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(3,4,64,512):(131072,32768,512,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(3,4,64,512):(131072,32768,512,1)>, gmem>, !layout.tensor<f32, #layout.cute<(3,4,64,512):(131072,32768,512,1)>, gmem>
  func.return
}

// Extents the tile does not divide: masked tiles, ceil-divided grid.
// CHECK-LABEL: func.func @masked
// CHECK-DAG:     %[[GX:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[GY:.*]] = arith.constant 32 : index
// CHECK:         layout.launch grid(%[[GX]], %[[GY]], %{{.*}})
// CHECK:           layout.tile %a{{.*}} {tile = array<i64: 32, 256>} : {{.*}} -> !layout.tensor<f32, #layout.cute<(32,256):(1000,1)>, gmem, masked>
// CHECK-NEXT:      layout.tile %b{{.*}} -> !layout.tensor<f32, #layout.cute<(32,256):(1000,1)>, gmem, masked>
func.func @masked(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1000,1000):(1000,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1000,1000):(1000,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1000,1000):(1000,1)>, gmem>, !layout.tensor<f32, #layout.cute<(1000,1000):(1000,1)>, gmem>
  func.return
}

// Element sizes: 1 KiB along the contiguous mode, 32 KiB per tile (or 16 KiB of
// shared memory for a transpose).
// CHECK-LABEL: func.func @f16_rows
// CHECK:         {tile = array<i64: 32, 512>}
func.func @f16_rows(%p: !layout.ptr<f16, align 16>, %q: !layout.ptr<f16, align 16>) {
  %a = layout.view %p : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(1024,1024):(1024,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f16, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<f16, #layout.cute<(1024,1024):(1024,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @f64_rows
// CHECK:         {tile = array<i64: 32, 128>}
func.func @f64_rows(%p: !layout.ptr<f64, align 16>, %q: !layout.ptr<f64, align 16>) {
  %a = layout.view %p : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(1024,1024):(1024,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f64, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<f64, #layout.cute<(1024,1024):(1024,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @i8_transposed
// CHECK:         {tile = array<i64: 128, 128>}
func.func @i8_transposed(%p: !layout.ptr<i8, align 16>, %q: !layout.ptr<i8, align 16>) {
  %a = layout.view %p : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(1024,1024):(1,1024)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<i8, #layout.cute<(1024,1024):(1,1024)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @f16_one_d
// CHECK:         {tile = array<i64: 8192>}
func.func @f16_one_d(%p: !layout.ptr<f16, align 16>, %q: !layout.ptr<f16, align 16>) {
  %a = layout.view %p : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<65536:1>, gmem>
  %b = layout.view %q : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<65536:1>, gmem>
  layout.copy %a, %b : !layout.tensor<f16, #layout.cute<65536:1>, gmem>, !layout.tensor<f16, #layout.cute<65536:1>, gmem>
  func.return
}

// A small mode clamps the tile, the contiguous side grows within the budget.
// CHECK-LABEL: func.func @short_rows
// CHECK:         {tile = array<i64: 4, 2048>}
func.func @short_rows(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(4,65536):(65536,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(4,65536):(65536,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(4,65536):(65536,1)>, gmem>, !layout.tensor<f32, #layout.cute<(4,65536):(65536,1)>, gmem>
  func.return
}

// A copy already inside a launch is block level: left alone.
// CHECK-LABEL: func.func @inside_launch
// CHECK:         layout.launch
// CHECK-NOT:     layout.launch
// CHECK:         layout.copy %a, %b
func.func @inside_launch(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>, !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
  }
  func.return
}

// A transpose whose rows start off 16-byte boundaries (odd row lengths): 512 bytes
// along the source's contiguous mode, the rest of 64 KiB (at most 32768 elements)
// along the destination's, at 512 threads.
// CHECK-LABEL: func.func @misaligned_transpose
// CHECK:         layout.launch {{.*}} threads(512)
// CHECK:         layout.tile %a[{{.*}}] {tile = array<i64: 128, 128>}
func.func @misaligned_transpose(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1021,1027):(1027,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1021,1027):(1,1021)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1021,1027):(1027,1)>, gmem>, !layout.tensor<f32, #layout.cute<(1021,1027):(1,1021)>, gmem>
  func.return
}

// The same shapes from a pointer aligned only to its element: the same choice.
// CHECK-LABEL: func.func @unaligned_pointer_transpose
// CHECK:         layout.tile %a[{{.*}}] {tile = array<i64: 128, 128>}
func.func @unaligned_pointer_transpose(%p: !layout.ptr<f32>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  func.return
}

// f16: 32768 elements would hold only 64 KiB of the 128 KiB budget at one block a
// multiprocessor (`misaligned_tile_fills`), so the short-mode tile: source runs of a
// warp's 32 elements, the rest of 16 KiB to the destination's (256 x 32) at 256 threads;
// f64: a byte budget of 64 KiB (`misaligned_tile_bytes`: 128 x 64) at 256 threads (8192
// elements: fewer than 32 a thread at 512).
// CHECK-LABEL: func.func @misaligned_transpose_f16
// CHECK:         layout.launch {{.*}} threads(256)
// CHECK:         layout.tile %a[{{.*}}] {tile = array<i64: 256, 32>}
func.func @misaligned_transpose_f16(%p: !layout.ptr<f16, align 16>, %q: !layout.ptr<f16, align 16>) {
  %a = layout.view %p : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(1021,1027):(1027,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(1021,1027):(1,1021)>, gmem>
  layout.copy %a, %b : !layout.tensor<f16, #layout.cute<(1021,1027):(1027,1)>, gmem>, !layout.tensor<f16, #layout.cute<(1021,1027):(1,1021)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @misaligned_transpose_f64
// CHECK:         layout.launch {{.*}} threads(256)
// CHECK:         layout.tile %a[{{.*}}] {tile = array<i64: 128, 64>}
func.func @misaligned_transpose_f64(%p: !layout.ptr<f64, align 16>, %q: !layout.ptr<f64, align 16>) {
  %a = layout.view %p : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(1021,1027):(1027,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(1021,1027):(1,1021)>, gmem>
  layout.copy %a, %b : !layout.tensor<f64, #layout.cute<(1021,1027):(1027,1)>, gmem>, !layout.tensor<f64, #layout.cute<(1021,1027):(1,1021)>, gmem>
  func.return
}

// A 1-byte source converted into 2-byte elements (the strided set's case 23, bool ->
// int16): the short-mode tile too, 32 source elements by 512 destination elements
// (16 KiB of the source) at 256 threads (H200, case 23: 512 x 64 at 512 threads 0.39 of
// cudaMemcpy, 32 x 128 and 32 x 256 0.61).
// CHECK-LABEL: func.func @misaligned_transpose_i8_i16
// CHECK:         layout.launch {{.*}} threads(256)
// CHECK:         layout.tile %a[{{.*}}] {tile = array<i64: 512, 32>}
func.func @misaligned_transpose_i8_i16(%p: !layout.ptr<i8, align 16>, %q: !layout.ptr<i16, align 16>) {
  %a = layout.view %p : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(1021,1027):(1027,1)>, gmem>
  %b = layout.view %q : !layout.ptr<i16, align 16> -> !layout.tensor<i16, #layout.cute<(1021,1027):(1,1021)>, gmem>
  layout.copy %a, %b {convert = "int8->int16"} : !layout.tensor<i8, #layout.cute<(1021,1027):(1027,1)>, gmem>, !layout.tensor<i16, #layout.cute<(1021,1027):(1,1021)>, gmem>
  func.return
}

// A small misaligned transpose: the destination's contiguous mode is short (61, at most
// 64), taken whole by any tile: the transposing budget of 16 KiB, not the misaligned
// one of 128 KiB, at 256 threads; every access one element, the destination's 61 whole
// (its runs cannot continue: its next mode is the source's contiguous one), the rest to
// the source's runs (64 x 64).
// CHECK-LABEL: func.func @small_misaligned_transpose
// CHECK:         layout.launch {{.*}} threads(256)
// CHECK:         layout.tile %a[{{.*}}] {tile = array<i64: 64, 64>}
func.func @small_misaligned_transpose(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(61,67):(67,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(61,67):(1,61)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(61,67):(67,1)>, gmem>, !layout.tensor<f32, #layout.cute<(61,67):(1,61)>, gmem>
  func.return
}

// A misaligned permute whose destination rows are short (17 i64, 136 bytes: not a
// multiple of 16): the transposing tile's budget (16 KiB), not the misaligned budget
// (128 KiB, one block an SM); the source's runs a warp's 32 elements, the destination's
// 17 whole and continued through the next mode (their rows are contiguous): 32 x 4 x 32
// (strided set case 41, H200: 0.90 of cudaMemcpy; 128 x 1 x 32 0.64, 16 x 8 x 32 0.88).
// CHECK-LABEL: func.func @misaligned_short_rows
// CHECK:         layout.launch {{.*}} threads(256)
// CHECK:         layout.tile %a[{{.*}}] {tile = array<i64: 32, 4, 32>}
func.func @misaligned_short_rows(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<i64, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1000,56,17):(1,1000,56000)>, gmem>
  %b = layout.view %q : !layout.ptr<i64, align 16> -> !layout.tensor<i64, #layout.cute<(1000,56,17):(952,17,1)>, gmem>
  layout.copy %a, %b {convert = "float32->int64"} : !layout.tensor<f32, #layout.cute<(1000,56,17):(1,1000,56000)>, gmem>, !layout.tensor<i64, #layout.cute<(1000,56,17):(952,17,1)>, gmem>
  func.return
}

// The mirror: the source's contiguous mode is short (42 f16, taken whole at 64), the
// destination's long one takes the rest of the 16 KiB (64 x 1 x 128; strided set case 29,
// H200: 0.62 of cudaMemcpy, 0.52 with the short mode cut in runs of 32), at 512 threads as
// every tile over a short source run (`tile._short_run_transpose`; s1146: 11 x1.012, 05 x1.032).
// CHECK-LABEL: func.func @misaligned_short_src_rows
// CHECK:         layout.launch {{.*}} threads(512)
// CHECK:         layout.tile %a[{{.*}}] {tile = array<i64: 64, 1, 128>}
func.func @misaligned_short_src_rows(%p: !layout.ptr<f16, align 2>, %q: !layout.ptr<bf16, align 16>) {
  %a = layout.view %p : !layout.ptr<f16, align 2> -> !layout.tensor<f16, #layout.cute<(42,13,3001):(1,42,546)>, gmem>
  %b = layout.view %q : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(42,13,3001):(39013,3001,1)>, gmem>
  layout.copy %a, %b {convert = "float16->bfloat16"} : !layout.tensor<f16, #layout.cute<(42,13,3001):(1,42,546)>, gmem>, !layout.tensor<bf16, #layout.cute<(42,13,3001):(39013,3001,1)>, gmem>
  func.return
}

// A rank-6 int8 permute (strided set case 36's pattern, smaller): source rows of 181,
// destination rows of 19 contiguous with the next mode (31): the source's runs a warp's
// 32 elements, the destination's 19 whole (32) and 16 of the next mode, the 16 KiB budget
// (H200, case 36: 0.087 of cudaMemcpy with 512 x 1 x 1 x 1 x 1 x 32, 0.29 with this tile).
// CHECK-LABEL: func.func @misaligned_rank6_short_rows
// CHECK:         layout.launch {{.*}} threads(256)
// CHECK:         layout.tile %a[{{.*}}] {tile = array<i64: 32, 1, 1, 1, 16, 32>}
func.func @misaligned_rank6_short_rows(%p: !layout.ptr<i8, align 16>, %q: !layout.ptr<i8, align 16>) {
  %a = layout.view %p : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(181,3,2,5,31,19):(1,905,2715,181,5430,168330)>, gmem>
  %b = layout.view %q : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(181,3,2,5,31,19):(17670,5890,2945,589,19,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(181,3,2,5,31,19):(1,905,2715,181,5430,168330)>, gmem>, !layout.tensor<i8, #layout.cute<(181,3,2,5,31,19):(17670,5890,2945,589,19,1)>, gmem>
  func.return
}
