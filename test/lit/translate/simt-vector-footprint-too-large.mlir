// RUN: not tessel-translate %s --target=gfx942 --emit=asm 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: not tessel-translate %s --target=sm_90 --emit=ptx 2>&1 | FileCheck %s --check-prefix=NV
// Checks that SIMT IR holding a per-lane vector larger than a lane's
// registers (4096 f32 = 4096 registers) is refused at the op before code
// generation, giving the need and the target's limit.

// AMD: :[[@LINE+6]]:12: error: a 'vector<4096xf32>' needs 4096 32-bit registers per lane; target 'gfx942' has 512
// NV: :[[@LINE+5]]:12: error: a 'vector<4096xf32>' needs 4096 32-bit registers per lane; target 'sm_90' has 255
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %v = vector.load %a[%c0] : memref<?xf32, #gpu.address_space<global>>, vector<4096xf32>
      vector.store %v, %a[%c0] : memref<?xf32, #gpu.address_space<global>>, vector<4096xf32>
      gpu.return
    }
  }
}
