// RUN: tilec %s -p 'copy-strategy,tile' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// Views of pointers moved by `layout.addptr` (a pointer argument plus a run-time index, as
// tilec.copy_ states a misaligned view) taken by a strategy that reads its views' pointers
// as they are (gather, tiles): `tile` makes the moved pointers again inside the launch
// (pointers are made inside the launch that uses them) and erases the outer ones.

// EQ: @gather: equivalent after
// EQ: @transpose: equivalent after

// The kernels take the argument and the index, and add the index to their offsets.
// CUDA-LABEL: gather_kernel(const __nv_bfloat16* __restrict__ src, __nv_bfloat16* __restrict__ dst, int smis, int dmis)
// CUDA:         smis +
// CUDA-LABEL: transpose_kernel(const float* __restrict__ src, float* __restrict__ dst, long long smis)
// CUDA:         smis

// CHECK-LABEL: func.func @gather
// CHECK-NOT:     layout.addptr %src
// CHECK:         layout.launch
// CHECK:           %[[S:.*]] = layout.addptr %src, %smis
// CHECK-NEXT:      %[[D:.*]] = layout.addptr %dst, %dmis
// CHECK:           layout.splat %[[S]]
func.func @gather(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 3 : index, dmis = 0 : index, src = 16 : index, dst = 16 : index}} {
  %0 = layout.addptr %src, %smis : !layout.ptr<bf16, align 16>, index
  %1 = layout.view %0 : !layout.ptr<bf16> -> !layout.tensor<bf16, #layout.cute<(2,5):(7,1)>, gmem>
  %2 = layout.addptr %dst, %dmis : !layout.ptr<bf16, align 16>, index
  %3 = layout.view %2 : !layout.ptr<bf16> -> !layout.tensor<bf16, #layout.cute<(2,5):(5,1)>, gmem>
  layout.copy %1, %3 : !layout.tensor<bf16, #layout.cute<(2,5):(7,1)>, gmem>, !layout.tensor<bf16, #layout.cute<(2,5):(5,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @transpose
// CHECK-NOT:     layout.addptr %src
// CHECK:         layout.launch
// CHECK:           layout.addptr %src, %smis
func.func @transpose(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %smis: index) attributes {tilec.args = {smis = 5 : index, src = 4200 : index, dst = 4096 : index}} {
  %0 = layout.addptr %src, %smis : !layout.ptr<f32, align 16>, index
  %1 = layout.view %0 : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(64,64):(1,65)>, gmem>
  %2 = layout.view %dst : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
  layout.copy %1, %2 : !layout.tensor<f32, #layout.cute<(64,64):(1,65)>, gmem>, !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
  func.return
}
