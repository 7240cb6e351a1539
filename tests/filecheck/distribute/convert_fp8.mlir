// Converting copies to and from the 8-bit floats f8E4M3FN and f8E5M2 (PyTorch's
// float8_e4m3fn, float8_e5m2): distribute converts in registers, through f32 (one
// rounding to the 8-bit float: dialects/dtypes.py), before the layout conversion when the
// destination is narrower. The CUDA target prints cuda_fp8.h's types, reads them
// through float and rounds with the tilec_to_f8* helpers (tests/unit/test_fp8.py
// compiles this file's CUDA with NVRTC).
// RUN: tilec %s | tilec | filecheck %s --check-prefix=RT
// RUN: tilec %s -p distribute | filecheck %s
// RUN: tilec %s -p distribute --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA

// RT-LABEL: func.func @narrow
// RT: layout.copy %a, %b {convert = "float32->float8_e4m3fn"} : !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>, !layout.tensor<f8E4M3FN, #layout.cute<(64,64):(1,64)>, gmem>
// RT-LABEL: func.func @widen
// RT: layout.copy %a, %b {convert = "float8_e5m2->bfloat16"} : !layout.tensor<f8E5M2, #layout.cute<(64,64):(64,1)>, gmem>, !layout.tensor<bf16, #layout.cute<(64,64):(64,1)>, gmem>
// RT-LABEL: func.func @same
// RT: layout.copy %a, %b : !layout.tensor<f8E4M3FN, #layout.cute<(64,64):(64,1)>, gmem>, !layout.tensor<f8E4M3FN, #layout.cute<(64,64):(1,64)>, gmem>

// EQ: @narrow: equivalent after 'distribute'
// EQ: @widen: equivalent after 'distribute'
// EQ: @same: equivalent after 'distribute'

// CHECK-LABEL: func.func @narrow
// CHECK:       %[[V:.*]] = layout.load %{{.*}} -> tensor<64x64xf32, #layout.blocked<{{.*}}order = [1, 0]}>>
// CHECK-NEXT:  %[[H:.*]] = arith.truncf %[[V]] : tensor<64x64xf32, {{.*}}> to tensor<64x64xf8E4M3FN,
// CHECK-NEXT:  %[[C:.*]] = layout.convert_layout %[[H]] : tensor<64x64xf8E4M3FN, {{.*}}> -> tensor<64x64xf8E4M3FN, #layout.blocked<{{.*}}order = [0, 1]}>>
// CHECK-NEXT:  layout.store %[[C]], %{{.*}} : tensor<64x64xf8E4M3FN,
// CHECK-LABEL: func.func @widen
// CHECK:       %[[V:.*]] = layout.load %{{.*}} -> tensor<64x64xf8E5M2,
// CHECK-NEXT:  %[[F:.*]] = arith.extf %[[V]] : tensor<64x64xf8E5M2, {{.*}}> to tensor<64x64xf32,
// CHECK-NEXT:  %[[H:.*]] = arith.truncf %[[F]] : tensor<64x64xf32, {{.*}}> to tensor<64x64xbf16,
// CHECK-NEXT:  layout.store %[[H]]
// CHECK-LABEL: func.func @same
// CHECK:       layout.load %{{.*}} -> tensor<64x64xf8E4M3FN,
// CHECK:       layout.store

// CUDA: #include <cuda_fp8.h>
// CUDA: tilec_to_f8e4m3(double x)
// CUDA: __nv_cvt_double_to_fp8(x, __NV_NOSAT, __NV_E4M3)
// CUDA: __nv_fp8_e4m3
// CUDA: tilec_to_f8e4m3(static_cast<double>(
// CUDA: widen_kernel(const __nv_fp8_e5m2* __restrict__ p, __nv_bfloat16* __restrict__ q)
// CUDA: const float {{.*}} = static_cast<float>(
// CUDA: const __nv_bfloat16 {{.*}} = static_cast<__nv_bfloat16>(

!Gf = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!G8 = !layout.tensor<f8E4M3FN, #layout.cute<(64,64):(1,64)>, gmem>
func.func @narrow(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f8E4M3FN, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !Gf
  %b = layout.view %q : !layout.ptr<f8E4M3FN, align 16> -> !G8
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.copy %a, %b {convert = "float32->float8_e4m3fn"} : !Gf, !G8
  }
  func.return
}

!G5 = !layout.tensor<f8E5M2, #layout.cute<(64,64):(64,1)>, gmem>
!Gb = !layout.tensor<bf16, #layout.cute<(64,64):(64,1)>, gmem>
func.func @widen(%p: !layout.ptr<f8E5M2, align 16>, %q: !layout.ptr<bf16, align 16>) {
  %a = layout.view %p : !layout.ptr<f8E5M2, align 16> -> !G5
  %b = layout.view %q : !layout.ptr<bf16, align 16> -> !Gb
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.copy %a, %b {convert = "float8_e5m2->bfloat16"} : !G5, !Gb
  }
  func.return
}

!G4 = !layout.tensor<f8E4M3FN, #layout.cute<(64,64):(64,1)>, gmem>
func.func @same(%p: !layout.ptr<f8E4M3FN, align 16>, %q: !layout.ptr<f8E4M3FN, align 16>) {
  %a = layout.view %p : !layout.ptr<f8E4M3FN, align 16> -> !G4
  %b = layout.view %q : !layout.ptr<f8E4M3FN, align 16> -> !G8
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.copy %a, %b : !G4, !G8
  }
  func.return
}
