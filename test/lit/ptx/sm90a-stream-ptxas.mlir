// REQUIRES: ptxas
// RUN: tessel-translate %kernels/stream_logits_fp8.mlir --target=sm_90a --emit=ptx --knob groups=1 --knob num_waves=4 --knob tile_n=64 --knob stages=4 --knob full_c=0 --ptxas=%ptxas --print-resources -o %t.l1.ptx | FileCheck %s --check-prefix=L1
// RUN: tessel-translate %kernels/stream_logits_fp8.mlir --target=sm_90a --emit=ptx --knob groups=2 --knob num_waves=8 --knob tile_n=64 --knob stages=3 --knob full_c=0 --ptxas=%ptxas --print-resources -o %t.l2.ptx | FileCheck %s --check-prefix=L2
// RUN: tessel-translate %kernels/stream_logits_fp8.mlir --target=sm_90a --emit=ptx --knob groups=1 --knob num_waves=4 --knob tile_n=64 --knob stages=4 --knob full_c=1 --ptxas=%ptxas --print-resources -o %t.f1.ptx | FileCheck %s --check-prefix=F1
// RUN: %ptxas -arch=sm_90a -v -o /dev/null %t.l1.ptx 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v -o /dev/null %t.l2.ptx 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v -o /dev/null %t.f1.ptx 2>&1 | FileCheck %s --check-prefix=PTXAS
// Checks that ptxas -arch=sm_90a accepts the streaming kernel's library
// variants without spills or serialized wgmmas, and their shared memory:
// A (64 G x 128 fp8), the ring (stages x 64 x 128 fp8), the head sums of the
// 4 warps of a warpgroup (4 x 64 G/64 x 64 f32, logits only) and the
// 8-byte mbarriers, rounded up to 16:
//   logits G=1, 4 stages: 8192 + 32768 + 1024 + 32 = 42016
//   logits G=2, 3 stages: 16384 + 24576 + 2048 + 24 = 43032 -> 43040
//   full C G=1, 4 stages: 8192 + 32768 + 32 = 40992

// L1: "lds_bytes": 42016,
// L1: "spill_store_bytes": 0,
// L2: "lds_bytes": 43040,
// L2: "spill_store_bytes": 0,
// F1: "lds_bytes": 40992,
// F1: "spill_store_bytes": 0,

// PTXAS-NOT: serialized
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: serialized
// PTXAS: Used {{[0-9]+}} registers
// PTXAS-NOT: serialized
