// RUN: tessel-opt %s -convert-tile-to-simt=target=gfx942 -verify-diagnostics
// Checks that a tile.dot operand still in shared memory when it reaches
// the lowering (tile-assign-layouts loads it; this IR has its layouts
// written and skips that pass) is a clear error on a target whose matrix
// instruction reads registers (MFMA on gfx942), naming the layout to load
// it into (8 consecutive K per lane: one 16-byte load of bf16).

module attributes {tessel.target = "gfx942"} {
  tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<bf16>) attributes {tessel.num_waves = 4 : i32} {
    %a = tile.local_alloc : !tile.memdesc<64x64xbf16, #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
    %o = arith.constant dense<0> : tensor<64x64xi32, #tile.dot_operand<{opIdx = 1, parent = #tile.mfma<{version = 3, instrShape = [16, 16, 16], wavesPerCTA = [2, 2], transposed = true}>, kWidth = 4}>>
    %b = tile.load %y[%o] : !tile.ptr<bf16>, tensor<64x64xi32, #tile.dot_operand<{opIdx = 1, parent = #tile.mfma<{version = 3, instrShape = [16, 16, 16], wavesPerCTA = [2, 2], transposed = true}>, kWidth = 4}>> -> tensor<64x64xbf16, #tile.dot_operand<{opIdx = 1, parent = #tile.mfma<{version = 3, instrShape = [16, 16, 16], wavesPerCTA = [2, 2], transposed = true}>, kWidth = 4}>>
    %c = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.mfma<{version = 3, instrShape = [16, 16, 16], wavesPerCTA = [2, 2], transposed = true}>>
    // expected-error @+2 {{failed to legalize operation 'tile.dot' that was explicitly marked illegal}}
    // expected-error-re @+1 {{tile.dot operand A is in shared memory, but {{.*}} on gfx942 reads its operands from registers; load it with tile.local_load into layout #tile.dot_operand<{opIdx = 0, parent = #tile.mfma<{{.*}}>, kWidth = 8}>}}
    %d = tile.dot %a, %b, %c : !tile.memdesc<64x64xbf16, #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>, tensor<64x64xbf16, #tile.dot_operand<{opIdx = 1, parent = #tile.mfma<{version = 3, instrShape = [16, 16, 16], wavesPerCTA = [2, 2], transposed = true}>, kWidth = 4}>> -> tensor<64x64xf32, #tile.mfma<{version = 3, instrShape = [16, 16, 16], wavesPerCTA = [2, 2], transposed = true}>>
    %s = tile.reduce add %d, 1 : tensor<64x64xf32, #tile.mfma<{version = 3, instrShape = [16, 16, 16], wavesPerCTA = [2, 2], transposed = true}>> -> tensor<64xf32, #tile.slice<{dim = 1, parent = #tile.mfma<{version = 3, instrShape = [16, 16, 16], wavesPerCTA = [2, 2], transposed = true}>}>>
    %r = tile.range 0 to 64 : tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.mfma<{version = 3, instrShape = [16, 16, 16], wavesPerCTA = [2, 2], transposed = true}>}>>
    tile.store %s, %x[%r] : tensor<64xf32, #tile.slice<{dim = 1, parent = #tile.mfma<{version = 3, instrShape = [16, 16, 16], wavesPerCTA = [2, 2], transposed = true}>}>>, !tile.ptr<f32>, tensor<64xi32, #tile.slice<{dim = 1, parent = #tile.mfma<{version = 3, instrShape = [16, 16, 16], wavesPerCTA = [2, 2], transposed = true}>}>>
    tile.return
  }
}
