// An arith.cmpi / arith.cmpf predicate out of range (the generic form takes any
// integer; xDSL does not check it) is a located error: it was an IndexError when the
// op was printed or lowered (found by the fuzzer, exit 2).
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file -p default 2>&1 | filecheck %s

// CHECK: compare_predicate.mlir:[[# @LINE + 3]]:3: error: 'arith.cmpi': predicate 48 is out of range: [0, 10) (eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge)
func.func @cmpi(%a: index, %b: index) -> i1 {
  // expected-error @+1 {{predicate 48 is out of range: [0, 10)}}
  %r = "arith.cmpi"(%a, %b) <{predicate = 48 : i64}> : (index, index) -> i1
  func.return %r : i1
}

// -----

func.func @cmpi_negative(%a: index, %b: index) -> i1 {
  // expected-error @+1 {{predicate -1 is out of range: [0, 10)}}
  %r = "arith.cmpi"(%a, %b) <{predicate = -1 : i64}> : (index, index) -> i1
  func.return %r : i1
}

// -----

func.func @cmpf(%a: f32, %b: f32) -> i1 {
  // expected-error @+1 {{predicate 16 is out of range: [0, 16)}}
  %r = "arith.cmpf"(%a, %b) <{predicate = 16 : i64, fastmath = #arith.fastmath<none>}> : (f32, f32) -> i1
  func.return %r : i1
}
