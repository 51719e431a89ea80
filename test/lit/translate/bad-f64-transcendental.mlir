// RUN: not tessel-translate %s --target=gfx942 --emit=asm -o /dev/null 2>&1 | FileCheck %s
// Checks that math without a native lowering (f64 exp) is an error naming
// the missing function, rather than an abort inside LLVM code generation.

// CHECK: error: the kernel calls external function(s) __ocml_exp_f64 that Tessel does not provide

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf64, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, tessel.target = "gfx942"} {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xf64, #gpu.address_space<global>>
      %e = math.exp %x : f64
      memref.store %e, %a[%tid] : memref<?xf64, #gpu.address_space<global>>
      gpu.return
    }
  }
}
