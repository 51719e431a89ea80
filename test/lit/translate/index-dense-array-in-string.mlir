// RUN: tessel-opt %s | FileCheck %s
// Checks that the screen for dense arrays of index looks at code only: the
// words in a string attribute or a comment (array<index: 1>) pass.

// CHECK: tile.note = "array<index: 1>"
module attributes {tile.note = "array<index: 1>"} {
}
