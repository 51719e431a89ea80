// RUN: tessel-translate %kernels/indexer_k_cache_write.mlir --target=gfx950 --knob=scale_ue8m0=1 --emit=simt -o - | FileCheck %s --check-prefix=UE8M0
// RUN: tessel-translate %kernels/indexer_k_cache_write.mlir --target=gfx950 --emit=simt -o - | FileCheck %s --check-prefix=F32
// Checks the writer's scale: amax clamped at 1e-4 before the division by
// fp8_max, and with scale_ue8m0 the f32 rounded up to a power of two (a
// non-zero mantissa carried into the exponent) before k is divided by it;
// without the knob that rounding is gone.

// UE8M0-DAG: %[[ONES:.*]] = arith.constant dense<8388607> : vector<1xi32>
// UE8M0-DAG: %[[EXP:.*]] = arith.constant dense<-8388608> : vector<1xi32>
// UE8M0-DAG: arith.constant dense<9.99999974E-5> : vector<1xf32>
// UE8M0: %[[S:.*]] = arith.divf
// UE8M0: %[[B:.*]] = arith.bitcast %[[S]] : vector<1xf32> to vector<1xi32>
// UE8M0: %[[U:.*]] = arith.addi %[[B]], %[[ONES]]
// UE8M0: %[[P:.*]] = arith.andi %[[U]], %[[EXP]]
// UE8M0: arith.bitcast %[[P]] : vector<1xi32> to vector<1xf32>
// F32: arith.constant dense<9.99999974E-5> : vector<1xf32>
// F32-NOT: 8388607
