// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -verify-diagnostics
// Checks that a tile with a dimension that is not a power of two is
// rejected by name before any layout is built.

tile.kernel @k(%x: !tile.ptr<i32>) {
  // expected-error @+1 {{tile shape 'tensor<3xi32>' has a dimension of 3; tiles must have power-of-two dimensions}}
  %r = tile.range 0 to 3 : tensor<3xi32>
  tile.store %r, %x[%r] : tensor<3xi32>, !tile.ptr<i32>, tensor<3xi32>
  tile.return
}
