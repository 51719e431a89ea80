// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks that the layout attributes (blocked, slice, mfma, nv_mma,
// dot_operand, shared) reject malformed parameters with a message naming
// the problem.

// expected-error @+1 {{blocked layout arrays must all have rank 2 (sizePerThread 1, threadsPerWave 2, wavesPerCTA 2)}}
#b = #tile.blocked<{sizePerThread = [1], threadsPerWave = [4, 16], wavesPerCTA = [4, 1], order = [1, 0]}>

// -----

// expected-error @+1 {{blocked layout arrays must all have rank 1 (sizePerThread 1, threadsPerWave 1, wavesPerCTA 2)}}
#b = #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [4, 1], order = [0]}>

// -----

// expected-error @+1 {{blocked layout order must be a permutation of 0..1}}
#b = #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [4, 16], wavesPerCTA = [4, 1], order = [1, 1]}>

// -----

// expected-error @+1 {{blocked layout order must be a permutation of 0..1}}
#b = #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [4, 16], wavesPerCTA = [4, 1], order = [2, 0]}>

// -----

// expected-error @+1 {{blocked layout sizes must be powers of two (and non-zero)}}
#b = #tile.blocked<{sizePerThread = [1, 6], threadsPerWave = [4, 16], wavesPerCTA = [4, 1], order = [1, 0]}>

// -----

// expected-error @+1 {{blocked layout sizes must be powers of two (and non-zero)}}
#b = #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [4, 0], wavesPerCTA = [4, 1], order = [1, 0]}>

// -----

// expected-error @+1 {{blocked layout sizes must be powers of two (and non-zero)}}
#b = #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [4, 16], wavesPerCTA = [3, 1], order = [1, 0]}>

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [4, 16], wavesPerCTA = [4, 1], order = [1, 0]}>
// expected-error @+1 {{slice dim 2 out of range for parent of rank 2}}
#s = #tile.slice<{dim = 2, parent = #blocked}>

// -----

#mfma = #tile.mfma<{version = 3, instrShape = [16, 16, 32], wavesPerCTA = [4, 1], transposed = false}>
// expected-error @+1 {{slice dim 5 out of range for parent of rank 2}}
#s = #tile.slice<{dim = 5, parent = #mfma}>

// -----

#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// expected-error @+1 {{slice parent must be a distributed layout, got #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>}}
#s = #tile.slice<{dim = 0, parent = #shared}>

// -----

// expected-error @+1 {{slice parent must be a distributed layout, got 1 : i32}}
#s = #tile.slice<{dim = 0, parent = 1 : i32}>

// -----

// expected-error @+1 {{mfma version must be 3 (CDNA3) or 4 (CDNA4), got 2}}
#m = #tile.mfma<{version = 2, instrShape = [16, 16, 32], wavesPerCTA = [4, 1], transposed = false}>

// -----

// expected-error @+1 {{mfma instrShape must be [M, N, K]}}
#m = #tile.mfma<{version = 3, instrShape = [16, 16], wavesPerCTA = [4, 1], transposed = false}>

// -----

// expected-error @+1 {{unsupported mfma instruction shape 4x4x4 for version 3 (supported: 16x16x32 fp8, 16x16x16 bf16, 32x32x16 fp8, 32x32x8 bf16)}}
#m = #tile.mfma<{version = 3, instrShape = [4, 4, 4], wavesPerCTA = [4, 1], transposed = false}>

// -----

// expected-error @+1 {{unsupported mfma instruction shape 16x16x64 for version 4 (supported: 16x16x32 fp8, 16x16x16 bf16, 32x32x16 fp8, 32x32x8 bf16, 16x16x128 f8f6f4, 32x32x64 f8f6f4)}}
#m = #tile.mfma<{version = 4, instrShape = [16, 16, 64], wavesPerCTA = [4, 1], transposed = false}>

// -----

// expected-error @+1 {{mfma instruction shape 16x16x128 needs version >= 4, got version 3}}
#m = #tile.mfma<{version = 3, instrShape = [16, 16, 128], wavesPerCTA = [4, 1], transposed = false}>

// -----

// expected-error @+1 {{mfma instruction shape 32x32x64 needs version >= 4, got version 3}}
#m = #tile.mfma<{version = 3, instrShape = [32, 32, 64], wavesPerCTA = [4, 1], transposed = false}>

// -----

// expected-error @+1 {{mfma wavesPerCTA must be two powers of two [along M, along N]}}
#m = #tile.mfma<{version = 3, instrShape = [16, 16, 32], wavesPerCTA = [4], transposed = false}>

// -----

// expected-error @+1 {{mfma wavesPerCTA must be two powers of two [along M, along N]}}
#m = #tile.mfma<{version = 3, instrShape = [16, 16, 32], wavesPerCTA = [3, 1], transposed = false}>

// -----

// expected-error @+1 {{nv_mma version must be 2 (mma.sync) or 3 (wgmma), got 1}}
#n = #tile.nv_mma<{version = 1, instrShape = [16, 8, 16], wavesPerCTA = [4, 1]}>

// -----

// expected-error @+1 {{nv_mma instrShape must be [M, N, K]}}
#n = #tile.nv_mma<{version = 2, instrShape = [16, 8], wavesPerCTA = [4, 1]}>

// -----

// expected-error @+1 {{mma.sync instrShape must be [16, 8, K]}}
#n = #tile.nv_mma<{version = 2, instrShape = [16, 16, 16], wavesPerCTA = [4, 1]}>

// -----

// expected-error @+1 {{mma.sync instrShape must be [16, 8, K]}}
#n = #tile.nv_mma<{version = 2, instrShape = [32, 8, 16], wavesPerCTA = [4, 1]}>

// -----

// expected-error @+1 {{wgmma instrShape must be [64, N, K] with N a multiple of 8 from 8 to 256}}
#n = #tile.nv_mma<{version = 3, instrShape = [64, 12, 16], wavesPerCTA = [4, 1]}>

// -----

// expected-error @+1 {{wgmma instrShape must be [64, N, K] with N a multiple of 8 from 8 to 256}}
#n = #tile.nv_mma<{version = 3, instrShape = [64, 264, 16], wavesPerCTA = [4, 1]}>

// -----

// expected-error @+1 {{wgmma instrShape must be [64, N, K] with N a multiple of 8 from 8 to 256}}
#n = #tile.nv_mma<{version = 3, instrShape = [128, 64, 16], wavesPerCTA = [4, 1]}>

// -----

// expected-error @+1 {{nv_mma wavesPerCTA must be two powers of two [along M, along N]}}
#n = #tile.nv_mma<{version = 2, instrShape = [16, 8, 16], wavesPerCTA = [4, 1, 1]}>

// -----

// expected-error @+1 {{nv_mma wavesPerCTA must be two powers of two [along M, along N]}}
#n = #tile.nv_mma<{version = 3, instrShape = [64, 64, 16], wavesPerCTA = [0, 1]}>

// -----

#mfma = #tile.mfma<{version = 3, instrShape = [16, 16, 32], wavesPerCTA = [4, 1], transposed = false}>
// expected-error @+1 {{dot_operand opIdx must be 0 (A) or 1 (B), got 2}}
#d = #tile.dot_operand<{opIdx = 2, parent = #mfma, kWidth = 8}>

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [4, 16], wavesPerCTA = [4, 1], order = [1, 0]}>
// expected-error @+1 {{dot_operand parent must be #tile.mfma or #tile.nv_mma, got #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [4, 16], wavesPerCTA = [4, 1], order = [1, 0]}>}}
#d = #tile.dot_operand<{opIdx = 0, parent = #blocked, kWidth = 8}>

// -----

#mfma = #tile.mfma<{version = 3, instrShape = [16, 16, 32], wavesPerCTA = [4, 1], transposed = false}>
// expected-error @+1 {{dot_operand kWidth must be a power of two}}
#d = #tile.dot_operand<{opIdx = 1, parent = #mfma, kWidth = 6}>

// -----

#mma = #tile.nv_mma<{version = 2, instrShape = [16, 8, 16], wavesPerCTA = [4, 1]}>
// expected-error @+1 {{dot_operand kWidth must be a power of two}}
#d = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 0}>

// -----

// expected-error @+1 {{shared layout vec, perPhase and maxPhase must be powers of two (the swizzle XORs bit fields)}}
#s = #tile.shared<{vec = 0, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// -----

// expected-error @+1 {{shared layout vec, perPhase and maxPhase must be powers of two (the swizzle XORs bit fields)}}
#s = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 0, order = [1, 0]}>

// -----

// expected-error @+1 {{shared layout order must be a permutation}}
#s = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 0]}>
