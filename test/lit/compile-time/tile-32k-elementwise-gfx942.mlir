// RUN: timeout 20 tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks that a 32K-element tile on one wave (512 f32 per lane, the most
// that fits the registers) compiles in time proportional to its code: about
// half a second, where building each lane's vector one insertion at a time
// made it take over 20 s. The timeout leaves a wide margin for loaded
// machines. (The load, masked by `i < n`, reads through a bounds-checked
// buffer.)

// CHECK: buffer_load_dwordx4
// CHECK: global_store_dwordx4
// CHECK: .amdhsa_kernel ew
tile.kernel @ew(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                %out: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                %n: i32 {tile.divisibility = 16 : i64}) {
  %pid = tile.program_id 0 : i32
  %c = arith.constant 32768 : i32
  %base = arith.muli %pid, %c : i32
  %r = tile.range 0 to 32768 : tensor<32768xi32>
  %b = tile.splat %base : i32 -> tensor<32768xi32>
  %i = arith.addi %b, %r : tensor<32768xi32>
  %nv = tile.splat %n : i32 -> tensor<32768xi32>
  %m = arith.cmpi slt, %i, %nv : tensor<32768xi32>
  %v = tile.load %x[%i] mask(%m : tensor<32768xi1>) : !tile.ptr<f32>, tensor<32768xi32> -> tensor<32768xf32>
  %s = arith.mulf %v, %v : tensor<32768xf32>
  tile.store %s, %out[%i] mask(%m : tensor<32768xi1>) : tensor<32768xf32>, !tile.ptr<f32>, tensor<32768xi32>
  tile.return
}
