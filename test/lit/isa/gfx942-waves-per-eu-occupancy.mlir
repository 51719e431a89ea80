// RUN: sed 's/WAVES/0/' %s | tessel-translate - --target=gfx942 --emit=asm -o - | FileCheck %s --check-prefix=FREE
// RUN: sed 's/WAVES/8/' %s | tessel-translate - --target=gfx942 --emit=asm -o - | FileCheck %s --check-prefix=EIGHT
// Checks that tessel.waves_per_eu reaches code generation: 24 live
// vector<4xf32> accumulators need 96+ VGPRs when free, but 8 waves per EU
// leave each wave 512/8 = 64 VGPRs, so the kernel is squeezed into 64
// (and spills), reaching occupancy 8.

// FREE: ; NumVgprs: {{9[6-9]|1[0-9][0-9]}}
// FREE-NOT: ; Occupancy: 8
// EIGHT: ; NumVgprs: {{[1-5]?[0-9]|6[0-4]}}{{$}}
// EIGHT: ; Occupancy: 8
module attributes {gpu.container_module} {
  gpu.module @pressure {
    gpu.func @pressure(%in: memref<?xf32, #gpu.address_space<global>>, %out: memref<?xf32, #gpu.address_space<global>>, %steps: i32) kernel attributes {known_block_size = array<i32: 256, 1, 1>, tessel.waves_per_eu = WAVES : i32} {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c96 = arith.constant 96 : index
      %z = arith.constant dense<1.0> : vector<4xf32>
      %ns = arith.index_cast %steps : i32 to index
      %r:24 = scf.for %i = %c0 to %ns step %c1 iter_args(%a0 = %z, %a1 = %z, %a2 = %z, %a3 = %z, %a4 = %z, %a5 = %z, %a6 = %z, %a7 = %z, %a8 = %z, %a9 = %z, %a10 = %z, %a11 = %z, %a12 = %z, %a13 = %z, %a14 = %z, %a15 = %z, %a16 = %z, %a17 = %z, %a18 = %z, %a19 = %z, %a20 = %z, %a21 = %z, %a22 = %z, %a23 = %z) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
        %base = arith.muli %i, %c96 : index
        %o0 = arith.constant 0 : index
        %p0 = arith.addi %base, %o0 : index
        %v0 = vector.load %in[%p0] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m0 = arith.mulf %a0, %v0 : vector<4xf32>
        %n0 = arith.addf %m0, %v0 : vector<4xf32>
        %o1 = arith.constant 4 : index
        %p1 = arith.addi %base, %o1 : index
        %v1 = vector.load %in[%p1] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m1 = arith.mulf %a1, %v1 : vector<4xf32>
        %n1 = arith.addf %m1, %v1 : vector<4xf32>
        %o2 = arith.constant 8 : index
        %p2 = arith.addi %base, %o2 : index
        %v2 = vector.load %in[%p2] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m2 = arith.mulf %a2, %v2 : vector<4xf32>
        %n2 = arith.addf %m2, %v2 : vector<4xf32>
        %o3 = arith.constant 12 : index
        %p3 = arith.addi %base, %o3 : index
        %v3 = vector.load %in[%p3] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m3 = arith.mulf %a3, %v3 : vector<4xf32>
        %n3 = arith.addf %m3, %v3 : vector<4xf32>
        %o4 = arith.constant 16 : index
        %p4 = arith.addi %base, %o4 : index
        %v4 = vector.load %in[%p4] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m4 = arith.mulf %a4, %v4 : vector<4xf32>
        %n4 = arith.addf %m4, %v4 : vector<4xf32>
        %o5 = arith.constant 20 : index
        %p5 = arith.addi %base, %o5 : index
        %v5 = vector.load %in[%p5] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m5 = arith.mulf %a5, %v5 : vector<4xf32>
        %n5 = arith.addf %m5, %v5 : vector<4xf32>
        %o6 = arith.constant 24 : index
        %p6 = arith.addi %base, %o6 : index
        %v6 = vector.load %in[%p6] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m6 = arith.mulf %a6, %v6 : vector<4xf32>
        %n6 = arith.addf %m6, %v6 : vector<4xf32>
        %o7 = arith.constant 28 : index
        %p7 = arith.addi %base, %o7 : index
        %v7 = vector.load %in[%p7] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m7 = arith.mulf %a7, %v7 : vector<4xf32>
        %n7 = arith.addf %m7, %v7 : vector<4xf32>
        %o8 = arith.constant 32 : index
        %p8 = arith.addi %base, %o8 : index
        %v8 = vector.load %in[%p8] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m8 = arith.mulf %a8, %v8 : vector<4xf32>
        %n8 = arith.addf %m8, %v8 : vector<4xf32>
        %o9 = arith.constant 36 : index
        %p9 = arith.addi %base, %o9 : index
        %v9 = vector.load %in[%p9] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m9 = arith.mulf %a9, %v9 : vector<4xf32>
        %n9 = arith.addf %m9, %v9 : vector<4xf32>
        %o10 = arith.constant 40 : index
        %p10 = arith.addi %base, %o10 : index
        %v10 = vector.load %in[%p10] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m10 = arith.mulf %a10, %v10 : vector<4xf32>
        %n10 = arith.addf %m10, %v10 : vector<4xf32>
        %o11 = arith.constant 44 : index
        %p11 = arith.addi %base, %o11 : index
        %v11 = vector.load %in[%p11] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m11 = arith.mulf %a11, %v11 : vector<4xf32>
        %n11 = arith.addf %m11, %v11 : vector<4xf32>
        %o12 = arith.constant 48 : index
        %p12 = arith.addi %base, %o12 : index
        %v12 = vector.load %in[%p12] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m12 = arith.mulf %a12, %v12 : vector<4xf32>
        %n12 = arith.addf %m12, %v12 : vector<4xf32>
        %o13 = arith.constant 52 : index
        %p13 = arith.addi %base, %o13 : index
        %v13 = vector.load %in[%p13] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m13 = arith.mulf %a13, %v13 : vector<4xf32>
        %n13 = arith.addf %m13, %v13 : vector<4xf32>
        %o14 = arith.constant 56 : index
        %p14 = arith.addi %base, %o14 : index
        %v14 = vector.load %in[%p14] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m14 = arith.mulf %a14, %v14 : vector<4xf32>
        %n14 = arith.addf %m14, %v14 : vector<4xf32>
        %o15 = arith.constant 60 : index
        %p15 = arith.addi %base, %o15 : index
        %v15 = vector.load %in[%p15] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m15 = arith.mulf %a15, %v15 : vector<4xf32>
        %n15 = arith.addf %m15, %v15 : vector<4xf32>
        %o16 = arith.constant 64 : index
        %p16 = arith.addi %base, %o16 : index
        %v16 = vector.load %in[%p16] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m16 = arith.mulf %a16, %v16 : vector<4xf32>
        %n16 = arith.addf %m16, %v16 : vector<4xf32>
        %o17 = arith.constant 68 : index
        %p17 = arith.addi %base, %o17 : index
        %v17 = vector.load %in[%p17] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m17 = arith.mulf %a17, %v17 : vector<4xf32>
        %n17 = arith.addf %m17, %v17 : vector<4xf32>
        %o18 = arith.constant 72 : index
        %p18 = arith.addi %base, %o18 : index
        %v18 = vector.load %in[%p18] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m18 = arith.mulf %a18, %v18 : vector<4xf32>
        %n18 = arith.addf %m18, %v18 : vector<4xf32>
        %o19 = arith.constant 76 : index
        %p19 = arith.addi %base, %o19 : index
        %v19 = vector.load %in[%p19] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m19 = arith.mulf %a19, %v19 : vector<4xf32>
        %n19 = arith.addf %m19, %v19 : vector<4xf32>
        %o20 = arith.constant 80 : index
        %p20 = arith.addi %base, %o20 : index
        %v20 = vector.load %in[%p20] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m20 = arith.mulf %a20, %v20 : vector<4xf32>
        %n20 = arith.addf %m20, %v20 : vector<4xf32>
        %o21 = arith.constant 84 : index
        %p21 = arith.addi %base, %o21 : index
        %v21 = vector.load %in[%p21] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m21 = arith.mulf %a21, %v21 : vector<4xf32>
        %n21 = arith.addf %m21, %v21 : vector<4xf32>
        %o22 = arith.constant 88 : index
        %p22 = arith.addi %base, %o22 : index
        %v22 = vector.load %in[%p22] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m22 = arith.mulf %a22, %v22 : vector<4xf32>
        %n22 = arith.addf %m22, %v22 : vector<4xf32>
        %o23 = arith.constant 92 : index
        %p23 = arith.addi %base, %o23 : index
        %v23 = vector.load %in[%p23] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %m23 = arith.mulf %a23, %v23 : vector<4xf32>
        %n23 = arith.addf %m23, %v23 : vector<4xf32>
        scf.yield %n0, %n1, %n2, %n3, %n4, %n5, %n6, %n7, %n8, %n9, %n10, %n11, %n12, %n13, %n14, %n15, %n16, %n17, %n18, %n19, %n20, %n21, %n22, %n23 : vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
      }
      %sbase = arith.muli %tid, %c96 : index
      %so0 = arith.constant 0 : index
      %sp0 = arith.addi %sbase, %so0 : index
      vector.store %r#0, %out[%sp0] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so1 = arith.constant 4 : index
      %sp1 = arith.addi %sbase, %so1 : index
      vector.store %r#1, %out[%sp1] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so2 = arith.constant 8 : index
      %sp2 = arith.addi %sbase, %so2 : index
      vector.store %r#2, %out[%sp2] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so3 = arith.constant 12 : index
      %sp3 = arith.addi %sbase, %so3 : index
      vector.store %r#3, %out[%sp3] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so4 = arith.constant 16 : index
      %sp4 = arith.addi %sbase, %so4 : index
      vector.store %r#4, %out[%sp4] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so5 = arith.constant 20 : index
      %sp5 = arith.addi %sbase, %so5 : index
      vector.store %r#5, %out[%sp5] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so6 = arith.constant 24 : index
      %sp6 = arith.addi %sbase, %so6 : index
      vector.store %r#6, %out[%sp6] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so7 = arith.constant 28 : index
      %sp7 = arith.addi %sbase, %so7 : index
      vector.store %r#7, %out[%sp7] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so8 = arith.constant 32 : index
      %sp8 = arith.addi %sbase, %so8 : index
      vector.store %r#8, %out[%sp8] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so9 = arith.constant 36 : index
      %sp9 = arith.addi %sbase, %so9 : index
      vector.store %r#9, %out[%sp9] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so10 = arith.constant 40 : index
      %sp10 = arith.addi %sbase, %so10 : index
      vector.store %r#10, %out[%sp10] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so11 = arith.constant 44 : index
      %sp11 = arith.addi %sbase, %so11 : index
      vector.store %r#11, %out[%sp11] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so12 = arith.constant 48 : index
      %sp12 = arith.addi %sbase, %so12 : index
      vector.store %r#12, %out[%sp12] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so13 = arith.constant 52 : index
      %sp13 = arith.addi %sbase, %so13 : index
      vector.store %r#13, %out[%sp13] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so14 = arith.constant 56 : index
      %sp14 = arith.addi %sbase, %so14 : index
      vector.store %r#14, %out[%sp14] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so15 = arith.constant 60 : index
      %sp15 = arith.addi %sbase, %so15 : index
      vector.store %r#15, %out[%sp15] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so16 = arith.constant 64 : index
      %sp16 = arith.addi %sbase, %so16 : index
      vector.store %r#16, %out[%sp16] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so17 = arith.constant 68 : index
      %sp17 = arith.addi %sbase, %so17 : index
      vector.store %r#17, %out[%sp17] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so18 = arith.constant 72 : index
      %sp18 = arith.addi %sbase, %so18 : index
      vector.store %r#18, %out[%sp18] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so19 = arith.constant 76 : index
      %sp19 = arith.addi %sbase, %so19 : index
      vector.store %r#19, %out[%sp19] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so20 = arith.constant 80 : index
      %sp20 = arith.addi %sbase, %so20 : index
      vector.store %r#20, %out[%sp20] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so21 = arith.constant 84 : index
      %sp21 = arith.addi %sbase, %so21 : index
      vector.store %r#21, %out[%sp21] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so22 = arith.constant 88 : index
      %sp22 = arith.addi %sbase, %so22 : index
      vector.store %r#22, %out[%sp22] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %so23 = arith.constant 92 : index
      %sp23 = arith.addi %sbase, %so23 : index
      vector.store %r#23, %out[%sp23] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      gpu.return
    }
  }
}
