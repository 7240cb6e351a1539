func.func @f() attributes {l = #layout.nosuch<1>} {
  func.return
}
