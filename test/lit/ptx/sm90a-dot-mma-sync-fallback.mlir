// RUN: tessel-translate %s --target=sm_90a --emit=ptx -o - | FileCheck %s
// Checks that sm_90a serves a dot through mma.sync where a warpgroup
// instruction does not fit (M = 16, one warp): fp8 as f16 m16n8k16,
// (16/16)*(16/8)*(32/16) = 4 instructions, after converting the lane's
// 16 + 16 fp8 operand elements once (16 cvt of two), and no e4m3 mma.sync.

// CHECK: .target sm_90a
// CHECK-NOT: e4m3.e4m3
// CHECK-COUNT-16: cvt.rn.f16x2.e4m3x2
// CHECK-NOT: cvt.rn.f16x2.e4m3x2
// CHECK-NOT: e4m3.e4m3
// CHECK-COUNT-4: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: mma.sync
// CHECK-NOT: cvt.rn.f16x2.e4m3x2
tile.kernel @k(%x: !tile.ptr<i8>, %y: !tile.ptr<f32>) {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %v = tile.load %x[%r] : !tile.ptr<i8>, tensor<512xi32> -> tensor<512xi8>
  %f = arith.bitcast %v : tensor<512xi8> to tensor<512xf8E4M3FN>
  %a = tile.reshape %f : tensor<512xf8E4M3FN> -> tensor<16x32xf8E4M3FN>
  %b = tile.reshape %f : tensor<512xf8E4M3FN> -> tensor<32x16xf8E4M3FN>
  %c = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %a, %b, %c : tensor<16x32xf8E4M3FN>, tensor<32x16xf8E4M3FN> -> tensor<16x16xf32>
  %o = tile.reshape %d : tensor<16x16xf32> -> tensor<256xf32>
  %r2 = tile.range 0 to 256 : tensor<256xi32>
  tile.store %o, %y[%r2] : tensor<256xf32>, !tile.ptr<f32>, tensor<256xi32>
  tile.return
}
