// RUN: tessel-opt %s -tile-specialize-knobs=target=gfx942 -canonicalize -tile-assign-layouts=target=gfx942 | FileCheck %s
// Checks that a dot result summed over part of M (a [2 * 32, 64] result
// reshaped to [2, 32, 64] and reduced over the 32) gets a non-transposed
// MFMA accumulator with its waves along N, that the reshape's result takes
// the source layout relabelled as a #tile.linear (no convert_layout), and
// that the reduction's result and the store are in the slice of it.

// CHECK-NOT: tile.convert_layout
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #tile.mfma<{version = 3, instrShape = [16, 16, 32], wavesPerCTA = [1, 4], transposed = false}>>
// CHECK: tile.reshape {{.*}} -> tensor<2x32x64xf32, #tile.linear<{rank = 3, register = {{\[\[}}0, 1, 0], [0, 2, 0], [0, 16, 0], [1, 0, 0]], lane = {{\[\[}}0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 4, 0], [0, 8, 0]], wave = {{\[\[}}0, 0, 16], [0, 0, 32]]}>>
// CHECK: tile.reduce add {{.*}} -> tensor<2x64xf32, #tile.slice<{dim = 1, parent = #tile.linear<
// CHECK: tile.store {{.*}} : tensor<2x64xf32, #tile.slice<{dim = 1, parent = #tile.linear<
// CHECK-NOT: tile.convert_layout
tile.kernel @k(%a: !tile.ptr<i8>, %b: !tile.ptr<i8>, %c: !tile.ptr<f32>)
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %r128 = tile.range 0 to 128 : tensor<128xi32>
  %c128 = arith.constant dense<128> : tensor<64x128xi32>
  %c64 = arith.constant dense<64> : tensor<128x64xi32>
  %am_1 = tile.expand_dims %r64, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %am = tile.broadcast %am_1 : tensor<64x1xi32> -> tensor<64x128xi32>
  %ak_1 = tile.expand_dims %r128, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %ak = tile.broadcast %ak_1 : tensor<1x128xi32> -> tensor<64x128xi32>
  %arow = arith.muli %am, %c128 : tensor<64x128xi32>
  %oa = arith.addi %arow, %ak : tensor<64x128xi32>
  %bk_1 = tile.expand_dims %r128, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %bk = tile.broadcast %bk_1 : tensor<128x1xi32> -> tensor<128x64xi32>
  %bn_1 = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %bn = tile.broadcast %bn_1 : tensor<1x64xi32> -> tensor<128x64xi32>
  %c128b = arith.constant dense<128> : tensor<128x64xi32>
  %bcol = arith.muli %bn, %c128b : tensor<128x64xi32>
  %ob = arith.addi %bcol, %bk : tensor<128x64xi32>
  %a8 = tile.load %a[%oa] : !tile.ptr<i8>, tensor<64x128xi32> -> tensor<64x128xi8>
  %b8 = tile.load %b[%ob] : !tile.ptr<i8>, tensor<128x64xi32> -> tensor<128x64xi8>
  %af = arith.bitcast %a8 : tensor<64x128xi8> to tensor<64x128xf8E4M3FNUZ>
  %bf = arith.bitcast %b8 : tensor<128x64xi8> to tensor<128x64xf8E4M3FNUZ>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %af, %bf, %z : tensor<64x128xf8E4M3FNUZ>, tensor<128x64xf8E4M3FNUZ> -> tensor<64x64xf32>
  %r = arith.maximumf %d, %z : tensor<64x64xf32>
  %r3 = tile.reshape %r : tensor<64x64xf32> -> tensor<2x32x64xf32>
  %s = tile.reduce add %r3, 1 : tensor<2x32x64xf32> -> tensor<2x64xf32>
  %r2 = tile.range 0 to 2 : tensor<2xi32>
  %c64o = arith.constant dense<64> : tensor<2x64xi32>
  %or_1 = tile.expand_dims %r2, 1 : tensor<2xi32> -> tensor<2x1xi32>
  %or = tile.broadcast %or_1 : tensor<2x1xi32> -> tensor<2x64xi32>
  %oc_1 = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %oc = tile.broadcast %oc_1 : tensor<1x64xi32> -> tensor<2x64xi32>
  %orow = arith.muli %or, %c64o : tensor<2x64xi32>
  %o = arith.addi %orow, %oc : tensor<2x64xi32>
  tile.store %s, %c[%o] : tensor<2x64xf32>, !tile.ptr<f32>, tensor<2x64xi32>
  tile.return
}
