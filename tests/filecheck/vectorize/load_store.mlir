// RUN: tilec %s -p 'tile,distribute,vectorize' | filecheck %s
// RUN: tilec %s -p 'tile,distribute,vectorize' --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @row_major: equivalent after
// EQ: @column_major: equivalent after
// EQ: @transposed: equivalent after
// EQ: @nested: equivalent after
// EQ: @nested_short_runs: equivalent after
// EQ: @strided_rows: equivalent after
// EQ: @strided_columns: equivalent after
// EQ: @one_d: equivalent after
// EQ: @three_d: equivalent after
// EQ: @masked: equivalent after
// EQ: @masked_odd: equivalent after
// EQ: @unaligned: equivalent after
// EQ: @aligned_8: equivalent after
// EQ: @f16: equivalent after
// EQ: @f64: equivalent after
// EQ: @i8: equivalent after
// The `vector` of loads and stores: registers consecutive and aligned in memory.

// CHECK-LABEL: func.func @row_major
// CHECK:         layout.load %{{.*}} {vector = 4 : i64}
// CHECK:         layout.store %{{.*}} {vector = 4 : i64}
func.func @row_major(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @column_major
// CHECK:         layout.load %{{.*}} {vector = 4 : i64}
// CHECK:         layout.store %{{.*}} {vector = 4 : i64}
func.func @column_major(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>, !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  func.return
}

// Transpose: both sides vectorized, each along its own contiguous mode.
// CHECK-LABEL: func.func @transposed
// CHECK:         layout.load %{{.*}} {vector = 4 : i64} {{.*}} order = [1, 0]
// CHECK:         layout.convert_layout
// CHECK:         layout.store %{{.*}} {vector = 4 : i64} : {{.*}} order = [0, 1]
func.func @transposed(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  func.return
}

// Nested layout: runs of 8 along mode 1, 4 f32 per access.
// CHECK-LABEL: func.func @nested
// CHECK:         layout.load %{{.*}} {vector = 4 : i64}
// CHECK:         layout.store %{{.*}} {vector = 4 : i64}
func.func @nested(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<((8,128),(8,128)):((128,8192),(1,1024))>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<((8,128),(8,128)):((128,8192),(1,1024))>, gmem>, !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  func.return
}

// Runs of 2 in the nested layout cap f16 (8 per thread) at 2.
// CHECK-LABEL: func.func @nested_short_runs
// CHECK:         layout.load %{{.*}} {vector = 2 : i64} {{.*}}tensor<512x32xf16
func.func @nested_short_runs(%p: !layout.ptr<f16, align 16>, %q: !layout.ptr<f16, align 16>) {
  %a = layout.view %p : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<((2,512),(8,128)):((1,8192),(2,1024))>, gmem>
  %b = layout.view %q : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(1024,1024):(1,1024)>, gmem>
  layout.copy %a, %b : !layout.tensor<f16, #layout.cute<((2,512),(8,128)):((1,8192),(2,1024))>, gmem>, !layout.tensor<f16, #layout.cute<(1024,1024):(1,1024)>, gmem>
  func.return
}

// Every second row: the row stride 1024 keeps rows aligned.
// CHECK-LABEL: func.func @strided_rows
// CHECK:         layout.load %{{.*}} {vector = 4 : i64}
func.func @strided_rows(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(512,512):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(512,512):(512,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(512,512):(1024,1)>, gmem>, !layout.tensor<f32, #layout.cute<(512,512):(512,1)>, gmem>
  func.return
}

// Every second column: scalar loads from the source, vector stores to the
// contiguous destination.
// CHECK-LABEL: func.func @strided_columns
// CHECK:         layout.load %{{.*}} {tilec.vector_note = "vector 1 of a register run of 4 along dim 1: 2 is not legal: mode 1 of (32,256):(1024,2) has no stride-1 run that 2 divides"} :
// CHECK:         layout.store %{{.*}} {vector = 4 : i64}
func.func @strided_columns(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(512,512):(1024,2)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(512,512):(512,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(512,512):(1024,2)>, gmem>, !layout.tensor<f32, #layout.cute<(512,512):(512,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @one_d
// CHECK:         layout.load %{{.*}} {vector = 4 : i64}
func.func @one_d(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<1048576:1>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<1048576:1>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<1048576:1>, gmem>, !layout.tensor<f32, #layout.cute<1048576:1>, gmem>
  func.return
}

// CHECK-LABEL: func.func @three_d
// CHECK:         layout.load %{{.*}} {vector = 4 : i64}
func.func @three_d(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(16,128,512):(65536,512,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(16,128,512):(65536,512,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(16,128,512):(65536,512,1)>, gmem>, !layout.tensor<f32, #layout.cute<(16,128,512):(65536,512,1)>, gmem>
  func.return
}

// Masked: 1000 is a multiple of 4, vectors never straddle the edge (one predicate per
// vector: uniform_mask); 1002 only of 2.
// CHECK-LABEL: func.func @masked
// CHECK:         layout.load %{{.*}} {vector = 4 : i64, uniform_mask}
// CHECK-LABEL: func.func @masked_odd
// CHECK:         layout.load %{{.*}} {{.*}}vector = 2 : i64, uniform_mask}
// CHECK:         layout.store %{{.*}} {{.*}}vector = 2 : i64, uniform_mask}
func.func @masked(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1000,1000):(1000,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1000,1000):(1000,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1000,1000):(1000,1)>, gmem>, !layout.tensor<f32, #layout.cute<(1000,1000):(1000,1)>, gmem>
  func.return
}
func.func @masked_odd(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1000,1002):(1002,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1000,1002):(1002,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1000,1002):(1002,1)>, gmem>, !layout.tensor<f32, #layout.cute<(1000,1002):(1002,1)>, gmem>
  func.return
}

// Alignment: a pointer aligned to its element only allows scalars, 8 bytes two. Both
// sides are contiguous along the same mode, so each thread's run is the narrower width
// (a wider run would make the scalar side's lanes stride through memory).
// CHECK-LABEL: func.func @unaligned
// CHECK:         layout.load %{{.*}} {tilec.vector_note = "vector 1: register 1 is not the element after register 0 along any dim (a register run of 1)"} :
// CHECK-SAME:      sizePerThread = [1, 1]
// CHECK:         layout.store %{{.*}} {tilec.vector_note = "vector 1: {{.*}}"} :
// CHECK-LABEL: func.func @aligned_8
// CHECK:         layout.load %{{.*}} {vector = 2 : i64}
// CHECK-SAME:      sizePerThread = [1, 2]
// CHECK:         layout.store %{{.*}} {vector = 2 : i64}
func.func @unaligned(%p: !layout.ptr<f32>, %q: !layout.ptr<f32, align 8>) {
  %a = layout.view %p : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 8> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  func.return
}

func.func @aligned_8(%p: !layout.ptr<f32, align 8>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 8> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  func.return
}

// 16 bytes per access whatever the element size.
// CHECK-LABEL: func.func @f16
// CHECK:         layout.load %{{.*}} {vector = 8 : i64}
// CHECK-LABEL: func.func @f64
// CHECK:         layout.load %{{.*}} {vector = 2 : i64}
// CHECK-LABEL: func.func @i8
// CHECK:         layout.load %{{.*}} {vector = 16 : i64}
// CHECK:         layout.store %{{.*}} {vector = 16 : i64}
func.func @f16(%p: !layout.ptr<f16, align 16>, %q: !layout.ptr<f16, align 16>) {
  %a = layout.view %p : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(1024,1024):(1024,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f16, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<f16, #layout.cute<(1024,1024):(1024,1)>, gmem>
  func.return
}
func.func @f64(%p: !layout.ptr<f64, align 16>, %q: !layout.ptr<f64, align 16>) {
  %a = layout.view %p : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(1024,1024):(1024,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f64, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<f64, #layout.cute<(1024,1024):(1024,1)>, gmem>
  func.return
}
func.func @i8(%p: !layout.ptr<i8, align 16>, %q: !layout.ptr<i8, align 16>) {
  %a = layout.view %p : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(1024,1024):(1,1024)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<i8, #layout.cute<(1024,1024):(1,1024)>, gmem>
  func.return
}
