//===- TileTypes.td - tile dialect types -------------------*- tablegen -*-===//
#ifndef TESSEL_TILE_TYPES
#define TESSEL_TILE_TYPES

include "tessel/Dialect/Tile/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_PtrType : Tile_Type<"Ptr", "ptr"> {
  let summary = "Pointer to global memory holding elements of one type";
  let description = [{
    A base pointer into a global-memory buffer of `pointeeType` elements.
    Loads and stores address it with element offsets:

    ```mlir
    %v = tile.load %p[%offs] : !tile.ptr<bf16>, tensor<128xi64> -> tensor<128xbf16>
    ```

    The pointee is a scalar integer or float type (fp8 included).
  }];
  let parameters = (ins "::mlir::Type":$pointeeType);
  let assemblyFormat = "`<` $pointeeType `>`";
  let genVerifyDecl = 1;
}

#endif // TESSEL_TILE_TYPES
