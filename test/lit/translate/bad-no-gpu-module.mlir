// RUN: not tessel-translate %s --target=gfx942 --emit=asm -o /dev/null 2>&1 | FileCheck %s
// Checks that input with neither tile ops nor a gpu.module is rejected.

// CHECK: error: expected SIMT IR: the module holds no gpu.module
module {
  func.func @f(%a: i32) -> i32 {
    return %a : i32
  }
}
