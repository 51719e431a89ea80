// RUN: tessel-opt %s -tile-assign-layouts=target=gfx950 | FileCheck %s
// Checks that assigning layouts records the target on the module, so that
// later stages can tell which target the layouts were chosen for.

// CHECK: module attributes {tessel.target = "gfx950"}
tile.kernel @k(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %e = tile.expand_dims %r, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %o = tile.broadcast %e : tensor<1x128xi32> -> tensor<4x128xi32>
  %v = tile.load %x[%o] : !tile.ptr<f32>, tensor<4x128xi32> -> tensor<4x128xf32>
  tile.store %v, %x[%o] : tensor<4x128xf32>, !tile.ptr<f32>, tensor<4x128xi32>
  tile.return
}
