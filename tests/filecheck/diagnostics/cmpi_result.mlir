// xDSL's constraint failure keeps its reason (issue 18): it was cut off after
// "does not verify:".
// RUN: not tilec %s 2>&1 | filecheck %s

// CHECK: cmpi_result.mlir:[[# @LINE + 2]]:3: error: 'arith.cmpi': result 'result' at position 0 does not verify: expected i1, got index
func.func @cmpi_index(%v: index, %w: index) {
  %d = "arith.cmpi"(%v, %w) {predicate = 2 : i64} : (index, index) -> index
  func.return
}
