// RUN: tessel-translate %s --target=sm_90 --emit=ptx -o - | FileCheck %s
// Checks that tile.async_copy_global_to_local of a 64x128 fp8 tile whose
// threads hold 16 contiguous bytes of a row becomes cp.async.cg of 16 bytes
// straight to shared memory: 8192 bytes over 4 warps x 32 threads is 64
// bytes per thread, so 4 cp.async per thread (with a source size, as the
// copy is masked), then cp.async.commit_group, cp.async.wait_group 0 and a
// barrier before the data is read back from shared memory.

// CHECK-LABEL: .entry k(
// CHECK-NOT: cp.async
// CHECK: bar.sync
// CHECK-COUNT-4: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-NOT: cp.async.cg
// CHECK: cp.async.commit_group;
// CHECK-NEXT: cp.async.wait_group {{[[:space:]]*}}0;
// CHECK-NEXT: bar.sync {{[[:space:]]*}}0;
// CHECK: ld.shared
// CHECK-NOT: cp.async
// CHECK: ret;
tile.kernel @k(%x: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i64},
               %n: i32 {tile.divisibility = 16 : i64})
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
  %srows = tile.range 0 to 64 : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [4, 8], wavesPerCTA = [4, 1], order = [1, 0]}>}>>
  %sc128 = arith.constant dense<128> : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [4, 8], wavesPerCTA = [4, 1], order = [1, 0]}>}>>
  %sro = arith.muli %srows, %sc128 : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [4, 8], wavesPerCTA = [4, 1], order = [1, 0]}>}>>
  %sr1 = tile.expand_dims %sro, 1 : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [4, 8], wavesPerCTA = [4, 1], order = [1, 0]}>}>> -> tensor<64x1xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [4, 8], wavesPerCTA = [4, 1], order = [1, 0]}>>
  %sr2 = tile.broadcast %sr1 : tensor<64x1xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [4, 8], wavesPerCTA = [4, 1], order = [1, 0]}>> -> tensor<64x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [4, 8], wavesPerCTA = [4, 1], order = [1, 0]}>>
  %scols = tile.range 0 to 128 : tensor<128xi32, #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [4, 8], wavesPerCTA = [4, 1], order = [1, 0]}>}>>
  %sc1 = tile.expand_dims %scols, 0 : tensor<128xi32, #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [4, 8], wavesPerCTA = [4, 1], order = [1, 0]}>}>> -> tensor<1x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [4, 8], wavesPerCTA = [4, 1], order = [1, 0]}>>
  %sc2 = tile.broadcast %sc1 : tensor<1x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [4, 8], wavesPerCTA = [4, 1], order = [1, 0]}>> -> tensor<64x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [4, 8], wavesPerCTA = [4, 1], order = [1, 0]}>>
  %so = arith.addi %sr2, %sc2 : tensor<64x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [4, 8], wavesPerCTA = [4, 1], order = [1, 0]}>>
  %drows = tile.range 0 to 64 : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 4], order = [0, 1]}>}>>
  %dc128 = arith.constant dense<128> : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 4], order = [0, 1]}>}>>
  %dro = arith.muli %drows, %dc128 : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 4], order = [0, 1]}>}>>
  %dr1 = tile.expand_dims %dro, 1 : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 4], order = [0, 1]}>}>> -> tensor<64x1xi32, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 4], order = [0, 1]}>>
  %dr2 = tile.broadcast %dr1 : tensor<64x1xi32, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 4], order = [0, 1]}>> -> tensor<64x128xi32, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 4], order = [0, 1]}>>
  %dcols = tile.range 0 to 128 : tensor<128xi32, #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 4], order = [0, 1]}>}>>
  %dc1 = tile.expand_dims %dcols, 0 : tensor<128xi32, #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 4], order = [0, 1]}>}>> -> tensor<1x128xi32, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 4], order = [0, 1]}>>
  %dc2 = tile.broadcast %dc1 : tensor<1x128xi32, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 4], order = [0, 1]}>> -> tensor<64x128xi32, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 4], order = [0, 1]}>>
  %do = arith.addi %dr2, %dc2 : tensor<64x128xi32, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 4], order = [0, 1]}>>
  %nv = tile.splat %n : i32 -> tensor<64x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [4, 8], wavesPerCTA = [4, 1], order = [1, 0]}>>
  %m = arith.cmpi slt, %so, %nv : tensor<64x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [4, 8], wavesPerCTA = [4, 1], order = [1, 0]}>>
  %buf = tile.local_alloc : !tile.memdesc<64x128xf8E4M3FN, #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
  %t = tile.async_copy_global_to_local %x[%so] mask(%m : tensor<64x128xi1, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [4, 8], wavesPerCTA = [4, 1], order = [1, 0]}>>), %buf : !tile.ptr<f8E4M3FN>, tensor<64x128xi32, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [4, 8], wavesPerCTA = [4, 1], order = [1, 0]}>> -> !tile.memdesc<64x128xf8E4M3FN, #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
  %g = tile.async_commit_group %t
  %w = tile.async_wait %g {num = 0 : i32}
  %v = tile.local_load %buf : !tile.memdesc<64x128xf8E4M3FN, #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>> -> tensor<64x128xf8E4M3FN, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 4], order = [0, 1]}>>
  tile.store %v, %y[%do] : tensor<64x128xf8E4M3FN, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 4], order = [0, 1]}>>, !tile.ptr<f8E4M3FN>, tensor<64x128xi32, #tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 4], order = [0, 1]}>>
  tile.return
}
