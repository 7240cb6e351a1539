// The cuda target carries 16-bit float iter_args of an scf.for in pairs, one
// `unsigned` per pair (low element first, as mma.sync packs its fragments): a K loop
// that carries its next bf16 operand fragments holds them in half the registers, and
// the unpacking folds into the mma.sync that packs them again. An odd one out keeps
// its own variable; f32 iter_args are untouched.
// RUN: tilec %s -p lower-to-gpu -t cuda | filecheck %s

// CHECK-LABEL: carry_operand_kernel(
// CHECK: float [[ACC:[a-z_0-9]+]] = {{.*}};
// CHECK: unsigned [[P0:[a-z_0-9]+]] = tilec_pack_bf16x2([[X0:[a-z_0-9]+]], [[X1:[a-z_0-9]+]]);
// CHECK-NEXT: unsigned [[P1:[a-z_0-9]+]] = tilec_pack_bf16x2({{.*}});
// CHECK-NEXT: unsigned [[P2:[a-z_0-9]+]] = tilec_pack_bf16x2({{.*}});
// CHECK-NEXT: unsigned [[P3:[a-z_0-9]+]] = tilec_pack_bf16x2({{.*}});
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int [[K:[a-z_0-9]+]] = 0; [[K]] < 4; ++[[K]]) {
// CHECK-NEXT: const __nv_bfloat16 [[A0:[a-z_0-9]+]] = __ushort_as_bfloat16((unsigned short)([[P0]] & 0xffffu));
// CHECK-NEXT: const __nv_bfloat16 [[A1:[a-z_0-9]+]] = __ushort_as_bfloat16((unsigned short)([[P0]] >> 16));
// CHECK: asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: : "r"(tilec_pack_bf16x2([[A0]], [[A1]])),
// CHECK: const unsigned [[P0]]_next = tilec_pack_bf16x2({{.*}});
// CHECK: [[P0]] = [[P0]]_next;
// CHECK: }
// CHECK-NEXT: const __nv_bfloat16 {{[a-z_0-9]+}} = __ushort_as_bfloat16((unsigned short)([[P0]] & 0xffffu));
#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
!GA = !layout.tensor<bf16, #layout.cute<(16,64):(64,1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(16,16):(64,1)>, gmem>
func.func @carry_operand(%pa: !layout.ptr<bf16>, %pb: !layout.ptr<bf16>, %pc: !layout.ptr<f32>) {
  %a = layout.view %pa : !layout.ptr<bf16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16> -> !layout.tensor<bf16, #layout.cute<(16,8):(8,1)>, gmem>
  %c = layout.view %pc : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(16,8):(8,1)>, gmem>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %vb = layout.load %b : !layout.tensor<bf16, #layout.cute<(16,8):(8,1)>, gmem> -> tensor<16x8xbf16, #b>
    %t0 = layout.tile %a[%c0, %c0] {tile = array<i64: 16, 16>} : !GA -> !TA
    %a0 = layout.load %t0 : !TA -> tensor<16x16xbf16, #a>
    %zero = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    // each step loads the next slice of A, then multiplies the one it carries
    %r:2 = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero, %cur = %a0) -> (tensor<16x8xf32, #mma>, tensor<16x16xbf16, #a>) {
      %kn = arith.addi %k, %c1 : index
      %kc = arith.minui %kn, %c3 : index
      %tn = layout.tile %a[%c0, %kc] {tile = array<i64: 16, 16>} : !GA -> !TA
      %next = layout.load %tn : !TA -> tensor<16x16xbf16, #a>
      %d = layout.mma %cur, %vb, %acc : tensor<16x16xbf16, #a>, tensor<16x8xbf16, #b>, tensor<16x8xf32, #mma>
      scf.yield %d, %next : tensor<16x8xf32, #mma>, tensor<16x16xbf16, #a>
    }
    layout.store %r#0, %c : tensor<16x8xf32, #mma>, !layout.tensor<f32, #layout.cute<(16,8):(8,1)>, gmem>
  }
  func.return
}

// CHECK-LABEL: odd_one_out_kernel(
// CHECK: unsigned [[Q:[a-z_0-9]+]] = tilec_pack_f16x2({{.*}});
// CHECK-NEXT: __half [[H:[a-z_0-9]+]] = {{.*}};
// CHECK-NEXT: float [[F:[a-z_0-9]+]] = {{.*}};
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (
// CHECK-NEXT: const __half [[L:[a-z_0-9]+]] = __ushort_as_half((unsigned short)([[Q]] & 0xffffu));
// CHECK-NEXT: const __half [[U:[a-z_0-9]+]] = __ushort_as_half((unsigned short)([[Q]] >> 16));
// CHECK: const unsigned [[Q]]_next = tilec_pack_f16x2(
// CHECK: }
#one = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#two = #layout.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @odd_one_out(%p: !layout.ptr<f16>, %q: !layout.ptr<f32>, %o: !layout.ptr<f16>) {
  %v = layout.view %p : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(64):(1)>, gmem>
  %w = layout.view %q : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(32):(1)>, gmem>
  %u = layout.view %o : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(64):(1)>, gmem>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 8 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %v : !layout.tensor<f16, #layout.cute<(64):(1)>, gmem> -> tensor<64xf16, #two>
    %s = arith.constant dense<1.0> : tensor<32xf16, #one>
    %f = arith.constant dense<1.0> : tensor<32xf32, #one>
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%h = %x, %t = %s, %g = %f) -> (tensor<64xf16, #two>, tensor<32xf16, #one>, tensor<32xf32, #one>) {
      %h2 = arith.addf %h, %h : tensor<64xf16, #two>
      %t2 = arith.addf %t, %t : tensor<32xf16, #one>
      %g2 = arith.addf %g, %g : tensor<32xf32, #one>
      scf.yield %h2, %t2, %g2 : tensor<64xf16, #two>, tensor<32xf16, #one>, tensor<32xf32, #one>
    }
    layout.store %r#0, %u : tensor<64xf16, #two>, !layout.tensor<f16, #layout.cute<(64):(1)>, gmem>
    layout.store %r#2, %w : tensor<32xf32, #one>, !layout.tensor<f32, #layout.cute<(32):(1)>, gmem>
  }
  func.return
}
