// Fuzzer failure: timeout on --target=gfx942 --emit=hsaco
// from test/lit/layout/convert-inserted.mlir#0, mutant 29 of seed 4 (type_all, shape_all)
// no result within the timeout

tile.kernel @k(%x: !tile.ptr<f16>, %idx: !tile.ptr<i32>) {
  %r = tile.range 0 to 65536 : tensor<65536xi32>
  %i = tile.load %idx[%r] : !tile.ptr<i32>, tensor<65536xi32> -> tensor<65536xi32>
  %b = tile.load %x[%r] : !tile.ptr<f16>, tensor<65536xi32> -> tensor<65536xf16>
  %a = tile.convert_layout %b : tensor<65536xf16> -> tensor<65536xf16, #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>>
  tile.store %a, %x[%i] : tensor<65536xf16, #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>>, !tile.ptr<f16>, tensor<65536xi32>
  tile.return
}
