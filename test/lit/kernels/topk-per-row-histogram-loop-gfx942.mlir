// RUN: tessel-translate %kernels/topk_per_row.mlir --target=gfx942 --emit=simt --knob k=2048 --knob num_waves=16 --knob sorted=0 -o - | FileCheck %s --strict-whitespace
// Checks the SIMT form of topk_per_row's digit histograms on gfx942: for the
// candidate buffer and for the row alike, the bins are zeroed once between
// two barriers, the chunk loop only votes and adds to them with LDS atomics
// (no barrier inside it, so waves run ahead), and one barrier follows the
// loop before the bins are read back.

// CHECK: scf.for {{.+}} -> (i32, i32, i32, i32, i1, i32)
// From the buffer's pieces ...
// CHECK: %[[BINS:view_[0-9]+]] = memref.view {{.+}} to memref<2048xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK: vector.store %{{.+}}, %[[BINS]][
// CHECK: gpu.barrier
// CHECK: {{^}}[[IND:[ ]+]]scf.for %{{.+}} : i32 {
// CHECK-NOT: gpu.barrier
// CHECK: vector.load %{{.+}} : memref<{{[0-9]+}}xi32, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.barrier
// CHECK: rocdl.readfirstlane
// CHECK-NOT: gpu.barrier
// CHECK: memref.atomic_rmw addi %{{.+}}, %[[BINS]][
// CHECK-NOT: gpu.barrier
// CHECK: {{^}}[[IND]]} loc
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: vector.load %[[BINS]][
// ... and from the row.
// CHECK: } else {
// CHECK-NEXT: %[[BINS2:view_[0-9]+]] = memref.view {{.+}} to memref<2048xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK: vector.store %{{.+}}, %[[BINS2]][
// CHECK: gpu.barrier
// CHECK: {{^}}[[IND2:[ ]+]]scf.for %{{.+}} : i32 {
// CHECK-NOT: gpu.barrier
// CHECK: memref<?xf32, #gpu.address_space<global>>
// CHECK-NOT: gpu.barrier
// CHECK: rocdl.readfirstlane
// CHECK-NOT: gpu.barrier
// CHECK: memref.atomic_rmw addi %{{.+}}, %[[BINS2]][
// CHECK-NOT: gpu.barrier
// CHECK: {{^}}[[IND2]]} loc
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: vector.load %[[BINS2]][
