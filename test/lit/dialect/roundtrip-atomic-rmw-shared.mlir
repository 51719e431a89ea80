// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// Checks that tile.atomic_rmw on a 1-D shared-memory tile prints with the
// memdesc type and parses back unchanged.

// CHECK-LABEL: tile.kernel @lds(
// CHECK: tile.atomic_rmw max, %{{.+}}[%{{.+}}], %{{.+}} : !tile.memdesc<256xi32, #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>, tensor<128xi32>, tensor<128xi32>
#s1 = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
tile.kernel @lds(%x: i32) {
  %buf = tile.local_alloc : !tile.memdesc<256xi32, #s1>
  %o = tile.range 0 to 128 : tensor<128xi32>
  %old = tile.atomic_rmw max, %buf[%o], %o : !tile.memdesc<256xi32, #s1>, tensor<128xi32>, tensor<128xi32>
  tile.return
}
