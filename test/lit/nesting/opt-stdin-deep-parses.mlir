// RUN: python3 -c "p = chr(37); nl = chr(10); print('tile.kernel @k(' + p + 'n: i32) {' + nl + p + 'c0 = arith.constant 0 : i32' + nl + p + 'b = arith.cmpi slt, ' + p + 'c0, ' + p + 'n : i32' + nl + ('scf.if ' + p + 'b {' + nl) * 5000 + '}' * 5000 + nl + 'tile.return }')" > %t.mlir
// RUN: tessel-opt --canonicalize < %t.mlir | FileCheck %s
// Checks that standard input, which the nesting check does not see, still
// parses 5000 nested regions on the compiler's large stack (a default 8 MiB
// stack overflows near 3500); canonicalization then drops the empty scf.ifs.

// CHECK: tile.kernel @k
// CHECK-NOT: scf.if
// CHECK: tile.return
