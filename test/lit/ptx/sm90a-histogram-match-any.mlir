// RUN: tessel-translate %s --target=sm_90a --emit=ptx -o - | FileCheck %s
// RUN: tessel-translate %s --target=sm_90 --emit=ptx -o - | FileCheck %s
// Checks the PTX of a tile.histogram with one key per lane on Hopper: after
// the bins are zeroed, one match.any.sync.b32 over the whole warp gives each
// lane its bin's peers, a single branch skips every lane but the leader
// (the lowest peer of a counted key), and the leader's one
// atom.shared.add.u32 adds the popc of the peers; no label between the vote
// and the atomic, so no loop, and no other shared atomic.

// CHECK-LABEL: .entry k(
// CHECK: bar.sync 0;
// CHECK: bar.sync 0;
// CHECK-NOT: {{^\$L__BB}}
// CHECK-NOT: atom.shared
// CHECK: match.any.sync.b32 %[[M:r[0-9]+]], %{{r[0-9]+}}, -1;
// CHECK: cvt.u64.u32 %[[P:rd[0-9]+]], %[[M]];
// CHECK-NOT: {{^\$L__BB}}
// CHECK: @%{{p[0-9]+}} bra $[[JOIN:L__BB[0-9_]+]];
// CHECK-NOT: {{^\$L__BB}}
// CHECK: popc.b64 %[[N:r[0-9]+]], %[[P]];
// CHECK-NOT: {{^\$L__BB}}
// CHECK: atom.shared.add.u32 %{{r[0-9]+}}, [%{{rd[0-9]+}}], %[[N]];
// CHECK-NEXT: $[[JOIN]]:
// CHECK-NEXT: bar.sync 0;
// CHECK-NOT: atom.shared
// CHECK-NOT: match.any
// CHECK: ret;
tile.kernel @k(%x: !tile.ptr<i32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<128xi32> -> tensor<128xi32>
  %h = tile.histogram %v : tensor<128xi32> -> tensor<64xi32>
  %b = tile.range 0 to 64 : tensor<64xi32>
  tile.store %h, %x[%b] : tensor<64xi32>, !tile.ptr<i32>, tensor<64xi32>
  tile.return
}
