// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// EQ: @f16_rows: equivalent after
// EQ: @bf16_rows: equivalent after
// A lane of a vector of 16-bit floats is read as half of the 32-bit pair it shares
// with its neighbour (`__low2half` / `__high2half` of a `__half2`), so a masked load's
// vector (the loaded one or `other`, joined after the branch) stays in 32-bit
// registers; `v.v[i]` made ptxas merge 16-bit pieces with a PRMT per lane. The branch
// joins the vector as 32-bit words (`i32x4`, bitcast after it). NVRTC
// compiles it (tests/unit/test_cuda_fingerprints.py).
#l = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>

// CHECK-LABEL: f16_rows_kernel(
// CHECK:         i32x4 [[W:r_w[_0-9]*]];
// CHECK:         const f16x8 [[R:r[_0-9]*]] = tilec_bitcast<f16x8>([[W]]);
// CHECK:         const __half [[A:t_[0-9]+]] = __low2half(*reinterpret_cast<const __half2*>(&[[R]].v[0]));
// CHECK-NEXT:    const __half {{t_[0-9]+}} = __high2half(*reinterpret_cast<const __half2*>(&[[R]].v[0]));
// CHECK-NEXT:    const __half {{t_[0-9]+}} = __low2half(*reinterpret_cast<const __half2*>(&[[R]].v[2]));
// CHECK-NOT:     [[R]].v[1]
// CHECK:         static_cast<float>([[A]])
!G = !layout.tensor<f16, #layout.cute<(?,200):(200,1)>, gmem>
!T = !layout.tensor<f16, #layout.cute<(1,256):(200,1)>, gmem, masked>
func.func @f16_rows(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 256>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 256>} : !G -> !T
    %ninf = arith.constant 0xFC00 : f16
    %xh = layout.load %ta, %ninf : f16 : !T -> tensor<1x256xf16, #l>
    %x = arith.extf %xh : tensor<1x256xf16, #l> to tensor<1x256xf32, #l>
    %y = arith.addf %x, %x : tensor<1x256xf32, #l>
    %yh = arith.truncf %y : tensor<1x256xf32, #l> to tensor<1x256xf16, #l>
    layout.store %yh, %tb : tensor<1x256xf16, #l>, !T
  }
  func.return
}

// A 16-bit float constant is printed by its bits (`__float2half` is inline PTX that
// NVVM does not fold: the `other` vector was built 16 bits at a time).
// CHECK-LABEL: bf16_rows_kernel(
// CHECK:         const bf16x8 {{v_[0-9]+}} = {{[{][{]}}__ushort_as_bfloat16((unsigned short)0x0000), __ushort_as_bfloat16((unsigned short)0x0000),
// CHECK:         __low2bfloat16(*reinterpret_cast<const __nv_bfloat162*>(&{{r[_0-9]*}}.v[0]))
// CHECK:         __high2bfloat16(*reinterpret_cast<const __nv_bfloat162*>(&{{r[_0-9]*}}.v[6]))
!H = !layout.tensor<bf16, #layout.cute<(?,200):(200,1)>, gmem>
!U = !layout.tensor<bf16, #layout.cute<(1,256):(200,1)>, gmem, masked>
func.func @bf16_rows(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<bf16, align 16> -> !H
  %b = layout.view %dst(%m) : !layout.ptr<bf16, align 16> -> !H
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 256>} : !H -> !U
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 256>} : !H -> !U
    %z = arith.constant 0.0 : bf16
    %xh = layout.load %ta, %z : bf16 : !U -> tensor<1x256xbf16, #l>
    %x = arith.extf %xh : tensor<1x256xbf16, #l> to tensor<1x256xf32, #l>
    %y = arith.addf %x, %x : tensor<1x256xf32, #l>
    %yh = arith.truncf %y : tensor<1x256xf32, #l> to tensor<1x256xbf16, #l>
    layout.store %yh, %tb : tensor<1x256xbf16, #l>, !U
  }
  func.return
}
