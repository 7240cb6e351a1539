// sm_80 has ldmatrix but no stmatrix: the store of an MMA-layout tile to shared memory
// stays st.shared (of register pairs), and the CUDA says why; the load back into operand A is ldmatrix.
// RUN: tilec %s -p lower-to-gpu -t cuda | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @stmatrix_sm80: equivalent after 'lower-to-gpu' (seed 0, buffers %src, %dst){{$}}
// CHECK-LABEL: stmatrix_sm80_kernel(
// CHECK: // layout.store 16x16xbf16 to smem: no stmatrix (sm_80 has no stmatrix); st.shared of 2 elements
// CHECK: *reinterpret_cast<bf16x2*>(smem + {{.*}}) =
// CHECK-NOT: stmatrix.sync
// CHECK: // layout.load 16x16xbf16 from smem: 1 ldmatrix.x4 per thread
#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
!G = !layout.tensor<bf16, #layout.cute<(16,16):(16,1)>, gmem>
!S = !layout.tensor<bf16, #layout.cute<(16,16):(24,1)>, smem>
module attributes {tilec.target = "sm_80"} {
  func.func @stmatrix_sm80(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>) {
    %g = layout.view %src : !layout.ptr<bf16, align 16> -> !G
    %h = layout.view %dst : !layout.ptr<bf16, align 16> -> !G
    %c1 = arith.constant 1 : index
    layout.launch grid(%c1, %c1, %c1) threads(32) {
    ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
      %s = layout.alloc : !S
      %v = layout.load %g : !G -> tensor<16x16xbf16, #mma>
      layout.store %v, %s : tensor<16x16xbf16, #mma>, !S
      layout.barrier
      %x = layout.load %s : !S -> tensor<16x16xbf16, #a>
      layout.store %x, %h : tensor<16x16xbf16, #a>, !G
    }
    func.return
  }
}
