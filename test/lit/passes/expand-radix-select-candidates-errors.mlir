// RUN: not tessel-opt %s -tile-expand-radix-select 2>&1 | FileCheck %s --check-prefix=NOTARGET
// RUN: not tessel-opt %s -tile-expand-radix-select=candidates=3000 2>&1 | FileCheck %s --check-prefix=POW2
// RUN: not tessel-opt %s -tile-expand-radix-select=candidates=-2 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not tessel-opt %s -tile-expand-radix-select=target=gfx9000 2>&1 | FileCheck %s --check-prefix=BADTARGET
// RUN: not tessel-opt %s -tile-specialize-knobs=target=sm_90 -tile-expand-radix-select=target=gfx942 2>&1 | FileCheck %s --check-prefix=MIXED
// Checks that the candidate buffer's size is never guessed: without a
// target (option or tessel.target) and without `candidates` the pass
// fails and says what it needs; a capacity that is not a power of two, a
// negative one other than -1, an unknown target and a target other than
// the module's are errors naming the value.

// NOTARGET: error: tile-expand-radix-select: sizing the candidate buffer needs a target (the `target` option or the module's 'tessel.target') or an explicit `candidates`
// POW2: error: tile-expand-radix-select: candidates must be -1 (from the target), 0 (no buffer) or a power of two, got 3000
// NEG: error: tile-expand-radix-select: candidates must be -1 (from the target), 0 (no buffer) or a power of two, got -2
// BADTARGET: error: tile-expand-radix-select: unsupported target 'gfx9000'
// MIXED: error: tile-expand-radix-select for target 'gfx942' cannot run on a module already specialized for 'sm_90'
tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>, %n: i32, %o: i64) {
  tile.topk %x[%o], %n -> %y[%o] {k = 512 : i32, chunk = 1024 : i32, stable}
      : !tile.ptr<f32>, !tile.ptr<i32>
  tile.return
}
