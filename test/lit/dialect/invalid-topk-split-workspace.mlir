// RUN: tessel-opt %s -verify-diagnostics
// Checks that a split tile.topk refuses a workspace that is not i32 words
// (its histogram, counts and candidates are i32), naming the type.

tile.kernel @topk_split_ws(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>, %w: !tile.ptr<f32>, %o: i64, %n: i32) {
  // expected-error @+1 {{'tile.topk' op the split workspace must be !tile.ptr<i32>, got '!tile.ptr<f32>'}}
  tile.topk %x[%o], %n -> %y[%o] split(%w[%o], %n, %n, %n) {k = 512 : i32, chunk = 1024 : i32} : !tile.ptr<f32>, !tile.ptr<i32>, !tile.ptr<f32>
  tile.return
}
