// RUN: tessel-opt %s -tile-specialize-knobs=target=gfx950 -tile-assign-layouts=target=gfx950 | FileCheck %s
// Checks that operands an author laid out with kWidth 32 for a tile.dot on
// v_mfma_f32_16x16x128_f8f6f4 (one run of 32 K per lane) are converted to
// the instruction's kWidth 16 (two runs of 16, K/2 apart) right before the
// dot, which then reads each instruction's operands in the hardware's
// register order.

// CHECK: %[[A:.*]] = tile.convert_layout %{{.*}} : tensor<16x128xf8E4M3FN, #tile.dot_operand<{opIdx = 0, parent = #tile.mfma<{version = 4, instrShape = [16, 16, 128], wavesPerCTA = [1, 1], transposed = false}>, kWidth = 32}>> -> tensor<16x128xf8E4M3FN, #tile.dot_operand<{opIdx = 0, parent = #tile.mfma<{version = 4, instrShape = [16, 16, 128], wavesPerCTA = [1, 1], transposed = false}>, kWidth = 16}>>
// CHECK: %[[B:.*]] = tile.convert_layout %{{.*}} : tensor<128x16xf8E4M3FN, #tile.dot_operand<{opIdx = 1, parent = #tile.mfma<{version = 4, instrShape = [16, 16, 128], wavesPerCTA = [1, 1], transposed = false}>, kWidth = 32}>> -> tensor<128x16xf8E4M3FN, #tile.dot_operand<{opIdx = 1, parent = #tile.mfma<{version = 4, instrShape = [16, 16, 128], wavesPerCTA = [1, 1], transposed = false}>, kWidth = 16}>>
// CHECK: tile.dot %[[A]], %[[B]], %{{.*}} : {{.*}} -> tensor<16x16xf32, #tile.mfma<{version = 4, instrShape = [16, 16, 128], wavesPerCTA = [1, 1], transposed = false}>>

#acc = #tile.mfma<{version = 4, instrShape = [16, 16, 128], wavesPerCTA = [1, 1], transposed = false}>
#a32 = #tile.dot_operand<{opIdx = 0, parent = #acc, kWidth = 32}>
#b32 = #tile.dot_operand<{opIdx = 1, parent = #acc, kWidth = 32}>
tile.kernel @k(%x: !tile.ptr<i8>, %y: !tile.ptr<f32>)
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 1>]} {
  %r = tile.range 0 to 2048 : tensor<2048xi32>
  %v = tile.load %x[%r] : !tile.ptr<i8>, tensor<2048xi32> -> tensor<2048xi8>
  %f = arith.bitcast %v : tensor<2048xi8> to tensor<2048xf8E4M3FN>
  %a = tile.reshape %f : tensor<2048xf8E4M3FN> -> tensor<16x128xf8E4M3FN>
  %b = tile.reshape %f : tensor<2048xf8E4M3FN> -> tensor<128x16xf8E4M3FN>
  %al = tile.convert_layout %a : tensor<16x128xf8E4M3FN> -> tensor<16x128xf8E4M3FN, #a32>
  %bl = tile.convert_layout %b : tensor<128x16xf8E4M3FN> -> tensor<128x16xf8E4M3FN, #b32>
  %c = arith.constant dense<0.0> : tensor<16x16xf32, #acc>
  %d = tile.dot %al, %bl, %c : tensor<16x128xf8E4M3FN, #a32>, tensor<128x16xf8E4M3FN, #b32> -> tensor<16x16xf32, #acc>
  %o = tile.range 0 to 256 : tensor<256xi32>
  %dl = tile.convert_layout %d : tensor<16x16xf32, #acc> -> tensor<16x16xf32>
  %flat = tile.reshape %dl : tensor<16x16xf32> -> tensor<256xf32>
  tile.store %flat, %y[%o] : tensor<256xf32>, !tile.ptr<f32>, tensor<256xi32>
  tile.return
}
