// RUN: tessel-translate %s --target=sm_90 --emit=simt -o - | FileCheck %s
// Checks that an fp8 tile.dot on sm_90 converts each whole operand vector
// to f16 once (one arith.extf per operand, 16 fp8 of A and 16 of B per lane
// for a 16x32 by 32x16 dot on one warp) before any instruction, then issues
// (16/16)*(16/8)*(32/16) = 4 f16 nvvm.mma.sync m16n8k16 on f16 register
// pairs, chained through the f32 accumulator.

// CHECK: arith.extf {{.*}} : vector<16xf8E4M3FN> to vector<16xf16>
// CHECK-NEXT: arith.extf {{.*}} : vector<16xf8E4M3FN> to vector<16xf16>
// CHECK-NOT: arith.extf {{.*}}f8E4M3FN
// CHECK-COUNT-4: nvvm.mma.sync {{.*}} shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: nvvm.mma.sync
// CHECK-NOT: arith.extf {{.*}}f8E4M3FN
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
