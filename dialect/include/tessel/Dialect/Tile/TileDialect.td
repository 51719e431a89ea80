//===- TileDialect.td - The tile dialect -------------------*- tablegen -*-===//
#ifndef TESSEL_TILE_DIALECT
#define TESSEL_TILE_DIALECT

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tessel::tile";
  let summary = "Block-level tensor programs for GPU kernels";
  let description = [{
    The `tile` dialect describes one program instance of a GPU kernel as
    operations on whole tiles (ranked tensors), in the manner of Triton. A
    kernel is a `tile.kernel` whose arguments are pointers (`!tile.ptr<T>`)
    and scalars, and whose compile-time knobs (`tile.knob`) are bound by
    specialization. Memory is addressed by a base pointer plus a tensor of
    element offsets (i32 or i64), so gathers and int64 addressing are plain
    loads. Elementwise math uses `arith` and `math` on ranked tensors.
    Tiles have rank >= 1; a rank-0 tensor anywhere in a kernel is a verifier
    error (use `tensor<1xT>` or a scalar).

    Tensors may carry a layout encoding (`#tile.blocked`, `#tile.slice`,
    `#tile.mfma`, `#tile.dot_operand`, `#tile.nv_mma`, `#tile.shared`) that
    says how their elements are split over registers, lanes and waves. The
    layout assignment pass adds these for a target; kernel authors normally
    write tensors without them.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

// Tiles have rank >= 1: distribution gives every tile at least one
// dimension to split over lanes, and a single element is a 1-element tile
// (tensor<1xf32>) or a scalar. Every tile op checks its operands and results
// here; tile.kernel checks the other ops in its body.
def Tile_NoRank0Tensors : NativeOpTrait<"NoRank0Tensors"> {
  let cppNamespace = "::tessel::tile::OpTrait";
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, !listconcat(traits, [Tile_NoRank0Tensors])>;

#endif // TESSEL_TILE_DIALECT
