// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=sm_90a | FileCheck %s
// Checks that an async dot whose result is carried to the next loop
// iteration (issued for tile i + 1, waited for in iteration i + 1) gives its
// wgmma accumulator layout to what consumes the carried value after its
// dot_wait, and to the loop-invariant operands of that consumer: the
// elementwise ops and the broadcast weights defined before the loop take
// #tile.nv_mma directly, so no layout conversion appears inside the loop.

// CHECK-NOT: tile.convert_layout
// CHECK: tile.broadcast %{{.*}} -> tensor<64x64xf32, #tile.nv_mma
// CHECK: scf.for
// CHECK: tile.dot_wait pending = 1, %{{.*}} : tensor<64x64xf32, #tile.nv_mma
// CHECK: arith.maximumf %{{.*}} : tensor<64x64xf32, #tile.nv_mma
// CHECK: arith.mulf %{{.*}} : tensor<64x64xf32, #tile.nv_mma
// CHECK-NOT: tile.convert_layout
// CHECK: tile.return
#wgA = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#wgB = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1]}>
tile.kernel @k(%w: !tile.ptr<f32>, %x: !tile.ptr<f32>, %n: i32) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = tile.local_alloc : !tile.memdesc<64x128xf8E4M3FN, #wgA>
  %b = tile.local_alloc : !tile.memdesc<128x64xf8E4M3FN, #wgB>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = tile.range 0 to 64 : tensor<64xi32>
  %wv = tile.load %w[%r] : !tile.ptr<f32>, tensor<64xi32> -> tensor<64xf32>
  %w1 = tile.expand_dims %wv, 1 : tensor<64xf32> -> tensor<64x1xf32>
  %wb = tile.broadcast %w1 : tensor<64x1xf32> -> tensor<64x64xf32>
  %p0 = tile.dot %a, %b, %z {async} : !tile.memdesc<64x128xf8E4M3FN, #wgA>, !tile.memdesc<128x64xf8E4M3FN, #wgB> -> tensor<64x64xf32>
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%p = %p0) -> (tensor<64x64xf32>) : i32 {
    %q = tile.dot %a, %b, %z {async} : !tile.memdesc<64x128xf8E4M3FN, #wgA>, !tile.memdesc<128x64xf8E4M3FN, #wgB> -> tensor<64x64xf32>
    %d = tile.dot_wait pending = 1, %p : tensor<64x64xf32>
    %relu = arith.maximumf %d, %z : tensor<64x64xf32>
    %m = arith.mulf %relu, %wb : tensor<64x64xf32>
    %s = tile.reduce add %m, 0 : tensor<64x64xf32> -> tensor<64xf32>
    tile.store %s, %x[%r] : tensor<64xf32>, !tile.ptr<f32>, tensor<64xi32>
    scf.yield %q : tensor<64x64xf32>
  }
  %done = tile.dot_wait pending = 0, %last : tensor<64x64xf32>
  tile.return
}
