// RUN: tessel-translate %s --target=sm_90 --emit=ptx -o - | FileCheck %s
// Checks that NVVM ops allowed in SIMT IR (shfl.sync, vote.ballot.sync) and
// an inline-PTX fp8 mma.sync pass through to the PTX unchanged.

// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK: vote.sync.ballot.b32 {{.*}}, -1;
// CHECK: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, tessel.target = "sm_90"} {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      %xi = arith.bitcast %x : f32 to i32
      %m = arith.constant -1 : i32
      %c1 = arith.constant 1 : i32
      %c31 = arith.constant 31 : i32
      %s = nvvm.shfl.sync bfly %m, %xi, %c1, %c31 : i32 -> i32
      %pred = arith.cmpi sgt, %s, %c1 : i32
      %b = nvvm.vote.sync ballot %m, %pred -> i32
      %d = llvm.inline_asm has_side_effects "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};", "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f" %b, %b, %b, %b, %s, %s, %x, %x, %x, %x : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
      %d0 = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
      memref.store %d0, %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
