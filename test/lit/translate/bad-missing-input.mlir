// RUN: not tessel-translate %t.does-not-exist.mlir --target=gfx942 --emit=asm -o /dev/null 2>&1 | FileCheck %s
// Checks that a missing input file is an error naming the file.

// CHECK: error: cannot open input '{{.*}}does-not-exist.mlir'
