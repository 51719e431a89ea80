// RUN: tessel-translate %s --target=sm_90 --emit=simt -o - | FileCheck %s
// Checks that a bf16 tile.dot on sm_90 issues (16/16)*(16/8)*(32/16) = 4
// bf16 nvvm.mma.sync m16n8k16 for a 16x32 by 32x16 dot on one warp, on bf16
// pairs packed into i32 (as nvvm.mma.sync takes bf16), with no conversion of
// the operands.

// CHECK-NOT: arith.extf
// CHECK: vector.bitcast {{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK-COUNT-4: nvvm.mma.sync {{.*}} {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: nvvm.mma.sync
tile.kernel @k(%x: !tile.ptr<bf16>, %y: !tile.ptr<f32>) {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %v = tile.load %x[%r] : !tile.ptr<bf16>, tensor<512xi32> -> tensor<512xbf16>
  %a = tile.reshape %v : tensor<512xbf16> -> tensor<16x32xbf16>
  %b = tile.reshape %v : tensor<512xbf16> -> tensor<32x16xbf16>
  %c = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %a, %b, %c : tensor<16x32xbf16>, tensor<32x16xbf16> -> tensor<16x16xf32>
  %o = tile.reshape %d : tensor<16x16xf32> -> tensor<256xf32>
  %r2 = tile.range 0 to 256 : tensor<256xi32>
  tile.store %o, %y[%r2] : tensor<256xf32>, !tile.ptr<f32>, tensor<256xi32>
  tile.return
}
