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

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TESSEL_TILE_DIALECT
