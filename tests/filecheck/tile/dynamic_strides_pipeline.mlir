// RUN: tilec %s -p default --check-equivalence | filecheck %s
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// Through the default pipeline: a tile of a view whose row stride is dynamic (found by
// the fuzzer: lower-to-gpu read the tile's dynamic stride from its type, where no value
// was bound).

// CHECK: // @copy: equivalent after 'default'
// CUDA-LABEL: // kernel copy_kernels::copy_kernel
// CUDA: extern "C" __global__ void __launch_bounds__(256)
func.func @copy(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>, %n: index) attributes {tilec.args = {n = 15 : index}} {
  %a = layout.view %src(%n, %n) : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(8,?):(?,1)>, gmem>
  %b = layout.view %dst(%n, %n) : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(8,?):(?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(8,?):(?,1)>, gmem>, !layout.tensor<f32, #layout.cute<(8,?):(?,1)>, gmem>
  func.return
}
