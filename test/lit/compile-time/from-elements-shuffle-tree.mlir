// RUN: tessel-translate %s --target=gfx942 --emit=llvm --opt-level=0 -o - | FileCheck %s
// Checks that a lane's 64 loaded elements become one vector through a
// balanced tree of shuffles (two halves of 32 joined last), not a chain of
// 64 insertelements of the whole vector, whose cost in LLVM grows with the
// square of the width.

// CHECK-NOT: insertelement <64 x float>
// CHECK: shufflevector <32 x float> %{{.*}}, <32 x float> %{{.*}}, <64 x i32> <i32 0, i32 1,
// CHECK-NOT: insertelement <64 x float>
tile.kernel @ew(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                %out: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                %n: i32 {tile.divisibility = 16 : i64}) {
  %pid = tile.program_id 0 : i32
  %c = arith.constant 4096 : i32
  %base = arith.muli %pid, %c : i32
  %r = tile.range 0 to 4096 : tensor<4096xi32>
  %b = tile.splat %base : i32 -> tensor<4096xi32>
  %i = arith.addi %b, %r : tensor<4096xi32>
  %nv = tile.splat %n : i32 -> tensor<4096xi32>
  %m = arith.cmpi slt, %i, %nv : tensor<4096xi32>
  %v = tile.load %x[%i] mask(%m : tensor<4096xi1>) : !tile.ptr<f32>, tensor<4096xi32> -> tensor<4096xf32>
  %s = arith.mulf %v, %v : tensor<4096xf32>
  tile.store %s, %out[%i] mask(%m : tensor<4096xi1>) : tensor<4096xf32>, !tile.ptr<f32>, tensor<4096xi32>
  tile.return
}
