// RUN: tessel-translate %kernels/scaled_gemm_fp8.mlir --target=sm_90a --emit=simt --knob num_waves=4 -o - | FileCheck %s --check-prefix=SW32
// RUN: tessel-translate %S/../ptx/sm90a-dot-wgmma-ptxas.mlir --target=sm_90a --emit=simt -o - | FileCheck %s --check-prefix=SW64
// RUN: tessel-translate %s --target=sm_90a --emit=simt -o - | FileCheck %s --check-prefix=SW128
// Checks the wgmma matrix descriptors (PTX ISA matrix-descriptor format):
// (start address >> 4) & 0x3fff, OR'd with the fixed fields: leading byte
// offset 16 (field 1, unused for swizzled K-major), stride byte offset of
// 8 rows of the swizzle width (field >> 4 at bit 32), swizzle mode at bit
// 62 (1 = 128B, 2 = 64B, 3 = 32B). K extents of 32, 64 and 128 bytes pick
// the 32B, 64B and 128B swizzles:
//   32B:  1<<16 | (256>>4)<<32  | 3<<62 = 0xC000001000010000
//   64B:  1<<16 | (512>>4)<<32  | 2<<62 = 0x8000002000010000
//   128B: 1<<16 | (1024>>4)<<32 | 1<<62 = 0x4000004000010000
// (printed as signed i64), and the staging buffer is aligned to the
// swizzle pattern (8 rows of the swizzle width).

// SW32: workgroup(%{{.*}} : memref<4096xi8, #gpu.address_space<workgroup>> {llvm.align = 256 : i64})
// SW32: %[[F:.*]] = arith.constant -4611685949707845632 : i64
// SW32: %[[A:.*]] = arith.andi %{{.*}}, %c16383_i64 : i64
// SW32: arith.ori %[[A]], %[[F]] : i64
// SW32: nvvm.wgmma.mma_async

// SW64: {llvm.align = 512 : i64}
// SW64: arith.constant -9223371899415756800 : i64
// SW64: nvvm.wgmma.mma_async

// SW128: {llvm.align = 1024 : i64}
// SW128: arith.constant 4611686293305360384 : i64
// SW128-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>

tile.kernel @k(%a: !tile.ptr<i8>, %b: !tile.ptr<i8>, %c: !tile.ptr<f32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
  // A [64, 128] and B as [64 (N), 128 (K)], both row-major; C [64, 64].
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %r128 = tile.range 0 to 128 : tensor<128xi32>
  %c128a = arith.constant dense<128> : tensor<64x128xi32>
  %c128b = arith.constant dense<128> : tensor<128x64xi32>
  %c64c = arith.constant dense<64> : tensor<64x64xi32>
  %ar1 = tile.expand_dims %r64, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ar = tile.broadcast %ar1 : tensor<64x1xi32> -> tensor<64x128xi32>
  %ak1 = tile.expand_dims %r128, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %ak = tile.broadcast %ak1 : tensor<1x128xi32> -> tensor<64x128xi32>
  %arow = arith.muli %ar, %c128a : tensor<64x128xi32>
  %aoff = arith.addi %arow, %ak : tensor<64x128xi32>
  %a8 = tile.load %a[%aoff] : !tile.ptr<i8>, tensor<64x128xi32> -> tensor<64x128xi8>
  %bk1 = tile.expand_dims %r128, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %bk = tile.broadcast %bk1 : tensor<128x1xi32> -> tensor<128x64xi32>
  %bn1 = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %bn = tile.broadcast %bn1 : tensor<1x64xi32> -> tensor<128x64xi32>
  %bcol = arith.muli %bn, %c128b : tensor<128x64xi32>
  %boff = arith.addi %bcol, %bk : tensor<128x64xi32>
  %b8 = tile.load %b[%boff] : !tile.ptr<i8>, tensor<128x64xi32> -> tensor<128x64xi8>
  %av = arith.bitcast %a8 : tensor<64x128xi8> to tensor<64x128xf8E4M3FN>
  %bv = arith.bitcast %b8 : tensor<128x64xi8> to tensor<128x64xf8E4M3FN>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %av, %bv, %zero : tensor<64x128xf8E4M3FN>, tensor<128x64xf8E4M3FN> -> tensor<64x64xf32>
  %cr1 = tile.expand_dims %r64, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cr = tile.broadcast %cr1 : tensor<64x1xi32> -> tensor<64x64xi32>
  %cc1 = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cc = tile.broadcast %cc1 : tensor<1x64xi32> -> tensor<64x64xi32>
  %crow = arith.muli %cr, %c64c : tensor<64x64xi32>
  %coff = arith.addi %crow, %cc : tensor<64x64xi32>
  tile.store %d, %c[%coff] : tensor<64x64xf32>, !tile.ptr<f32>, tensor<64x64xi32>
  tile.return
}
