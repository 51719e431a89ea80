// RUN: python3 -c "print('// ' + '{' * 400 + chr(10) + 'module attributes {tile.note = ' + chr(34) + '[' * 400 + chr(92) + chr(34) + '(' * 400 + chr(34) + '} {' + chr(10) + '}')" > %t.mlir
// RUN: tessel-opt %t.mlir | FileCheck %s
// Checks that brackets inside a `//` comment and a string literal (with an
// escaped quote) do not count towards the nesting limit.

// CHECK: module attributes {tile.note =
