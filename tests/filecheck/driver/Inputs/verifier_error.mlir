func.func @f(%p: !layout.ptr<f16>) {
  %a = layout.view %p : !layout.ptr<f16> -> !layout.tensor<f32, #layout.cute<8:1>, gmem>
  func.return
}
