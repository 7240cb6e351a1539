// A user's mistake ends in ONE line `FILE[:LINE:COL]: error: ...` (or `tilec: error:`
// when no file is involved) and exit status 1: no traceback, no "internal error".
// Each case checks the one line, then that nothing else was printed but the status.

// RUN: %python %S/Inputs/status.py tilec %S/Inputs/no_such_file.mlir | filecheck %s --check-prefix=MISSING
// MISSING: {{^.*}}no_such_file.mlir: error: cannot read '{{.*}}no_such_file.mlir': No such file or directory
// MISSING-NEXT: {{^}}exit status 1

// RUN: %python %S/Inputs/status.py tilec %S/Inputs | filecheck %s --check-prefix=DIRECTORY
// DIRECTORY: {{^.*}}Inputs: error: cannot read '{{.*}}Inputs': Is a directory
// DIRECTORY-NEXT: {{^}}exit status 1

// RUN: %python %S/Inputs/status.py tilec %S/Inputs/binary.mlir | filecheck %s --check-prefix=BINARY
// BINARY: {{^.*}}binary.mlir: error: cannot read '{{.*}}binary.mlir': not a UTF-8 text file
// BINARY-NEXT: {{^}}exit status 1

// RUN: %python %S/Inputs/status.py tilec %s -p nosuchpass | filecheck %s --check-prefix=UNKNOWN-PASS
// UNKNOWN-PASS: {{^}}tilec: error: invalid pass pipeline 'nosuchpass': Unrecognized passes: ['nosuchpass']
// UNKNOWN-PASS-NEXT: {{^}}exit status 1

// RUN: %python %S/Inputs/status.py tilec %s -p 'canonicalize{' | filecheck %s --check-prefix=OPEN-BRACE
// OPEN-BRACE: {{^}}tilec: error: invalid pass pipeline 'canonicalize{': Expected argument name here (at column 14)
// OPEN-BRACE-NEXT: {{^}}exit status 1

// RUN: %python %S/Inputs/status.py tilec %s -p 'canonicalize{nosuch=1}' | filecheck %s --check-prefix=PASS-OPTION
// PASS-OPTION: {{^}}tilec: error: invalid pass pipeline 'canonicalize{nosuch=1}': Provided arguments ["nosuch"] not found
// PASS-OPTION-NEXT: {{^}}exit status 1

// RUN: %python %S/Inputs/status.py tilec %s --no-such-flag | filecheck %s --check-prefix=FLAG
// FLAG: {{^}}tilec: error: unrecognized arguments: --no-such-flag
// FLAG-NEXT: {{^}}exit status 1

// RUN: %python %S/Inputs/status.py tilec %s -t nosuch | filecheck %s --check-prefix=TARGET
// TARGET: {{^}}tilec: error: unknown target 'nosuch' (choose from mlir, cuda)
// TARGET-NEXT: {{^}}exit status 1

// RUN: %python %S/Inputs/status.py tilec %s -o %S/Inputs/no_such_dir/out.mlir | filecheck %s --check-prefix=OUTPUT
// OUTPUT: {{^}}tilec: error: cannot write '{{.*}}out.mlir': No such file or directory
// OUTPUT-NEXT: {{^}}exit status 1

// RUN: %python %S/Inputs/status.py tilec %S/Inputs/truncated.mlir | filecheck %s --check-prefix=TRUNCATED
// TRUNCATED: {{^.*}}truncated.mlir:3:1: error: unexpected end of file
// TRUNCATED-NEXT: {{^}}exit status 1

// RUN: %python %S/Inputs/status.py tilec %S/Inputs/bad_attribute_syntax.mlir | filecheck %s --check-prefix=ATTR-SYNTAX
// ATTR-SYNTAX: {{^.*}}bad_attribute_syntax.mlir:1:45: error: invalid layout: Layout: shape (4,8) and stride (8,1,2) are not congruent
// ATTR-SYNTAX-NEXT: {{^}}exit status 1

// RUN: %python %S/Inputs/status.py tilec %S/Inputs/unknown_op.mlir | filecheck %s --check-prefix=UNKNOWN-OP
// UNKNOWN-OP: {{^.*}}unknown_op.mlir:2:12: error: Operation foo.bar is not registered
// UNKNOWN-OP-NEXT: {{^}}exit status 1

// RUN: %python %S/Inputs/status.py tilec %S/Inputs/unknown_attribute.mlir | filecheck %s --check-prefix=UNKNOWN-ATTR
// UNKNOWN-ATTR: {{^.*}}unknown_attribute.mlir:1:46: error: 'layout.nosuch' is not registered
// UNKNOWN-ATTR-NEXT: {{^}}exit status 1

// RUN: %python %S/Inputs/status.py tilec %S/Inputs/type_mismatch.mlir | filecheck %s --check-prefix=TYPE-MISMATCH
// TYPE-MISMATCH: {{^.*}}type_mismatch.mlir:3:19: error: operand is used with type index, but has been previously used or defined with type f32
// TYPE-MISMATCH-NEXT: {{^}}exit status 1

// An op whose construction fails while it is parsed gets the op's location.
// RUN: %python %S/Inputs/status.py tilec %S/Inputs/op_construction_error.mlir | filecheck %s --check-prefix=OP-BUILD
// OP-BUILD: {{^.*}}op_construction_error.mlir:2:3: error: Unexpected attribute i32
// OP-BUILD-NEXT: {{^}}exit status 1

// RUN: %python %S/Inputs/status.py tilec %S/Inputs/verifier_error.mlir | filecheck %s --check-prefix=VERIFY
// VERIFY: {{^.*}}verifier_error.mlir:2:3: error: 'layout.view': element types disagree: pointer to f16, view of f32
// VERIFY-NEXT: {{^}}exit status 1

// The same through `not`, as the other lit tests use it.
// RUN: not tilec %S/Inputs/truncated.mlir 2>&1 | filecheck %s --check-prefix=NOT
// NOT: truncated.mlir:3:1: error:
// NOT-NOT: Traceback
