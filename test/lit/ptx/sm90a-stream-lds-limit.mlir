// RUN: not tessel-translate %kernels/stream_logits_fp8.mlir --target=sm_90a --emit=ptx --ptxas=none --knob groups=1 --knob num_waves=4 --knob tile_n=128 --knob stages=4 --knob full_c=0 -o /dev/null 2>&1 | FileCheck %s
// Checks that a streaming-kernel configuration whose ring does not fit the
// 48 KiB of static shared memory is refused with the buffers named: 4
// stages of 128-row B tiles are 4 * 128 * 128 = 65536 bytes, beside A's
// 64 * 128 = 8192.

// CHECK: error: kernel needs {{[0-9]+}} bytes of LDS, more than the 49152 bytes of sm_90a
// CHECK-DAG: note: 65536 bytes at offset {{[0-9]+}} for 'tile.local_alloc'
// CHECK-DAG: note: 8192 bytes at offset {{[0-9]+}} for 'tile.local_alloc'
