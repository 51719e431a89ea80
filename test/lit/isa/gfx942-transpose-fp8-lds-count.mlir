// RUN: tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks the LDS instructions of a 64x128 fp8 conversion from a blocked
// layout with 16 contiguous elements per lane along a row to one with 16
// along a column (4 waves: 32 bytes per lane). A store holds elements of
// one row, a load elements of one column, and two contiguous byte ranges of
// which each holds one row's or one column's elements share at most one
// byte; so without rearranging bytes in registers one side must access
// single bytes: the minimum is 32/16 + 32/1 = 34, here 2 ds_write_b128 and
// 32 ds_read_u8 per lane.

// CHECK-LABEL: k:
// CHECK: s_barrier
// CHECK-COUNT-2: ds_write_b128
// CHECK-NOT: ds_
// CHECK: s_barrier
// CHECK-COUNT-32: ds_read_u8
// CHECK-NOT: ds_
// CHECK: s_endpgm
// CHECK: .amdhsa_group_segment_fixed_size 8192
tile.kernel @k(%x: !tile.ptr<f8E4M3FNUZ> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<f8E4M3FNUZ> {tile.divisibility = 16 : i64})
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
  %srows = tile.range 0 to 64 : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>}>>
  %sc128 = arith.constant dense<128> : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>}>>
  %sro = arith.muli %srows, %sc128 : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>}>>
  %sr1 = tile.expand_dims %sro, 1 : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>}>> -> tensor<64x1xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>>
  %sr2 = tile.broadcast %sr1 : tensor<64x1xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>> -> tensor<64x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>>
  %sc = tile.range 0 to 128 : tensor<128xi32, #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>}>>
  %sc1 = tile.expand_dims %sc, 0 : tensor<128xi32, #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>}>> -> tensor<1x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>>
  %sc2 = tile.broadcast %sc1 : tensor<1x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>> -> tensor<64x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>>
  %so = arith.addi %sr2, %sc2 : tensor<64x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>>
  %drows = tile.range 0 to 64 : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [4, 16], wavesPerCTA = [1, 4], order = [0, 1]}>}>>
  %dc128 = arith.constant dense<128> : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [4, 16], wavesPerCTA = [1, 4], order = [0, 1]}>}>>
  %dro = arith.muli %drows, %dc128 : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [4, 16], wavesPerCTA = [1, 4], order = [0, 1]}>}>>
  %dr1 = tile.expand_dims %dro, 1 : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [4, 16], wavesPerCTA = [1, 4], order = [0, 1]}>}>> -> tensor<64x1xi32, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [4, 16], wavesPerCTA = [1, 4], order = [0, 1]}>>
  %dr2 = tile.broadcast %dr1 : tensor<64x1xi32, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [4, 16], wavesPerCTA = [1, 4], order = [0, 1]}>> -> tensor<64x128xi32, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [4, 16], wavesPerCTA = [1, 4], order = [0, 1]}>>
  %dc = tile.range 0 to 128 : tensor<128xi32, #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [4, 16], wavesPerCTA = [1, 4], order = [0, 1]}>}>>
  %dc1 = tile.expand_dims %dc, 0 : tensor<128xi32, #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [4, 16], wavesPerCTA = [1, 4], order = [0, 1]}>}>> -> tensor<1x128xi32, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [4, 16], wavesPerCTA = [1, 4], order = [0, 1]}>>
  %dc2 = tile.broadcast %dc1 : tensor<1x128xi32, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [4, 16], wavesPerCTA = [1, 4], order = [0, 1]}>> -> tensor<64x128xi32, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [4, 16], wavesPerCTA = [1, 4], order = [0, 1]}>>
  %do = arith.addi %dr2, %dc2 : tensor<64x128xi32, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [4, 16], wavesPerCTA = [1, 4], order = [0, 1]}>>
  %v = tile.load %x[%so] : !tile.ptr<f8E4M3FNUZ>, tensor<64x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>> -> tensor<64x128xf8E4M3FNUZ, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>>
  %w = tile.convert_layout %v : tensor<64x128xf8E4M3FNUZ, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>> -> tensor<64x128xf8E4M3FNUZ, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [4, 16], wavesPerCTA = [1, 4], order = [0, 1]}>>
  tile.store %w, %y[%do] : tensor<64x128xf8E4M3FNUZ, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [4, 16], wavesPerCTA = [1, 4], order = [0, 1]}>>, !tile.ptr<f8E4M3FNUZ>, tensor<64x128xi32, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [4, 16], wavesPerCTA = [1, 4], order = [0, 1]}>>
  tile.return
}
