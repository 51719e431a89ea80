//===- TileTypes.td - tile dialect types -------------------*- tablegen -*-===//
#ifndef TESSEL_TILE_TYPES
#define TESSEL_TILE_TYPES

include "tessel/Dialect/Tile/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "tessel/Dialect/Tile/TileAttrs.td"

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

def Tile_MemDescType : Tile_Type<"MemDesc", "memdesc"> {
  let summary = "A tile that lives in shared memory (LDS)";
  let description = [{
    A buffer in workgroup memory (LDS on AMD, shared memory on NVIDIA) that
    holds a tile of `shape` with `elementType` elements, arranged by the
    shared layout `encoding` (`#tile.shared`: the element offset of every
    coordinate, swizzled to spread accesses over the banks). The shape has
    the layout's rank, or one more: a leading stage dimension makes the
    buffer hold that many tiles one after the other (multi-buffering), and
    `tile.memdesc_index` picks one of them.

    ```mlir
    !tile.memdesc<64x128xf8E4M3FN, #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
    !tile.memdesc<2x64x128xf8E4M3FN, #shared>   // two stages of 64x128
    ```

    Tile dimensions are powers of two (the layout is a linear map of the
    offset bits); the stage count is any positive number. Buffers come from
    `tile.local_alloc` and are placed by the kernel's one LDS allocator.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        "::mlir::Attribute":$encoding);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The shared layout.
    SharedLayoutAttr getSharedLayout() const {
      return ::llvm::cast<SharedLayoutAttr>(getEncoding());
    }
    /// True when the shape has a leading stage dimension.
    bool hasStages() const {
      return getShape().size() == getSharedLayout().getOrder().size() + 1;
    }
    /// Number of stages (1 without a stage dimension).
    int64_t getNumStages() const { return hasStages() ? getShape()[0] : 1; }
    /// The shape of one stage's tile.
    ::llvm::ArrayRef<int64_t> getTileShape() const {
      return hasStages() ? getShape().drop_front() : getShape();
    }
    /// Elements of one stage's tile.
    int64_t getTileElems() const;
    /// This type without its stage dimension.
    MemDescType getStageType() const;
  }];
}

def Tile_AsyncTokenType : Tile_Type<"AsyncToken", "async_token"> {
  let summary = "Marks the completion of asynchronous copies";
  let description = [{
    Returned by `tile.async_copy_global_to_local`, `tile.async_commit_group`
    and `tile.async_wait`; it orders them in the IR and has no value at run
    time.

    ```mlir
    %g = tile.async_commit_group %t0, %t1
    ```
  }];
}

def Tile_AsyncBarrierType : Tile_Type<"AsyncBarrier", "async_barrier"> {
  let summary = "A ring of completion barriers for asynchronous copies";
  let description = [{
    `stages` barriers in shared memory, one per stage of a multi-buffered
    tile: fill `f` of the ring (the f-th time any stage is filled, counted
    from 0) completes on barrier `f mod stages`, in its phase
    `f div stages`. `tile.async_commit_group ... barrier(%bar[%f])` makes
    the copies of one fill arrive on it, and
    `tile.async_wait ... barrier(%bar[%f])` waits for that fill, so a
    pipeline waits for exactly the stage it reads next instead of counting
    groups. Allocated by `tile.async_barrier_alloc` in the kernel's LDS.

    ```mlir
    !tile.async_barrier<3>   // three barriers, for a three-stage ring
    ```
  }];
  let parameters = (ins "unsigned":$stages);
  let assemblyFormat = "`<` $stages `>`";
  let genVerifyDecl = 1;
}

#endif // TESSEL_TILE_TYPES
