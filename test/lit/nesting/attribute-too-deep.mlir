// RUN: python3 -c "print('module attributes {tile.deep = ' + '[' * 300 + ']' * 300 + '} {' + chr(10) + '}')" > %t.mlir
// RUN: not tessel-translate %t.mlir --target=gfx950 --emit=simt -o %t.simt 2>&1 | FileCheck %s
// Checks that brackets count as nesting, not only regions: 300 nested arrays
// (from column 32) inside the module's attribute dictionary (depth 1) cross
// the limit at their 256th '[', column 32 + 255 = 287.

// CHECK: .mlir:1:287: error: nesting depth 301 exceeds the limit 256
