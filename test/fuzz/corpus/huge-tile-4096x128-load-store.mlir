// Fuzzer failure: timeout on --target=gfx942 --emit=hsaco
// from test/lit/simt/load-vectorized.mlir#0, mutant 674 of seed 3 (shape_all)
// no result within the timeout

tile.kernel @k(%x: !tile.ptr<bf16> {tile.divisibility = 16 : i64}, %y: !tile.ptr<bf16>, %stride: i32 {tile.divisibility = 8 : i64}) {
  %rows = tile.range 0 to 4096 : tensor<4096xi32>
  %s = tile.splat %stride : i32 -> tensor<4096xi32>
  %ro = arith.muli %rows, %s : tensor<4096xi32>
  %r1 = tile.expand_dims %ro, 1 : tensor<4096xi32> -> tensor<4096x1xi32>
  %r2 = tile.broadcast %r1 : tensor<4096x1xi32> -> tensor<4096x128xi32>
  %c = tile.range 0 to 128 : tensor<128xi32>
  %c1 = tile.expand_dims %c, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %c2 = tile.broadcast %c1 : tensor<1x128xi32> -> tensor<4096x128xi32>
  %o = arith.addi %r2, %c2 : tensor<4096x128xi32>
  %v = tile.load %x[%o] : !tile.ptr<bf16>, tensor<4096x128xi32> -> tensor<4096x128xbf16>
  tile.store %v, %y[%o] : tensor<4096x128xbf16>, !tile.ptr<bf16>, tensor<4096x128xi32>
  tile.return
}
