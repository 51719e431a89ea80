// Fuzzer failure: fatal on --target=gfx942 --emit=hsaco
// from test/lit/translate/multiple-kernels-one-object.mlir#0, mutant 592 of seed 2 (type_all)
// Stack dump:
    gpu.func @first(%a: memref<?xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<index: 64, 1, 1>} {
