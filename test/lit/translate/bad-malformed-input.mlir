// RUN: not tessel-translate %s --target=gfx942 --emit=asm -o /dev/null 2>&1 | FileCheck %s
// Checks that a syntax error is reported at its file:line:col.

// CHECK: bad-malformed-input.mlir:[[@LINE+3]]:{{[0-9]+}}: error:
module {
  func.func @f() {
    %0 = arith.constant : i32
    return
  }
}
