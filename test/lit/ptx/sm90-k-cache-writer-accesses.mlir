// RUN: tessel-translate %kernels/indexer_k_cache_write.mlir --target=sm_90 --emit=ptx --knob k_bf16=1 --knob tokens_per_program=16 --knob num_waves=4 -o - | FileCheck %s
// Checks the K-cache writer's memory accesses on sm_90 (4 warps, 16 tokens
// of bf16 k): one 8-byte slot load, whose value no k load waits for (both
// 16-byte k loads come before the slot's validity test); a block index by
// a shift for power-of-two block sizes (the 64-bit division only on the
// other path); and a lane's 16 fp8 bytes in one 16-byte store, which the
// block_size % 4 == 0 path proves aligned.

// CHECK: .visible .entry indexer_k_cache_write(
// CHECK: ld.global.b64 [[SLOT:%rd[0-9]+]], [
// CHECK: ld.global.v4.b32
// CHECK: ld.global.v4.b32
// CHECK: setp.{{[a-z]+}}.s64 {{.*}}[[SLOT]],
// CHECK-DAG: shr.s64 {{.*}}[[SLOT]]
// CHECK-DAG: div.s64 {{.*}}[[SLOT]]
// CHECK-DAG: st.global.v4.b32
