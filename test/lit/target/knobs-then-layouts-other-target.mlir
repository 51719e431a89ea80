// RUN: not tessel-opt %s -tile-specialize-knobs=target=gfx942 -tile-assign-layouts=target=gfx950 2>&1 | FileCheck %s
// Checks that target knobs bound for gfx942 (fp8_fnuz = 1) cannot be followed
// by layouts for gfx950.

// CHECK: error: tile-assign-layouts for target 'gfx950' cannot run on a module already specialized for 'gfx942'
tile.kernel @k(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %e = tile.expand_dims %r, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %o = tile.broadcast %e : tensor<1x128xi32> -> tensor<4x128xi32>
  %v = tile.load %x[%o] : !tile.ptr<f32>, tensor<4x128xi32> -> tensor<4x128xf32>
  tile.store %v, %x[%o] : tensor<4x128xf32>, !tile.ptr<f32>, tensor<4x128xi32>
  tile.return
}
