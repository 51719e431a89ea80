// RUN: tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s --check-prefix=AMD
// RUN: tessel-translate %s --target=sm_90 --emit=ptx -o - | FileCheck %s --check-prefix=NV
// Checks that the kernel shown in README.md compiles for CDNA3 and Hopper,
// with 16-byte loads and stores (aligned pointers, n % 16 == 0). On CDNA3
// the load's mask `i < n` is the range of a bounds-checked buffer load.

// AMD: buffer_load_dwordx4
// AMD: v_max_f32
// AMD: global_store_dwordx4
// AMD: .amdhsa_private_segment_fixed_size 0
// NV: .entry scaled_relu
// NV: ld.global.v4.b32
// NV: max.NaN.f32
// NV: st.global.v4.b32
// out[i] = max(x[i], 0) * s for i < n, 256 elements per program.
tile.kernel @scaled_relu(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                         %out: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                         %s: f32, %n: i32 {tile.divisibility = 16 : i64})
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 1, values = [1, 2, 4]>]} {
  %pid = tile.program_id 0 : i32
  %c256 = arith.constant 256 : i32
  %base = arith.muli %pid, %c256 : i32
  %r = tile.range 0 to 256 : tensor<256xi32>
  %b = tile.splat %base : i32 -> tensor<256xi32>
  %i = arith.addi %b, %r : tensor<256xi32>
  %nv = tile.splat %n : i32 -> tensor<256xi32>
  %m = arith.cmpi slt, %i, %nv : tensor<256xi32>
  %v = tile.load %x[%i] mask(%m : tensor<256xi1>) : !tile.ptr<f32>, tensor<256xi32> -> tensor<256xf32>
  %z = arith.constant dense<0.0> : tensor<256xf32>
  %p = arith.maximumf %v, %z : tensor<256xf32>
  %sv = tile.splat %s : f32 -> tensor<256xf32>
  %y = arith.mulf %p, %sv : tensor<256xf32>
  tile.store %y, %out[%i] mask(%m : tensor<256xi1>) : tensor<256xf32>, !tile.ptr<f32>, tensor<256xi32>
  tile.return
}
