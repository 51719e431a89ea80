// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 | FileCheck %s --check-prefix=SIMT
// RUN: tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks that two cross-wave reductions in sequence share LDS: the first
// needs [4 waves][8 rows] x 4 bytes = 128 bytes, the second [4 waves] x 4
// bytes = 16; their live ranges do not overlap, so the kernel's LDS is
// max(128, 16) = 128 bytes (the sum would be 144), both at offset 0, and
// the code object reports 128.

// SIMT: workgroup(%[[BUF:.*]] : memref<128xi8, #gpu.address_space<workgroup>>
// SIMT: %[[C0:.*]] = arith.constant 0 : index
// SIMT-NEXT: memref.view %[[BUF]][%[[C0]]][] : memref<128xi8, {{.*}}> to memref<32xf32,
// SIMT: %[[D0:.*]] = arith.constant 0 : index
// SIMT-NEXT: memref.view %[[BUF]][%[[D0]]][] : memref<128xi8, {{.*}}> to memref<4xf32,

// CHECK: .amdhsa_group_segment_fixed_size 128
// CHECK: .group_segment_fixed_size: 128
tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>)
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 2048 : tensor<2048xi32, #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [4], order = [0]}>>
  %v = tile.load %x[%r] : !tile.ptr<f32>, tensor<2048xi32, #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [4], order = [0]}>> -> tensor<2048xf32, #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [4], order = [0]}>>
  %m = tile.reshape %v : tensor<2048xf32, #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [4], order = [0]}>> -> tensor<8x256xf32, #tile.blocked<{sizePerThread = [1, 1], threadsPerWave = [1, 64], wavesPerCTA = [1, 4], order = [1, 0]}>>
  %rows = tile.reduce add %m, 1 : tensor<8x256xf32, #tile.blocked<{sizePerThread = [1, 1], threadsPerWave = [1, 64], wavesPerCTA = [1, 4], order = [1, 0]}>> -> tensor<8xf32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 1], threadsPerWave = [1, 64], wavesPerCTA = [1, 4], order = [1, 0]}>}>>
  %s = tile.reduce max %v, 0 : tensor<2048xf32, #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [4], order = [0]}>> -> f32
  %c0 = arith.constant 0 : i32
  tile.store %s, %y[%c0] : f32, !tile.ptr<f32>, i32
  %ri = tile.range 0 to 8 : tensor<8xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 1], threadsPerWave = [1, 64], wavesPerCTA = [1, 4], order = [1, 0]}>}>>
  tile.store %rows, %x[%ri] : tensor<8xf32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 1], threadsPerWave = [1, 64], wavesPerCTA = [1, 4], order = [1, 0]}>}>>, !tile.ptr<f32>, tensor<8xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 1], threadsPerWave = [1, 64], wavesPerCTA = [1, 4], order = [1, 0]}>}>>
  tile.return
}
