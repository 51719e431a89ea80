// RUN: not tessel-translate %s --target=sm_90 --emit=ptx -o /dev/null 2>&1 | FileCheck %s
// Checks that a register-footprint error about a constant that canonicalize
// folded (and so moved to an unknown location) is reported at a located user.
// The row offsets of A are also stored as values, so that they are not a
// tile of addresses only (those cost one offset per vector access).

// CHECK-NOT: <unknown>
// CHECK: footprint-error-located-at-user.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tile {{.*}} needs 256 32-bit registers per lane

tile.kernel @k(%a: !tile.ptr<i8>, %b: !tile.ptr<i8>, %c: !tile.ptr<f32>, %o: !tile.ptr<i32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
  %r128 = tile.range 0 to 128 : tensor<128xi32>
  %r64 = tile.range 0 to 128 : tensor<128xi32>
  %c64 = arith.constant dense<128> : tensor<128x128xi32>
  %c128 = arith.constant dense<128> : tensor<128x128xi32>
  %c128c = arith.constant dense<128> : tensor<128x128xi32>
  %ar1 = tile.expand_dims %r128, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %ar = tile.broadcast %ar1 : tensor<128x1xi32> -> tensor<128x128xi32>
  %ak1 = tile.expand_dims %r64, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %ak = tile.broadcast %ak1 : tensor<1x128xi32> -> tensor<128x128xi32>
  %arow = arith.muli %ar, %c64 : tensor<128x128xi32>
  %aoff = arith.addi %arow, %ak : tensor<128x128xi32>
  %a8 = tile.load %a[%aoff] : !tile.ptr<i8>, tensor<128x128xi32> -> tensor<128x128xi8>
  tile.store %arow, %o[%aoff] : tensor<128x128xi32>, !tile.ptr<i32>, tensor<128x128xi32>
  %bk1 = tile.expand_dims %r64, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %bk = tile.broadcast %bk1 : tensor<128x1xi32> -> tensor<128x128xi32>
  %bn1 = tile.expand_dims %r128, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %bn = tile.broadcast %bn1 : tensor<1x128xi32> -> tensor<128x128xi32>
  %brow = arith.muli %bk, %c128 : tensor<128x128xi32>
  %boff = arith.addi %brow, %bn : tensor<128x128xi32>
  %b8 = tile.load %b[%boff] : !tile.ptr<i8>, tensor<128x128xi32> -> tensor<128x128xi8>
  %av = arith.bitcast %a8 : tensor<128x128xi8> to tensor<128x128xf8E4M3FN>
  %bv = arith.bitcast %b8 : tensor<128x128xi8> to tensor<128x128xf8E4M3FN>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %av, %bv, %zero : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
  %cr1 = tile.expand_dims %r128, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %cr = tile.broadcast %cr1 : tensor<128x1xi32> -> tensor<128x128xi32>
  %cc1 = tile.expand_dims %r128, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %cc = tile.broadcast %cc1 : tensor<1x128xi32> -> tensor<128x128xi32>
  %crow = arith.muli %cr, %c128c : tensor<128x128xi32>
  %coff = arith.addi %crow, %cc : tensor<128x128xi32>
  tile.store %d, %c[%coff] : tensor<128x128xf32>, !tile.ptr<f32>, tensor<128x128xi32>
  tile.return
}
