func.func @f() {
  %a = arith.constant 1 : index
