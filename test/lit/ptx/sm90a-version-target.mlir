// RUN: tessel-translate %s --target=sm_90a --emit=ptx -o - | FileCheck %s
// Checks that a tile kernel compiled for sm_90a gives PTX for the
// architecture-specific target (needed by wgmma), not for portable sm_90.

// CHECK: .version 8.4
// CHECK: .target sm_90a{{$}}
// CHECK: .visible .entry k(

tile.kernel @k(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %v = tile.load %x[%r] : !tile.ptr<f32>, tensor<128xi32> -> tensor<128xf32>
  %w = arith.addf %v, %v : tensor<128xf32>
  tile.store %w, %x[%r] : tensor<128xf32>, !tile.ptr<f32>, tensor<128xi32>
  tile.return
}
