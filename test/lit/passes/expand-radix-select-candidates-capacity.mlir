// RUN: tessel-opt %s -tile-expand-radix-select=target=gfx942 | FileCheck %s --check-prefixes=CHECK,AMD
// RUN: tessel-opt %s -tile-expand-radix-select=target=gfx950 | FileCheck %s --check-prefixes=CHECK,AMD
// RUN: tessel-opt %s -tile-expand-radix-select=target=sm_90 | FileCheck %s --check-prefixes=CHECK,NV
// RUN: tessel-opt %s -tile-specialize-knobs=target=sm_90 -tile-expand-radix-select | FileCheck %s --check-prefixes=CHECK,NV
// Checks the candidate buffer's capacity derived from the target's shared
// memory (named by the option or by the module's tessel.target): the
// largest power of two of pairs, at most 4096, that fits beside 16 KiB
// for the other buffers and, with `sorted`, the 2 x k i32 of the sort.
// gfx942 (64 KiB) and gfx950 (160 KiB): 4096 both ways; sm_90 (48 KiB):
// 4096 unsorted, and sorted with k = 2048 (48 - 16 - 16 KiB = 16 KiB) 2048.

// CHECK-LABEL: tile.kernel @unsorted(
// CHECK: tile.local_alloc : !tile.memdesc<1x4096xi32,
// CHECK: tile.local_alloc : !tile.memdesc<1x4096xi32,
tile.kernel @unsorted(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>, %n: i32, %o: i64) {
  tile.topk %x[%o], %n -> %y[%o] {k = 2048 : i32, chunk = 4096 : i32, stable}
      : !tile.ptr<f32>, !tile.ptr<i32>
  tile.return
}

// CHECK-LABEL: tile.kernel @sorted(
// CHECK: tile.local_alloc(%{{.+}} : tensor<2048xi32>) : !tile.memdesc<2048xi32,
// CHECK: tile.local_alloc(%{{.+}} : tensor<2048xi32>) : !tile.memdesc<2048xi32,
// AMD: tile.local_alloc : !tile.memdesc<1x4096xi32,
// AMD: tile.local_alloc : !tile.memdesc<1x4096xi32,
// NV: tile.local_alloc : !tile.memdesc<1x2048xi32,
// NV: tile.local_alloc : !tile.memdesc<1x2048xi32,
tile.kernel @sorted(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>, %n: i32, %o: i64) {
  tile.topk %x[%o], %n -> %y[%o] {k = 2048 : i32, chunk = 4096 : i32, stable, sorted}
      : !tile.ptr<f32>, !tile.ptr<i32>
  tile.return
}
