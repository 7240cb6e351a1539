func.func @f(%a: i32) {
  %b = arith.addf %a, %a : i32
  func.return
}
