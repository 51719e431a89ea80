// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks that #tile.knob rejects an empty name, a non-integer type, a
// default that does not fit its type, an empty value list and a default
// outside its value list.

// expected-error @+1 {{knob name must not be empty}}
tile.kernel @empty_name() attributes {knobs = [#tile.knob<"" : i32>]} {
  tile.return
}

// -----

// expected-error @+1 {{knob 'scale' must have a signless integer type, got 'f32'}}
tile.kernel @float_knob() attributes {knobs = [#tile.knob<"scale" : f32>]} {
  tile.return
}

// -----

// expected-error @+1 {{knob 'n' must have a signless integer type, got 'index'}}
tile.kernel @index_knob() attributes {knobs = [#tile.knob<"n" : index>]} {
  tile.return
}

// -----

// expected-error @+1 {{knob 'n' must have a signless integer type, got 'ui32'}}
tile.kernel @unsigned_knob() attributes {knobs = [#tile.knob<"n" : ui32>]} {
  tile.return
}

// -----

// expected-error @+1 {{default 2 of knob 'flag' does not fit in 'i1'}}
tile.kernel @bool_default() attributes {knobs = [#tile.knob<"flag" : i1 = 2>]} {
  tile.return
}

// -----

// expected-error @+1 {{default -1 of knob 'flag' does not fit in 'i1'}}
tile.kernel @bool_negative() attributes {knobs = [#tile.knob<"flag" : i1 = -1>]} {
  tile.return
}

// -----

// expected-error @+1 {{default 256 of knob 'b' does not fit in 'i8'}}
tile.kernel @byte_default() attributes {knobs = [#tile.knob<"b" : i8 = 256>]} {
  tile.return
}

// -----

// expected-error @+1 {{default -129 of knob 'b' does not fit in 'i8'}}
tile.kernel @byte_negative() attributes {knobs = [#tile.knob<"b" : i8 = -129>]} {
  tile.return
}

// -----

// expected-error @+1 {{knob 'tpp' lists no allowed values}}
tile.kernel @no_values() attributes {knobs = [#tile.knob<"tpp" : i32, values = []>]} {
  tile.return
}

// -----

tile.kernel @default_not_listed() attributes {knobs = [
    // expected-error @+1 {{default 3 of knob 'tpp' is not among its values}}
    #tile.knob<"tpp" : i32 = 3, values = [1, 2, 4, 8]>]} {
  tile.return
}
