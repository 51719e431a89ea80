// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks that tile.kernel, tile.return and tile.knob reject bad signatures,
// results, duplicate knob declarations and reads of undeclared or
// mistyped knobs.

// expected-error @+1 {{'tile.kernel' op argument #1 has type 'f16'; kernel arguments must be !tile.ptr, i32, i64 or f32}}
tile.kernel @bad_arg(%p: !tile.ptr<f16>, %h: f16) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.kernel' op argument #0 has type 'tensor<4xf32>'; kernel arguments must be !tile.ptr, i32, i64 or f32}}
tile.kernel @tensor_arg(%t: tensor<4xf32>) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.kernel' op argument #0 has type 'i1'; kernel arguments must be !tile.ptr, i32, i64 or f32}}
tile.kernel @bool_arg(%b: i1) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.kernel' op kernels return nothing, but the type has 1 result(s)}}
tile.kernel @with_result(%n: i32) -> i32 {
  tile.return
}

// -----

// expected-error @+1 {{'tile.kernel' op kernel must have a body}}
tile.kernel private @no_body(%n: i32)

// -----

// expected-error @+1 {{'tile.kernel' op knob 'block' is declared twice}}
tile.kernel @twice() attributes {knobs = [
    #tile.knob<"block" : i32 = 4>, #tile.knob<"block" : i64>]} {
  tile.return
}

// -----

// expected-error @+1 {{'tile.kernel' op attribute 'knobs' failed to satisfy constraint: knob declarations}}
tile.kernel @not_knobs() attributes {knobs = [1 : i32]} {
  tile.return
}

// -----

tile.kernel @undeclared() attributes {knobs = [#tile.knob<"block" : i32>]} {
  // expected-error @+1 {{'tile.knob' op reads knob 'blok' which kernel @undeclared does not declare}}
  %b = tile.knob "blok" : i32
  tile.return
}

// -----

tile.kernel @no_knobs() {
  // expected-error @+1 {{'tile.knob' op reads knob 'block' which kernel @no_knobs does not declare}}
  %b = tile.knob "block" : i32
  tile.return
}

// -----

tile.kernel @mistyped() attributes {knobs = [#tile.knob<"block" : i32>]} {
  // expected-error @+1 {{'tile.knob' op knob 'block' is declared as 'i32' but read as 'i64'}}
  %b = tile.knob "block" : i64
  tile.return
}

// -----

func.func @outside() {
  // expected-error @+1 {{'tile.knob' op must be inside a tile.kernel}}
  %b = tile.knob "block" : i32
  return
}

// -----

func.func @return_outside() {
  // expected-error @+1 {{'tile.return' op expects parent op 'tile.kernel'}}
  tile.return
}

// -----

tile.kernel @return_nested(%n: i32) {
  %z = arith.constant 0 : i32
  %c = arith.cmpi sgt, %n, %z : i32
  scf.if %c {
    // expected-error @+1 {{'tile.return' op expects parent op 'tile.kernel'}}
    tile.return
  }
  tile.return
}

// -----

tile.kernel @pid_axis() {
  // expected-error @+1 {{'tile.program_id' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %p = tile.program_id 3 : i32
  tile.return
}

// -----

tile.kernel @nprog_axis() {
  // expected-error @+1 {{'tile.num_programs' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %p = tile.num_programs -1 : i32
  tile.return
}

// -----

tile.kernel @pid_type() {
  // expected-error @+1 {{'tile.program_id' op result #0 must be 32-bit signless integer, but got 'i64'}}
  %p = tile.program_id 0 : i64
  tile.return
}
