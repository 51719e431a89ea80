// RUN: tessel-opt %s -verify-diagnostics
// Checks that tile.topk with `sorted` refuses a k that is not a power of
// two (its pairs are sorted in a shared-memory tile), naming k.

tile.kernel @topk_sorted_k(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>, %o: i64, %n: i32) {
  // expected-error @+1 {{'tile.topk' op with `sorted`, k must be a power of two, got 1000}}
  tile.topk %x[%o], %n -> %y[%o] {k = 1000 : i32, chunk = 1024 : i32, sorted} : !tile.ptr<f32>, !tile.ptr<i32>
  tile.return
}
