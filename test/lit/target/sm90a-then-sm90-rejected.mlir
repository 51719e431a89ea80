// RUN: not tessel-opt %s -tile-assign-layouts=target=sm_90a -convert-tile-to-simt=target=sm_90 2>&1 | FileCheck %s
// Checks that sm_90a and sm_90 are distinct targets: layouts assigned for
// sm_90a cannot be lowered for sm_90.

// CHECK: error: {{.*}}'sm_90'{{.*}}'sm_90a'
tile.kernel @k(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %v = tile.load %x[%r] : !tile.ptr<f32>, tensor<128xi32> -> tensor<128xf32>
  tile.store %v, %x[%r] : tensor<128xf32>, !tile.ptr<f32>, tensor<128xi32>
  tile.return
}
