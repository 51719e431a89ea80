// RUN: python3 -c "p = chr(37); nl = chr(10); print('tile.kernel @k(' + p + 'n: i32) {' + nl + p + 'c0 = arith.constant 0 : i32' + nl + p + 'b = arith.cmpi slt, ' + p + 'c0, ' + p + 'n : i32' + nl + ('scf.if ' + p + 'b {' + nl) * 5000 + '}' * 5000 + nl + 'tile.return }')" > %t.mlir
// RUN: not tessel-opt %t.mlir -o /dev/null 2>&1 | FileCheck %s
// Checks that tessel-opt rejects 5000 nested regions before parsing, with the
// location of the bracket that crosses the limit.

// CHECK: .mlir:259:11: error: nesting depth 5001 exceeds the limit 256
