// RUN: python3 -c "import sys; n = 254; p = chr(37); sys.stdout.write('tile.kernel @k(' + p + 'x: !tile.ptr<f32>, ' + p + 'n: i32) {' + chr(10) + p + 'c0 = arith.constant 0 : i32' + chr(10) + p + 'c1 = arith.constant 1 : i32' + chr(10) + p + 'r = tile.range 0 to 64 : tensor<64xi32>' + chr(10) + ''.join('scf.for ' + p + 'i' + str(k) + ' = ' + p + 'c0 to ' + p + 'n step ' + p + 'c1 : i32 {' + chr(10) for k in range(n)) + p + 'v = tile.load ' + p + 'x[' + p + 'r] : !tile.ptr<f32>, tensor<64xi32> -> tensor<64xf32>' + chr(10) + 'tile.store ' + p + 'v, ' + p + 'x[' + p + 'r] : tensor<64xf32>, !tile.ptr<f32>, tensor<64xi32>' + chr(10) + '}' * n + chr(10) + 'tile.return' + chr(10) + '}' + chr(10))" > %t.mlir
// RUN: tessel-translate %t.mlir --target=gfx942 --emit=hsaco -o %t.hsaco
// RUN: tessel-translate %t.mlir --target=sm_90 --emit=ptx -o - | FileCheck %s
// Checks that source nested right at the limit (254 loops in the kernel body,
// whose innermost types `tensor<64xi32>` reach depth 256) still compiles to
// a code object: the limit rejects nothing a kernel can reach.

// CHECK: .entry k(
