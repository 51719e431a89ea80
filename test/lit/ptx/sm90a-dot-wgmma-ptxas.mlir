// RUN: tessel-translate %s --target=sm_90a --emit=ptx --ptxas=none -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// Checks a 128x128x64 fp8 tile.dot on one warpgroup: the widest wgmma N
// that divides 128 is 128, so the warpgroup holds two 64x128 accumulator
// tiles and runs 2 K steps of 32 over each: 128*128*64 / (64*128*32) = 4
// m64n128k32, all between one wgmma.fence and one commit/wait. K = 64 bytes
// per row selects the 64-byte swizzle (descriptor bits 62-63 = 2), and
// ptxas accepts the PTX for sm_90a.

// CHECK: fence.proxy.async.shared::cta;
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: wgmma

tile.kernel @k(%a: !tile.ptr<i8>, %b: !tile.ptr<i8>, %c: !tile.ptr<f32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
  // A [128, 64] and B [64, 128], both row-major; C [128, 128].
  %r128 = tile.range 0 to 128 : tensor<128xi32>
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %c64 = arith.constant dense<64> : tensor<128x64xi32>
  %c128 = arith.constant dense<128> : tensor<64x128xi32>
  %c128c = arith.constant dense<128> : tensor<128x128xi32>

  %ar1 = tile.expand_dims %r128, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %ar = tile.broadcast %ar1 : tensor<128x1xi32> -> tensor<128x64xi32>
  %ak1 = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %ak = tile.broadcast %ak1 : tensor<1x64xi32> -> tensor<128x64xi32>
  %arow = arith.muli %ar, %c64 : tensor<128x64xi32>
  %aoff = arith.addi %arow, %ak : tensor<128x64xi32>
  %a8 = tile.load %a[%aoff] : !tile.ptr<i8>, tensor<128x64xi32> -> tensor<128x64xi8>

  %bk1 = tile.expand_dims %r64, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %bk = tile.broadcast %bk1 : tensor<64x1xi32> -> tensor<64x128xi32>
  %bn1 = tile.expand_dims %r128, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %bn = tile.broadcast %bn1 : tensor<1x128xi32> -> tensor<64x128xi32>
  %brow = arith.muli %bk, %c128 : tensor<64x128xi32>
  %boff = arith.addi %brow, %bn : tensor<64x128xi32>
  %b8 = tile.load %b[%boff] : !tile.ptr<i8>, tensor<64x128xi32> -> tensor<64x128xi8>

  %av = arith.bitcast %a8 : tensor<128x64xi8> to tensor<128x64xf8E4M3FN>
  %bv = arith.bitcast %b8 : tensor<64x128xi8> to tensor<64x128xf8E4M3FN>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %av, %bv, %zero : tensor<128x64xf8E4M3FN>, tensor<64x128xf8E4M3FN> -> tensor<128x128xf32>

  %cr1 = tile.expand_dims %r128, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %cr = tile.broadcast %cr1 : tensor<128x1xi32> -> tensor<128x128xi32>
  %cc1 = tile.expand_dims %r128, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %cc = tile.broadcast %cc1 : tensor<1x128xi32> -> tensor<128x128xi32>
  %crow = arith.muli %cr, %c128c : tensor<128x128xi32>
  %coff = arith.addi %crow, %cc : tensor<128x128xi32>
  tile.store %d, %c[%coff] : tensor<128x128xf32>, !tile.ptr<f32>, tensor<128x128xi32>
  tile.return
}
