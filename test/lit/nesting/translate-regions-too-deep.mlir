// RUN: python3 -c "p = chr(37); nl = chr(10); print('tile.kernel @k(' + p + 'n: i32) {' + nl + p + 'c0 = arith.constant 0 : i32' + nl + p + 'b = arith.cmpi slt, ' + p + 'c0, ' + p + 'n : i32' + nl + ('scf.if ' + p + 'b {' + nl) * 5000 + '}' * 5000 + nl + 'tile.return }')" > %t.mlir
// RUN: not tessel-translate %t.mlir --target=gfx942 --emit=hsaco -o %t.hsaco 2>&1 | FileCheck %s
// RUN: not tessel-translate %t.mlir --target=sm_90 --emit=ptx -o %t.ptx 2>&1 | FileCheck %s
// Checks that 5000 nested regions are rejected before parsing with an error
// at the bracket that crosses the limit (the kernel body is depth 1, so the
// 256th scf.if, on line 259, opens depth 257), not a stack overflow.

// CHECK: .mlir:259:11: error: nesting depth 5001 exceeds the limit 256
// CHECK-NOT: Stack dump
