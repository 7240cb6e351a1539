func.func @f() attributes {l = #layout.cute<(4,8):(8,1,2)>} {
  func.return
}
