// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// Checks that tile.kernel (arguments with attributes, knob declarations),
// tile.return, tile.knob, tile.program_id and tile.num_programs print in
// their custom syntax and parse back unchanged.

// CHECK-LABEL: tile.kernel @knobs(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: !tile.ptr<i8> {tile.divisibility = 16 : i64}
// CHECK-SAME: %[[N:[a-z0-9_]+]]: i32,
// CHECK-SAME: %[[S:[a-z0-9_]+]]: i64 {tile.divisibility = 8 : i64},
// CHECK-SAME: %[[F:[a-z0-9_]+]]: f32)
// CHECK-SAME: attributes {knobs = [
// CHECK-SAME: #tile.knob<"flag" : i1 = 1>,
// CHECK-SAME: #tile.knob<"target_bit" : i1>,
// CHECK-SAME: #tile.knob<"block" : i32 = 4, values = [4, 8, 16, 32]>,
// CHECK-SAME: #tile.knob<"free" : i64, values = [-1, 0, 7]>,
// CHECK-SAME: #tile.knob<"narrow" : i8 = -3>]}
tile.kernel @knobs(%x: !tile.ptr<i8> {tile.divisibility = 16 : i64},
                   %n: i32, %s: i64 {tile.divisibility = 8 : i64},
                   %f: f32) attributes {knobs = [
    #tile.knob<"flag" : i1 = 1>,
    #tile.knob<"target_bit" : i1>,
    #tile.knob<"block" : i32 = 4, values = [4, 8, 16, 32]>,
    #tile.knob<"free" : i64, values = [-1, 0, 7]>,
    #tile.knob<"narrow" : i8 = -3>]} {
  // CHECK: tile.knob "block" : i32
  %b = tile.knob "block" : i32
  // CHECK: tile.knob "flag" : i1
  %fl = tile.knob "flag" : i1
  // CHECK: tile.knob "free" : i64
  %fr = tile.knob "free" : i64
  // CHECK: tile.knob "narrow" : i8
  %nr = tile.knob "narrow" : i8
  // CHECK: tile.program_id 0 : i32
  %p0 = tile.program_id 0 : i32
  // CHECK: tile.program_id 1 : i32
  %p1 = tile.program_id 1 : i32
  // CHECK: tile.program_id 2 : i32
  %p2 = tile.program_id 2 : i32
  // CHECK: tile.num_programs 0 : i32
  %n0 = tile.num_programs 0 : i32
  // CHECK: tile.num_programs 2 : i32
  %n2 = tile.num_programs 2 : i32
  // CHECK: tile.return
  tile.return
}

// A kernel without arguments or knobs.
// CHECK-LABEL: tile.kernel @empty() {
// CHECK-NEXT: tile.return
// CHECK-NEXT: }
tile.kernel @empty() {
  tile.return
}

// A knob read from a nested region still finds the kernel's declaration.
// CHECK-LABEL: tile.kernel @nested(
// CHECK: scf.if
// CHECK: tile.knob "depth" : i32
tile.kernel @nested(%c: i32) attributes {knobs = [#tile.knob<"depth" : i32>]} {
  %z = arith.constant 0 : i32
  %cond = arith.cmpi sgt, %c, %z : i32
  scf.if %cond {
    %d = tile.knob "depth" : i32
  }
  tile.return
}

// Private visibility survives the round trip.
// CHECK-LABEL: tile.kernel private @hidden(
tile.kernel private @hidden(%p: !tile.ptr<f32>) {
  tile.return
}
