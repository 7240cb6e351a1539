// A file that ends inside a long string literal (a cut file, a missing quote): a located
// error at once, exit 1. xDSL's lexer backtracked exponentially on it and tilec hung
// (support/locations.py; found by tests/fuzz/test_cli_fuzz.py's prefixes).
// RUN: not tilec %s 2>&1 | filecheck %s

// CHECK: unterminated_string.mlir:[[# @LINE + 3]]:28: error: End of file reached before closing string literal.
func.func @f() {
  %t = arith.constant true
  layout.static_assert %t, "a message of more than thirty characters, without its closing quote