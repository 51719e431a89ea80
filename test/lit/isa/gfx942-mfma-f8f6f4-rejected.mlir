// RUN: not tessel-translate %s --target=gfx942 --emit=asm -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error:
// Checks that gfx950's double-rate fp8 amdgpu.mfma 16x16x128 is refused for
// gfx942 with one error at the op that names the chip, and nothing else.

// CHECK: gfx942-mfma-f8f6f4-rejected.mlir:[[@LINE+12]]:{{[0-9]+}}: error: 'amdgpu.mfma' op no intrinsic matching MFMA size on given chipset
// CHECK: note: while lowering SIMT IR for gfx942

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%d: memref<?xf32, #gpu.address_space<global>>, %q: memref<?xi8, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, tessel.target = "gfx942"} {
      %tid = gpu.thread_id x
      %c32 = arith.constant 32 : index
      %off = arith.muli %tid, %c32 : index
      %qb = vector.load %q[%off] : memref<?xi8, #gpu.address_space<global>>, vector<32xi8>
      %qf = vector.bitcast %qb : vector<32xi8> to vector<32xf8E4M3FN>
      %acc = arith.constant dense<0.0> : vector<4xf32>
      %m = amdgpu.mfma 16x16x128 %qf * %qf + %acc {blocks = 1 : i32, cbsz = 0 : i32, abid = 0 : i32} blgp = none : vector<32xf8E4M3FN>, vector<32xf8E4M3FN>, vector<4xf32>
      %c4 = arith.constant 4 : index
      %o = arith.muli %tid, %c4 : index
      vector.store %m, %d[%o] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      gpu.return
    }
  }
}
