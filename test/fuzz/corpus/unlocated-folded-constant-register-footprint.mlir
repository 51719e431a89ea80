// Fuzzer failure: unlocated on --target=sm_90 --emit=ptx
// from test/lit/ptx/sm90a-dot-wgmma-ptxas.mlir#0, mutant 143 of seed 2 (shape_all)
// <unknown>:0: error: tile 'tensor<128x128xi32, #tile.dot_operand<{opIdx = 0, parent = #tile.nv_mma<{version = 2, instrShape = [16, 8, 32], wavesPerCTA = [2, 2]}>, kWidth = 4}>>' needs 256 32-bit regist
tile.kernel @k(%a: !tile.ptr<i8>, %b: !tile.ptr<i8>, %c: !tile.ptr<f32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
  %r128 = tile.range 0 to 128 : tensor<128xi32>
  %r64 = tile.range 0 to 128 : tensor<128xi32>
  %c64 = arith.constant dense<128> : tensor<128x128xi32>
  %c128 = arith.constant dense<128> : tensor<128x128xi32>
  %c128c = arith.constant dense<128> : tensor<128x128xi32>
  %ar1 = tile.expand_dims %r128, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %ar = tile.broadcast %ar1 : tensor<128x1xi32> -> tensor<128x128xi32>
  %ak1 = tile.expand_dims %r64, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %ak = tile.broadcast %ak1 : tensor<1x128xi32> -> tensor<128x128xi32>
  %arow = arith.muli %ar, %c64 : tensor<128x128xi32>
  %aoff = arith.addi %arow, %ak : tensor<128x128xi32>
  %a8 = tile.load %a[%aoff] : !tile.ptr<i8>, tensor<128x128xi32> -> tensor<128x128xi8>
  %bk1 = tile.expand_dims %r64, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %bk = tile.broadcast %bk1 : tensor<128x1xi32> -> tensor<128x128xi32>
  %bn1 = tile.expand_dims %r128, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %bn = tile.broadcast %bn1 : tensor<1x128xi32> -> tensor<128x128xi32>
  %brow = arith.muli %bk, %c128 : tensor<128x128xi32>
  %boff = arith.addi %brow, %bn : tensor<128x128xi32>
  %b8 = tile.load %b[%boff] : !tile.ptr<i8>, tensor<128x128xi32> -> tensor<128x128xi8>
  %av = arith.bitcast %a8 : tensor<128x128xi8> to tensor<128x128xf8E4M3FN>
  %bv = arith.bitcast %b8 : tensor<128x128xi8> to tensor<128x128xf8E4M3FN>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %av, %bv, %zero : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
  %cr1 = tile.expand_dims %r128, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %cr = tile.broadcast %cr1 : tensor<128x1xi32> -> tensor<128x128xi32>
  %cc1 = tile.expand_dims %r128, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %cc = tile.broadcast %cc1 : tensor<1x128xi32> -> tensor<128x128xi32>
  %crow = arith.muli %cr, %c128c : tensor<128x128xi32>
  %coff = arith.addi %crow, %cc : tensor<128x128xi32>
  tile.store %d, %c[%coff] : tensor<128x128xf32>, !tile.ptr<f32>, tensor<128x128xi32>
  tile.return
}
