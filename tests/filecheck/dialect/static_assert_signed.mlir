// RUN: tilec %s | filecheck %s
// RUN: tilec %s -p default | filecheck %s --check-prefix=LOWERED
// layout.static_assert of signed division and remainder of a negative dividend, folded
// by the verifier as C computes them: -7 / 2 is -3 and -7 % 2 is -1 (not Python's floor,
// -4 and 1). A wrong fold is a verifier error, so the round trip is the check.

// CHECK-LABEL: func.func @signed_division
// CHECK: layout.static_assert %qok, "divsi truncates toward zero"
// CHECK: layout.static_assert %rok, "remsi takes the dividend's sign"
// LOWERED-LABEL: func.func @signed_division
// LOWERED-NOT: layout.static_assert
func.func @signed_division() {
  %m7 = arith.constant -7 : index
  %c2 = arith.constant 2 : index
  %q = arith.divsi %m7, %c2 : index
  %r = arith.remsi %m7, %c2 : index
  %cm3 = arith.constant -3 : index
  %cm1 = arith.constant -1 : index
  %qok = arith.cmpi eq, %q, %cm3 : index
  %rok = arith.cmpi eq, %r, %cm1 : index
  layout.static_assert %qok, "divsi truncates toward zero"
  layout.static_assert %rok, "remsi takes the dividend's sign"
  func.return
}
