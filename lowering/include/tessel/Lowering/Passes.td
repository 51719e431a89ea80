//===- Passes.td - Tile IR to SIMT IR passes ---------------*- tablegen -*-===//
#ifndef TESSEL_LOWERING_PASSES_TD
#define TESSEL_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToSimt : Pass<"convert-tile-to-simt", "::mlir::ModuleOp"> {
  let summary = "Distributes tile IR over lanes and waves, giving SIMT IR";
  let description = [{
    Turns each `tile.kernel` (whose tensors carry distributed layouts, see
    `tile-assign-layouts`) into a `gpu.func` in
    its own `gpu.module`. Each tensor becomes the `vector<E x T>` of the
    elements one lane holds; pointers become global `memref<?xT>`s. Loads
    and stores are vectorized where the offsets are provably contiguous and
    aligned; reductions combine in registers, then across lanes through the
    target's `TargetInfo` (DPP / ds_swizzle / permlane on AMD, shuffles on
    NVIDIA), then across waves through LDS; where the target gives them
    LDS for it (`laneReduceScratchBytes`: Hopper, whose shuffles use the
    same pipe as shared memory) and waves split the axis, the lanes write
    their partial results to LDS instead (after as few shuffles as the
    budget needs), groups of adjacent lanes sum each result's partials, and
    every lane reads its results back. Scans run each lane's run in
    registers, scan the runs' totals across lanes (DPP row_shr/row_bcast or
    shfl.up), exchange the waves' totals once through LDS and fix up in
    registers. Across lanes, both take 32- and 64-bit integers and floats:
    a 64-bit value crosses lanes as its two 32-bit halves, joined before
    the combiner, and sits in 8-byte LDS slots; other element types are an
    error naming the op and the type. Layout changes, reshapes and transposes pick the cheapest of
    registers, in-wave shuffles and LDS. Shared-memory tiles
    (`!tile.memdesc` from `tile.local_alloc`) become byte offsets into the
    kernel's one LDS buffer; `tile.local_store` / `tile.local_load` address
    them through the composition of the tensor's layout with the shared
    layout, 16 bytes at a time where both allow (a `#tile.shared` with
    perPhase = maxPhase = 0 first gets the swizzle with the fewest bank
    conflicts over the buffer's accesses), between the barriers listed in
    `lowering/SIMT_IR.md`; `tile.async_copy_global_to_local`
    becomes `cp.async` on sm_90 and a load plus an LDS store on
    gfx942/gfx950. Every op's LDS (scratch and buffers) is laid out by one
    liveness-based allocation; a kernel over the target's LDS fails with an
    error naming each buffer. The result obeys `lowering/SIMT_IR.md`. The pass refuses a module whose
    `tessel.target` (recorded by `tile-assign-layouts`) names another
    target, and records its own target where none is.

    Before (gfx942, one wave):
    ```mlir
    tile.kernel @k(%x: !tile.ptr<f32>) {
      %r = tile.range 0 to 128 : tensor<128xi32, #blocked>
      %o = arith.extsi %r : tensor<128xi32, #blocked> to tensor<128xi64, #blocked>
      %v = tile.load %x[%o] : !tile.ptr<f32>, tensor<128xi64, #blocked> -> tensor<128xf32, #blocked>
      ...
    }
    ```
    After:
    ```mlir
    gpu.module @k {
      gpu.func @k(%x: memref<?xf32, #gpu.address_space<global>>) kernel
          attributes {known_block_size = array<i32: 64, 1, 1>} {
        ...
        %v = vector.load %x[%i] : memref<?xf32, #gpu.address_space<global>>, vector<2xf32>
        ...
      }
    }
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", "\"gfx942\"",
           "Target name (gfx942, gfx950, sm_90a, sm_90)">
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::vector::VectorDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::amdgpu::AMDGPUDialect",
    "::mlir::ROCDL::ROCDLDialect", "::mlir::math::MathDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::nvgpu::NVGPUDialect"
  ];
}

def VerifySimtLevel : Pass<"verify-simt-level", "::mlir::ModuleOp"> {
  let summary = "Checks that a module is valid SIMT IR";
  let description = [{
    Fails, naming the op, when a `gpu.func` contains an op that SIMT IR
    does not allow (see `lowering/SIMT_IR.md`): tile ops, tensors, ops of
    the other vendor's dialects (`amdgpu` / `rocdl` on NVIDIA; `nvvm`,
    `nvgpu.device_async_copy` and `gpu.shuffle` on AMD), dialects outside
    the list, or a lane move (DPP, swizzles, permlane swaps, ds_bpermute,
    shuffles) of anything but one 32-bit scalar. It changes nothing.

    Before and after: the same module. On
    ```mlir
    gpu.func @k() kernel { %r = tile.range 0 to 4 : tensor<4xi32> ... }
    ```
    it reports `'tile.range' is not allowed in SIMT IR`.
  }];
}

#endif // TESSEL_LOWERING_PASSES_TD
