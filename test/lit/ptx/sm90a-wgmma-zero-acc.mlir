// RUN: tessel-translate %kernels/stream_logits_fp8.mlir --target=sm_90a --emit=ptx --ptxas=none --knob b_on_m=1 --knob groups=2 --knob num_waves=4 --knob tile_n=64 --knob stages=3 --knob full_c=0 -o - | FileCheck %s --check-prefix=ZERO
// RUN: tessel-translate %kernels/scaled_gemm_fp8_ring.mlir --target=sm_90a --emit=ptx --ptxas=none -o - | FileCheck %s --check-prefix=CARRIED
// Checks that a wgmma chain whose accumulator is a zero constant (the
// streaming kernel's per-tile dot) starts with scale-d = 0, so that D = A * B
// needs no zeros moved into its 64 registers, and continues with scale-d =
// 1; a chain on a loop-carried accumulator (the ring GEMM's K loop) reads it
// on every step.

// ZERO: wgmma.fence.sync.aligned;
// ZERO-NOT: mov.b32 {{.*}}0f00000000
// ZERO: setp.ne.b32 p, 0, 0;
// ZERO-NEXT: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// ZERO-COUNT-3: setp.ne.b32 p, 1, 0;{{[[:space:]]+}}wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// ZERO-NOT: wgmma.mma_async
// ZERO: wgmma.commit_group.sync.aligned;

// CARRIED-NOT: setp.ne.b32 p, 0, 0;
// CARRIED: setp.ne.b32 p, 1, 0;{{[[:space:]]+}}wgmma.mma_async.sync.aligned
// CARRIED-NOT: setp.ne.b32 p, 0, 0;
