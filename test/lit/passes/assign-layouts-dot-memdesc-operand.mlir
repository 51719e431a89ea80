// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx950 | FileCheck %s --check-prefix=MFMA
// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=sm_90 | FileCheck %s --check-prefix=MMA
// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=sm_90a | FileCheck %s --check-prefix=WGMMA
// Checks what tile-assign-layouts does with tile.dot operands in shared
// memory: where the matrix instruction reads registers (MFMA on gfx950,
// mma.sync on sm_90) it loads each buffer with tile.local_load into the
// instruction's operand layout (A opIdx 0, B opIdx 1); where it reads
// shared memory (wgmma on sm_90a) the dot takes the buffers themselves.

// MFMA: %[[A:.*]] = tile.local_load %{{.*}} : !tile.memdesc<64x128xf8E4M3FN, {{.*}}> -> tensor<64x128xf8E4M3FN, #tile.dot_operand<{opIdx = 0, parent = #tile.mfma
// MFMA: %[[B:.*]] = tile.local_load %{{.*}} : !tile.memdesc<128x64xf8E4M3FN, {{.*}}> -> tensor<128x64xf8E4M3FN, #tile.dot_operand<{opIdx = 1, parent = #tile.mfma
// MFMA: tile.dot %[[A]], %[[B]], %{{.*}} : tensor<64x128xf8E4M3FN, #tile.dot_operand<{opIdx = 0
// MMA: %[[A:.*]] = tile.local_load %{{.*}} -> tensor<64x128xf8E4M3FN, #tile.dot_operand<{opIdx = 0, parent = #tile.nv_mma
// MMA: %[[B:.*]] = tile.local_load %{{.*}} -> tensor<128x64xf8E4M3FN, #tile.dot_operand<{opIdx = 1, parent = #tile.nv_mma
// MMA: tile.dot %[[A]], %[[B]]
// WGMMA-NOT: tile.local_load
// WGMMA: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : !tile.memdesc<64x128xf8E4M3FN, {{.*}}>, !tile.memdesc<128x64xf8E4M3FN, {{.*}}> -> tensor<64x64xf32, #tile.nv_mma
#wgA = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#wgB = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1]}>
tile.kernel @k(%x: !tile.ptr<f32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
  %a = tile.local_alloc : !tile.memdesc<64x128xf8E4M3FN, #wgA>
  %b = tile.local_alloc : !tile.memdesc<128x64xf8E4M3FN, #wgB>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %c : !tile.memdesc<64x128xf8E4M3FN, #wgA>, !tile.memdesc<128x64xf8E4M3FN, #wgB> -> tensor<64x64xf32>
  %s = tile.reduce add %d, 1 : tensor<64x64xf32> -> tensor<64xf32>
  %r = tile.range 0 to 64 : tensor<64xi32>
  tile.store %s, %x[%r] : tensor<64xf32>, !tile.ptr<f32>, tensor<64xi32>
  tile.return
}
