// RUN: not tessel-opt %s -tile-assign-layouts=target=gfx90a 2>&1 | FileCheck %s
// Checks that an unsupported target is named in the error with the list of
// supported ones.

// CHECK: unsupported target 'gfx90a'; supported: gfx942, gfx950, sm_90
tile.kernel @k() {
  tile.return
}
