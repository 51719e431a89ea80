// A kernel that stores 128 values without a mask: launched on a buffer of
// fewer elements, its store (line 11) faults on the emulator, which must
// name this file and line. SourceLocationTest.cpp compiles it through
// tessel-translate, the library builder and the JIT.
tile.kernel @oob_store(%out: !tile.ptr<i32>) attributes {knobs = [
    #tile.knob<"num_waves" : i32 = 1, values = [1]>]} {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %c3 = arith.constant dense<3> : tensor<128xi32>
  %v = arith.muli %r, %c3 : tensor<128xi32>
  // The store the tests expect in the fault message: line 11, column 3.
  tile.store %v, %out[%r] : tensor<128xi32>, !tile.ptr<i32>, tensor<128xi32>
  tile.return
}
