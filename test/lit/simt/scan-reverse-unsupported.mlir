// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -verify-diagnostics
// Checks that a reverse scan, not lowered yet, is refused with a clear
// message.

tile.kernel @k(%x: !tile.ptr<i32>) {
  %r = tile.range 0 to 64 : tensor<64xi32>
  // expected-error @+2 {{reverse scans are not lowered yet; scan a reversed tile instead}}
  // expected-error @+1 {{failed to legalize operation 'tile.scan' that was explicitly marked illegal}}
  %s = tile.scan add %r, 0 {reverse} : tensor<64xi32>
  tile.store %s, %x[%r] : tensor<64xi32>, !tile.ptr<i32>, tensor<64xi32>
  tile.return
}
