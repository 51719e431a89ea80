// RUN: tessel-translate %s --target=sm_90 --emit=ptx -o - | FileCheck %s
// Checks that an fp8 dot whose K is 16 (no 16x8x32 tile fits) runs as f16
// m16n8k16 on the 16-bit fragment layout: (16/16)*(16/8)*(16/16) = 2
// instructions on one warp, after converting the lane's 8 fp8 of A and 8 of
// B once (8 cvt of two), and no e4m3 mma.sync.

// CHECK-NOT: e4m3.e4m3
// CHECK-COUNT-8: cvt.rn.f16x2.e4m3x2
// CHECK-NOT: cvt.rn.f16x2.e4m3x2
// CHECK-NOT: e4m3.e4m3
// CHECK-COUNT-2: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: mma.sync
// CHECK-NOT: cvt.rn.f16x2.e4m3x2
tile.kernel @k(%x: !tile.ptr<i8>, %y: !tile.ptr<f32>) {
  %r = tile.range 0 to 256 : tensor<256xi32>
  %v = tile.load %x[%r] : !tile.ptr<i8>, tensor<256xi32> -> tensor<256xi8>
  %f = arith.bitcast %v : tensor<256xi8> to tensor<256xf8E4M3FN>
  %a = tile.reshape %f : tensor<256xf8E4M3FN> -> tensor<16x16xf8E4M3FN>
  %c = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %a, %a, %c : tensor<16x16xf8E4M3FN>, tensor<16x16xf8E4M3FN> -> tensor<16x16xf32>
  %o = tile.reshape %d : tensor<16x16xf32> -> tensor<256xf32>
  tile.store %o, %y[%r] : tensor<256xf32>, !tile.ptr<f32>, tensor<256xi32>
  tile.return
}
