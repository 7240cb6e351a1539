// A sigil with no name after it (`%`, `#`, `!`, `^`): the message names the character
// (xDSL's lexer printed "after {first_char}" unformatted; found by the fuzzer).
// RUN: not tilec %s 2>&1 | filecheck %s

func.func @f() {
  // CHECK: bare_sigil.mlir:[[# @LINE + 1]]:3: error: Expected suffix identifier after '%'
  % = arith.constant 1 : index
  func.return
}
