func.func @f() {
  %a = arith.constant 1.0 : f32
  %b = arith.addi %a, %a : index
  func.return
}
