// RUN: tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks that local_store and local_load of a 64x128 fp8 tile whose lanes
// hold 16 contiguous bytes of a row (stored with rows-then-columns lanes,
// loaded with columns-then-rows lanes) through a shared layout with 16-byte
// vectors use 16-byte LDS accesses only: 8192 bytes over 4 waves x 64
// lanes is 32 bytes per lane, so 2 ds_write_b128 and 2 ds_read_b128 per
// lane, the stores between two barriers, in an 8192-byte LDS buffer.

// CHECK-LABEL: k:
// CHECK-NOT: ds_
// CHECK: s_barrier
// CHECK-NOT: ds_read
// CHECK-COUNT-2: ds_write_b128
// CHECK-NOT: ds_
// CHECK: s_barrier
// CHECK-COUNT-2: ds_read_b128
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
  %scols = tile.range 0 to 128 : tensor<128xi32, #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>}>>
  %sc1 = tile.expand_dims %scols, 0 : tensor<128xi32, #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>}>> -> tensor<1x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>>
  %sc2 = tile.broadcast %sc1 : tensor<1x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>> -> tensor<64x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>>
  %so = arith.addi %sr2, %sc2 : tensor<64x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>>
  %drows = tile.range 0 to 64 : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [32, 2], wavesPerCTA = [2, 2], order = [0, 1]}>}>>
  %dc128 = arith.constant dense<128> : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [32, 2], wavesPerCTA = [2, 2], order = [0, 1]}>}>>
  %dro = arith.muli %drows, %dc128 : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [32, 2], wavesPerCTA = [2, 2], order = [0, 1]}>}>>
  %dr1 = tile.expand_dims %dro, 1 : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [32, 2], wavesPerCTA = [2, 2], order = [0, 1]}>}>> -> tensor<64x1xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [32, 2], wavesPerCTA = [2, 2], order = [0, 1]}>>
  %dr2 = tile.broadcast %dr1 : tensor<64x1xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [32, 2], wavesPerCTA = [2, 2], order = [0, 1]}>> -> tensor<64x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [32, 2], wavesPerCTA = [2, 2], order = [0, 1]}>>
  %dcols = tile.range 0 to 128 : tensor<128xi32, #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [32, 2], wavesPerCTA = [2, 2], order = [0, 1]}>}>>
  %dc1 = tile.expand_dims %dcols, 0 : tensor<128xi32, #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [32, 2], wavesPerCTA = [2, 2], order = [0, 1]}>}>> -> tensor<1x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [32, 2], wavesPerCTA = [2, 2], order = [0, 1]}>>
  %dc2 = tile.broadcast %dc1 : tensor<1x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [32, 2], wavesPerCTA = [2, 2], order = [0, 1]}>> -> tensor<64x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [32, 2], wavesPerCTA = [2, 2], order = [0, 1]}>>
  %do = arith.addi %dr2, %dc2 : tensor<64x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [32, 2], wavesPerCTA = [2, 2], order = [0, 1]}>>
  %v = tile.load %x[%so] : !tile.ptr<f8E4M3FNUZ>, tensor<64x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>> -> tensor<64x128xf8E4M3FNUZ, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>>
  %buf = tile.local_alloc : !tile.memdesc<64x128xf8E4M3FNUZ, #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
  tile.local_store %v, %buf : tensor<64x128xf8E4M3FNUZ, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], order = [1, 0]}>> -> !tile.memdesc<64x128xf8E4M3FNUZ, #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
  %w = tile.local_load %buf : !tile.memdesc<64x128xf8E4M3FNUZ, #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>> -> tensor<64x128xf8E4M3FNUZ, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [32, 2], wavesPerCTA = [2, 2], order = [0, 1]}>>
  tile.store %w, %y[%do] : tensor<64x128xf8E4M3FNUZ, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [32, 2], wavesPerCTA = [2, 2], order = [0, 1]}>>, !tile.ptr<f8E4M3FNUZ>, tensor<64x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [32, 2], wavesPerCTA = [2, 2], order = [0, 1]}>>
  tile.return
}
