// vectorize-element-loops: an element loop over a thread's contiguous fragment (CuTe's
// `for i: rmem(i) = gmem(i) * 2`) becomes a loop of `width = v` accesses on vectors,
// its index stated a multiple of v; loops whose elements are not contiguous, masked,
// or whose views of one storage differ, stay as they are.
// RUN: tilec %s -p vectorize-element-loops | filecheck %s
// RUN: tilec %s -p vectorize-element-loops --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// RUN: tilec %s -p 'vectorize-element-loops{max-bytes=8}' | filecheck %s --check-prefix=MAX8
// EQ: @through_registers: equivalent after
// EQ: @halves: equivalent after
// EQ: @six: equivalent after
// EQ: @strided: equivalent after
// EQ: @masked: equivalent after
// EQ: @same_storage: equivalent after
// EQ: @index_math: equivalent after

// A thread's row of 32 floats into registers (the fragment indexed as a whole, CuTe's
// frag(i)) and back, times 2: four 16-byte accesses each way; the constant is splat.
// CHECK-LABEL: func.func @through_registers
// CHECK:       %[[FOUR:.*]] = arith.constant 4 : index
// CHECK:       scf.for %i = %c0 to %c32 step %[[FOUR]] {
// CHECK-NEXT:    %[[I:.*]] = layout.multiple_of %i {divisor = 4 : i64} : index
// CHECK-NEXT:    %x = layout.read %fa[%{{.*}}, %[[I]]] {width = 4 : i64} : {{.*}} -> vector<4xf32>
// CHECK-NEXT:    layout.write %x, %r[%{{.*}}, %[[I]]] {width = 4 : i64} : vector<4xf32>
// CHECK:       arith.constant dense<2.000000e+00> : vector<4xf32>
// CHECK:       scf.for
// CHECK:         arith.mulf %{{.*}}, %{{.*}} : vector<4xf32>
// CUDA-LABEL:  through_registers_kernel(
// CUDA:        for (int i = 0; i < 32; i += 4) {
// CUDA:          const f32x4 v = *reinterpret_cast<const f32x4*>(a + {{t_[0-9]+}});
// CUDA:          *reinterpret_cast<f32x4*>(regs + i) = v;
// CUDA:        *reinterpret_cast<f32x4*>(b + {{t_[0-9]+}}) =
// MAX8-LABEL:  func.func @through_registers
// MAX8:        layout.read %fa[%{{.*}}, %{{.*}}] {width = 2 : i64}
!G = !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(8,32):(32,1)>, gmem>
!F = !layout.tensor<f32, #layout.cute<(1,32):(256,1)>, gmem>
!R = !layout.tensor<f32, #layout.cute<(1,32):(0,1)>, rmem>
func.func @through_registers(%a: !layout.ptr<f32, align 16>, %b: !layout.ptr<f32, align 16>) {
  %A = layout.view %a : !layout.ptr<f32, align 16> -> !G
  %B = layout.view %b : !layout.ptr<f32, align 16> -> !G
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %two = arith.constant 2.0 : f32
  layout.launch grid(%c8, %c1, %c1) threads(8) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %A[%bx, %c0] {tile = array<i64: 8, 32>} : !G -> !T
    %tb = layout.tile %B[%bx, %c0] {tile = array<i64: 8, 32>} : !G -> !T
    %fa = layout.distribute %ta, %tid {threads = #layout.cute<(8,1):(1,8)>} : !T -> !F
    %fb = layout.distribute %tb, %tid {threads = #layout.cute<(8,1):(1,8)>} : !T -> !F
    %r = layout.make_fragment_like %fa : !F -> !R
    scf.for %i = %c0 to %c32 step %c1 {
      %x = layout.read %fa[%i] : !F -> f32
      layout.write %x, %r[%i] : f32, !R
    }
    scf.for %i = %c0 to %c32 step %c1 {
      %x = layout.read %r[%c0, %i] : !R -> f32
      %y = arith.mulf %x, %two : f32
      layout.write %y, %fb[%c0, %i] : f32, !F
    }
  }
  func.return
}

// f16: eight elements per 16-byte vector; the sum of two fragments.
// CHECK-LABEL: func.func @halves
// CHECK:       layout.read %ha[%{{.*}}, %{{.*}}] {width = 8 : i64} : {{.*}} -> vector<8xf16>
// CHECK:       arith.addf %{{.*}}, %{{.*}} : vector<8xf16>
// CHECK:       layout.write %{{.*}} {width = 8 : i64} : vector<8xf16>
!H = !layout.tensor<f16, #layout.cute<(16,16):(16,1)>, gmem>
!HF = !layout.tensor<f16, #layout.cute<(1,16):(256,1)>, gmem>
func.func @halves(%a: !layout.ptr<f16, align 16>, %b: !layout.ptr<f16, align 16>, %c: !layout.ptr<f16, align 16>) {
  %A = layout.view %a : !layout.ptr<f16, align 16> -> !H
  %B = layout.view %b : !layout.ptr<f16, align 16> -> !H
  %C = layout.view %c : !layout.ptr<f16, align 16> -> !H
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  layout.launch grid(%c1, %c1, %c1) threads(16) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ha = layout.distribute %A, %tid {threads = #layout.cute<(16,1):(1,16)>} : !H -> !HF
    %hb = layout.distribute %B, %tid {threads = #layout.cute<(16,1):(1,16)>} : !H -> !HF
    %hc = layout.distribute %C, %tid {threads = #layout.cute<(16,1):(1,16)>} : !H -> !HF
    scf.for %i = %c0 to %c16 step %c1 {
      %x = layout.read %ha[%c0, %i] : !HF -> f16
      %y = layout.read %hb[%c0, %i] : !HF -> f16
      %s = arith.addf %x, %y : f16
      layout.write %s, %hc[%c0, %i] : f16, !HF
    }
  }
  func.return
}

// Eight zeros (the constant splat), then six elements from 2: vectors of four, then
// of two (the widest power of two dividing the trip count and the lower bound).
// CHECK-LABEL: func.func @six
// CHECK:       arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK:       layout.multiple_of %{{.*}} {divisor = 4 : i64}
// CHECK:       layout.multiple_of %{{.*}} {divisor = 2 : i64}
// CHECK:       {width = 2 : i64}
!S = !layout.tensor<f32, #layout.cute<8:1>, gmem>
func.func @six(%a: !layout.ptr<f32>, %b: !layout.ptr<f32>) {
  %A = layout.view %a : !layout.ptr<f32> -> !S
  %B = layout.view %b : !layout.ptr<f32> -> !S
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%c1, %c1, %c1) threads(1) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    scf.for %i = %c0 to %c8 step %c1 {
      %z = arith.constant 0.0 : f32
      layout.write %z, %B[%i] : f32, !S
    }
    scf.for %i = %c2 to %c8 step %c1 {
      %x = layout.read %A[%i] : !S -> f32
      layout.write %x, %B[%i] : f32, !S
    }
  }
  func.return
}

// Rows 8 apart (CuTe's local_partition of a column): no contiguous mode, unchanged.
// CHECK-LABEL: func.func @strided
// CHECK-NOT:   width
// CHECK:       func.return
!ST = !layout.tensor<f32, #layout.cute<(4,1):(256,32)>, gmem>
func.func @strided(%a: !layout.ptr<f32>, %b: !layout.ptr<f32>) {
  %A = layout.view %a : !layout.ptr<f32> -> !G
  %B = layout.view %b : !layout.ptr<f32> -> !G
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c2, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %A[%bx, %c0] {tile = array<i64: 32, 32>} : !G -> !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
    %tb = layout.tile %B[%bx, %c0] {tile = array<i64: 32, 32>} : !G -> !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
    %fa = layout.distribute %ta, %tid {threads = #layout.cute<(8,32):(32,1)>} : !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem> -> !ST
    %fb = layout.distribute %tb, %tid {threads = #layout.cute<(8,32):(32,1)>} : !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem> -> !ST
    scf.for %i = %c0 to %c4 step %c1 {
      %x = layout.read %fa[%i, %c0] : !ST -> f32
      layout.write %x, %fb[%i, %c0] : f32, !ST
    }
  }
  func.return
}

// A masked fragment (a tile across the edge): unchanged (a `width` access takes an
// unmasked view).
// CHECK-LABEL: func.func @masked
// CHECK-NOT:   width
// CHECK:       func.return
!MG = !layout.tensor<f32, #layout.cute<(10,30):(30,1)>, gmem>
!MT = !layout.tensor<f32, #layout.cute<(1,32):(30,1)>, gmem, masked>
func.func @masked(%a: !layout.ptr<f32>, %b: !layout.ptr<f32>) {
  %A = layout.view %a : !layout.ptr<f32> -> !MG
  %B = layout.view %b : !layout.ptr<f32> -> !MG
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %c30 = arith.constant 30 : index
  %c32 = arith.constant 32 : index
  layout.launch grid(%c10, %c1, %c1) threads(1) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %A[%bx, %c0] {tile = array<i64: 1, 32>} : !MG -> !MT
    %tb = layout.tile %B[%bx, %c0] {tile = array<i64: 1, 32>} : !MG -> !MT
    scf.for %i = %c0 to %c30 step %c1 {
      %x = layout.read %ta[%c0, %i] : !MT -> f32
      layout.write %x, %tb[%c0, %i] : f32, !MT
    }
  }
  func.return
}

// Two views of one buffer, the second one element further (A[i + 1] = A[i], which
// copies A[0] everywhere): reading a vector before writing one would not, so unchanged.
// CHECK-LABEL: func.func @same_storage
// CHECK-NOT:   width
// CHECK:       func.return
!L = !layout.tensor<f32, #layout.cute<(2,8):(1,1)>, gmem>
!L8 = !layout.tensor<f32, #layout.cute<8:1>, gmem>
func.func @same_storage(%a: !layout.ptr<f32>) {
  %A = layout.view %a : !layout.ptr<f32> -> !L
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  layout.launch grid(%c1, %c1, %c1) threads(1) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %src = layout.slice %A[0, _] : !L -> !L8
    %dst = layout.slice %A[1, _] : !L -> !L8
    scf.for %i = %c0 to %c8 step %c1 {
      %x = layout.read %src[%i] : !L8 -> f32
      layout.write %x, %dst[%i] : f32, !L8
    }
  }
  func.return
}

// The loop's index in arithmetic of its own: unchanged.
// CHECK-LABEL: func.func @index_math
// CHECK-NOT:   width
// CHECK:       func.return
func.func @index_math(%a: !layout.ptr<f32>, %b: !layout.ptr<f32>) {
  %A = layout.view %a : !layout.ptr<f32> -> !S
  %B = layout.view %b : !layout.ptr<f32> -> !S
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  layout.launch grid(%c1, %c1, %c1) threads(1) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    scf.for %i = %c0 to %c8 step %c1 {
      %x = layout.read %A[%i] : !S -> f32
      %f = arith.index_cast %i : index to i32
      %g = arith.sitofp %f : i32 to f32
      %y = arith.addf %x, %g : f32
      layout.write %y, %B[%i] : f32, !S
    }
  }
  func.return
}
