// RUN: tessel-opt %s -tile-expand-radix-select=candidates=1024 | FileCheck %s --check-prefix=TWO
// RUN: tessel-opt %s -tile-expand-radix-select=candidates=256 | FileCheck %s --check-prefix=SMALL
// RUN: tessel-opt %s -tile-expand-radix-select="target=gfx942 candidates=0" | FileCheck %s --check-prefix=OFF
// Checks the `candidates` option, which needs no target: 1024 pairs with
// chunks of 512 are two pieces of 512 (a staged tile), each with its own
// guarded scatter at positions relative to the piece; 256 pairs are one
// piece smaller than the chunk; 0 turns the buffer off, whatever the
// target, so the only LDS the expansion allocates is the histograms' bins.

// TWO: tile.local_alloc : !tile.memdesc<2x512xi32,
// TWO: tile.local_alloc : !tile.memdesc<2x512xi32,
// The first piece: reached when the chunk's bin ranks start below 512;
// positions used as they are, those from 512 on masked off.
// TWO: arith.cmpi slt, %{{.+}}, %c512{{.*}} : i32
// TWO: scf.if
// TWO: %[[HI0:.+]] = tile.splat %c512{{.*}} : i32 -> tensor<512xi32>
// TWO: arith.cmpi slt, %[[POS:.+]], %[[HI0]] : tensor<512xi32>
// TWO: %[[S0:.+]] = tile.memdesc_index %{{.+}}[%c0{{.*}}] : !tile.memdesc<2x512xi32,
// TWO: tile.atomic_rmw xchg, %[[S0]][%[[POS]]]
// The second piece: reached when they end above 512; positions from 512
// on, less 512.
// TWO: arith.cmpi sgt, %{{.+}}, %c512{{.*}} : i32
// TWO: scf.if
// TWO: %[[LO1:.+]] = tile.splat %c512{{.*}} : i32 -> tensor<512xi32>
// TWO: arith.cmpi sge, %[[POS]], %[[LO1]] : tensor<512xi32>
// TWO: %[[AT1:.+]] = arith.subi %[[POS]], %[[LO1]] : tensor<512xi32>
// TWO: %[[S1:.+]] = tile.memdesc_index %{{.+}}[%c1{{.*}}] : !tile.memdesc<2x512xi32,
// TWO: tile.atomic_rmw xchg, %[[S1]][%[[AT1]]]

// SMALL: tile.local_alloc : !tile.memdesc<1x256xi32,
// SMALL: tile.local_alloc : !tile.memdesc<1x256xi32,
// SMALL: arith.cmpi sle, %{{.+}}, %c256{{.*}} : i32
// SMALL: tile.local_load %{{.+}} : !tile.memdesc<256xi32, {{.+}}> -> tensor<256xi32>

// OFF-NOT: tile.local_alloc :
// OFF-NOT: tile.memdesc_index
// OFF: tile.local_alloc(%{{.+}} : tensor<2048xi32>) : !tile.memdesc<2048xi32,
// OFF-NOT: tile.local_alloc :
// OFF-NOT: tile.memdesc_index
tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>, %n: i32, %o: i64) {
  tile.topk %x[%o], %n -> %y[%o] {k = 512 : i32, chunk = 512 : i32, stable}
      : !tile.ptr<f32>, !tile.ptr<i32>
  tile.return
}
