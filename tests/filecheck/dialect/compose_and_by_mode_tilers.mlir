// CuTe's by-mode tilers (`Tile<Layout<_8,_3>, Layout<_4,_2>>`) for the divides, and
// `composition(tensor, tiler)` as `layout.compose`: round trip and verifier errors.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>/dev/null | filecheck %s

// CHECK-LABEL: func.func @by_mode
// CHECK: layout.divide %a {kind = "zipped", tiler = [#layout.cute<8:3>, #layout.cute<4:2>]} : {{.*}} -> !layout.tensor<f32, #layout.cute<((8,4),(3,(2,2))):((3,48),(1,(24,192)))>, gmem>
// CHECK: layout.compose %a {tiler = [#layout.cute<8:3>, #layout.cute<4:2>]} : {{.*}} -> !layout.tensor<f32, #layout.cute<(8,4):(3,48)>, gmem>
// CHECK: layout.compose %a {tiler = #layout.cute<(4,2):(2,1)>} : {{.*}} -> !layout.tensor<f32, #layout.cute<(4,2):(2,1)>, gmem>
!G = !layout.tensor<f32, #layout.cute<(24,16):(1,24)>, gmem>
func.func @by_mode(%src: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !G
  %z = layout.divide %a {kind = "zipped", tiler = [#layout.cute<8:3>, #layout.cute<4:2>]} : !G -> !layout.tensor<f32, #layout.cute<((8,4),(3,(2,2))):((3,48),(1,(24,192)))>, gmem>
  %c = layout.compose %a {tiler = [#layout.cute<8:3>, #layout.cute<4:2>]} : !G -> !layout.tensor<f32, #layout.cute<(8,4):(3,48)>, gmem>
  %d = layout.compose %a {tiler = #layout.cute<(4,2):(2,1)>} : !G -> !layout.tensor<f32, #layout.cute<(4,2):(2,1)>, gmem>
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(24,16):(1,24)>, gmem>
func.func @wrong_result(%src: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !G
  // expected-error @+1 {{composition}}
  %c = layout.compose %a {tiler = [#layout.cute<8:3>, #layout.cute<4:2>]} : !G -> !layout.tensor<f32, #layout.cute<(8,4):(1,8)>, gmem>
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(24,16):(1,24)>, gmem>
func.func @bad_tiler(%src: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !G
  // expected-error @+1 {{tiler must be a #layout.cute, an array of extents or an array of #layout.cute (by mode)}}
  %c = layout.compose %a {tiler = [1, 2]} : !G -> !G
  func.return
}
