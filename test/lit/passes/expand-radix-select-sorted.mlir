// RUN: tessel-opt %s -tile-expand-radix-select -verify-diagnostics
// Checks that a sorted tile.topk, which the expansion does not produce, is
// refused by name instead of returning unsorted indices.

tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>, %n: i32, %o: i64) {
  // expected-error @+1 {{tile.topk with `sorted` is not expanded yet}}
  tile.topk %x[%o], %n -> %y[%o] {k = 512 : i32, chunk = 256 : i32, sorted}
      : !tile.ptr<f32>, !tile.ptr<i32>
  tile.return
}
