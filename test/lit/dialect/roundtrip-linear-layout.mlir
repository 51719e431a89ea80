// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// Checks that #tile.linear (a distributed layout written as its bases)
// parses and prints back unchanged, on a rank-3 tensor and under a slice.

// CHECK: tensor<2x8x16xf32, #tile.linear<{rank = 3, register = {{\[\[}}0, 1, 0], [0, 2, 0]], lane = {{\[\[}}0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 4, 0], [1, 0, 0]], wave = []}>>
// CHECK: tensor<2x16xf32, #tile.slice<{dim = 1, parent = #tile.linear<{rank = 3, register = {{\[\[}}0, 1, 0], [0, 2, 0]], lane = {{\[\[}}0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 4, 0], [1, 0, 0]], wave = []}>}>>
#l = #tile.linear<{rank = 3, register = [[0, 1, 0], [0, 2, 0]], lane = [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 4, 0], [1, 0, 0]], wave = []}>
tile.kernel @k(%x: !tile.ptr<f32>) {
  %c = arith.constant dense<1.0> : tensor<2x8x16xf32, #l>
  %s = tile.reduce add %c, 1 : tensor<2x8x16xf32, #l> -> tensor<2x16xf32, #tile.slice<{dim = 1, parent = #l}>>
  tile.return
}
