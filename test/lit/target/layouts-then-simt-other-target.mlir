// RUN: not tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=sm_90 2>&1 | FileCheck %s
// Checks that lowering to SIMT IR for sm_90 refuses a module whose layouts
// were assigned for gfx942 (64-lane waves), naming both targets.

// CHECK: error: convert-tile-to-simt for target 'sm_90' cannot run on a module already specialized for 'gfx942'
tile.kernel @k(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %e = tile.expand_dims %r, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %o = tile.broadcast %e : tensor<1x128xi32> -> tensor<4x128xi32>
  %v = tile.load %x[%o] : !tile.ptr<f32>, tensor<4x128xi32> -> tensor<4x128xf32>
  tile.store %v, %x[%o] : tensor<4x128xf32>, !tile.ptr<f32>, tensor<4x128xi32>
  tile.return
}
