// REQUIRES: ptxas
// RUN: tessel-translate %kernels/stream_logits_fp8.mlir --target=sm_90a --emit=ptx --knob groups=1 --knob num_waves=4 --knob tile_n=64 --knob stages=4 --knob full_c=0 --ptxas=%ptxas --print-resources -o %t.l1.ptx | FileCheck %s --check-prefix=L1
// RUN: tessel-translate %kernels/stream_logits_fp8.mlir --target=sm_90a --emit=ptx --knob groups=2 --knob num_waves=8 --knob tile_n=64 --knob stages=3 --knob full_c=0 --ptxas=%ptxas --print-resources -o %t.l2.ptx | FileCheck %s --check-prefix=L2
// RUN: tessel-translate %kernels/stream_logits_fp8.mlir --target=sm_90a --emit=ptx --knob groups=1 --knob num_waves=4 --knob tile_n=64 --knob stages=4 --knob full_c=1 --ptxas=%ptxas --print-resources -o %t.f1.ptx | FileCheck %s --check-prefix=F1
// RUN: %ptxas -arch=sm_90a -v -o /dev/null %t.l1.ptx 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v -o /dev/null %t.l2.ptx 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v -o /dev/null %t.f1.ptx 2>&1 | FileCheck %s --check-prefix=PTXAS
// Checks that ptxas -arch=sm_90a accepts the streaming kernel's library
// variants without spills or serialized wgmmas, and their shared memory:
// A (64 G x 128 fp8), the ring (stages x 64 x 128 fp8), the head sum's
// partials and totals (logits only: (P + 1) x 64 G columns x 4 bytes, P the
// largest power of two of partials per column, at most 2^5, within 8 KiB:
// 16 for G=1, 8 for G=2) and the 8-byte mbarriers, rounded up to 16:
//   logits G=1, 4 stages: 8192 + 32768 + 4352 + 32 = 45344
//   logits G=2, 3 stages: 16384 + 24576 + 4608 + 24 = 45592 -> 45600
//   full C G=1, 4 stages: 8192 + 32768 + 32 = 40992

// L1: "lds_bytes": 45344,
// L1: "spill_store_bytes": 0,
// L2: "lds_bytes": 45600,
// L2: "spill_store_bytes": 0,
// F1: "lds_bytes": 40992,
// F1: "spill_store_bytes": 0,

// PTXAS-NOT: serialized
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: serialized
// PTXAS: Used {{[0-9]+}} registers
// PTXAS-NOT: serialized
