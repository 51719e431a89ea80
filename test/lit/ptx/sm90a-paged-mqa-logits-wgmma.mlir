// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=sm_90a --emit=ptx --ptxas=none --knob heads=64 --knob rows_per_program=1 --knob chunk_k=64 --knob num_waves=8 --knob waves_per_eu=0 --knob preshuffle=0 --knob persistent=0 --knob kv_rows_aligned=1 -o - | FileCheck %s
// Checks the inner loop of the paged MQA logits kernel on sm_90a (64 heads,
// one row, 64-token chunks, 8 warps, block rows 16-byte aligned): the next
// chunk's K [128, 64] is 8192 bytes over 256 threads, two 16-byte
// ld.global.v4 per lane; the staged operands (Q [64, 128] and K) go to
// shared memory 16 bytes at a time; the dot M 64 x N 64 x K 128 runs as
// 4 wgmma m64n32k32 e4m3 per warpgroup (each of the 2 warpgroups takes 32
// tokens), then relu by max.f32 and the head sum across lanes.

// CHECK-LABEL: .entry paged_mqa_logits(
// CHECK: Inner Loop Header
// CHECK-COUNT-2: ld.global.v4.b32
// CHECK-NOT: ld.global.v4
// CHECK: bar.sync
// CHECK-COUNT-4: st.shared.v4.b32
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: max.f32
// CHECK: shfl.sync.bfly.b32
// CHECK: %._crit_edge
