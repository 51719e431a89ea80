//===- TileAttrs.td - tile dialect attributes and layouts --*- tablegen -*-===//
#ifndef TESSEL_TILE_ATTRS
#define TESSEL_TILE_ATTRS

include "tessel/Dialect/Tile/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/TensorEncoding.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

// max and min are signed on integers; umax and umin compare integers as
// unsigned (packed keys such as (value << 32) | ~index).
def Tile_CombineKind : I32EnumAttr<"CombineKind",
    "combining function of a reduction or scan", [
      I32EnumAttrCase<"add", 0>,
      I32EnumAttrCase<"max", 1>,
      I32EnumAttrCase<"min", 2>,
      I32EnumAttrCase<"umax", 3>,
      I32EnumAttrCase<"umin", 4>
    ]> {
  let cppNamespace = "::tessel::tile";
  let genSpecializedAttr = 0;
}
def Tile_CombineKindAttr : EnumAttr<Tile_Dialect, Tile_CombineKind, "combine">;

def Tile_AtomicKind : I32EnumAttr<"AtomicKind",
    "read-modify-write operation of an atomic", [
      I32EnumAttrCase<"add", 0>,
      I32EnumAttrCase<"max", 1>,
      I32EnumAttrCase<"min", 2>,
      I32EnumAttrCase<"umax", 3>,
      I32EnumAttrCase<"umin", 4>,
      I32EnumAttrCase<"and_", 5, "and">,
      I32EnumAttrCase<"or_", 6, "or">,
      I32EnumAttrCase<"xchg", 7>
    ]> {
  let cppNamespace = "::tessel::tile";
  let genSpecializedAttr = 0;
}
def Tile_AtomicKindAttr : EnumAttr<Tile_Dialect, Tile_AtomicKind, "atomic">;

def Tile_DataLayout : I32EnumAttr<"DataLayout",
    "arrangement of a paged KV block in memory", [
      I32EnumAttrCase<"plain", 0>,
      I32EnumAttrCase<"preshuffled", 1>
    ]> {
  let cppNamespace = "::tessel::tile";
  let genSpecializedAttr = 0;
}
def Tile_DataLayoutAttr : EnumAttr<Tile_Dialect, Tile_DataLayout, "data_layout">;

def Tile_MemScope : I32EnumAttr<"MemScope", "memory scope of an atomic", [
      I32EnumAttrCase<"workgroup", 0>,
      I32EnumAttrCase<"device", 1>,
      I32EnumAttrCase<"system", 2>
    ]> {
  let cppNamespace = "::tessel::tile";
  let genSpecializedAttr = 0;
}
def Tile_MemScopeAttr : EnumAttr<Tile_Dialect, Tile_MemScope, "scope">;

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tile_KnobAttr : Tile_Attr<"Knob", "knob"> {
  let summary = "Declaration of a compile-time knob of a kernel";
  let description = [{
    Declares a knob that specialization binds to a constant. The knob has an
    integer type (`i1` for booleans, with values 0 and 1), an optional
    default, and an optional list of the values it may take:

    ```mlir
    #tile.knob<"tokens_per_program" : i32 = 4, values = [1, 2, 4, 8]>
    ```
  }];
  let parameters = (ins StringRefParameter<"knob name">:$name,
                        "::mlir::Type":$type,
                        OptionalParameter<"std::optional<int64_t>">:$defaultValue,
                        OptionalParameter<"::mlir::DenseI64ArrayAttr">:$values);
  let assemblyFormat = [{
    `<` $name `:` $type (`=` $defaultValue^)? (`,` `values` `=` $values^)? `>`
  }];
  let genVerifyDecl = 1;
}

// Layout encodings. Each describes how the elements of a ranked tensor are
// distributed; they appear as the encoding of RankedTensorType.

def Tile_BlockedLayoutAttr : Tile_Attr<"BlockedLayout", "blocked",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "Elements split into per-lane blocks, lanes and waves";
  let description = [{
    Dimension `d` of a tensor is covered by `sizePerThread[d]` consecutive
    elements in one lane, `threadsPerWave[d]` lanes and `wavesPerCTA[d]`
    waves; the pattern repeats (in registers) when the tensor is larger and
    is replicated when it is smaller. `order` lists dimensions from fastest
    to slowest varying, for both registers and lane ids.

    ```mlir
    #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [4, 16],
                   wavesPerCTA = [4, 1], order = [1, 0]}>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread,
                        ArrayRefParameter<"unsigned">:$threadsPerWave,
                        ArrayRefParameter<"unsigned">:$wavesPerCTA,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `{` `sizePerThread` `=` `[` $sizePerThread `]` `,`
    `threadsPerWave` `=` `[` $threadsPerWave `]` `,`
    `wavesPerCTA` `=` `[` $wavesPerCTA `]` `,` `order` `=` `[` $order `]` `}` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getOrder().size(); }
    unsigned getNumLanes() const;
    unsigned getNumWaves() const;
  }];
}

def Tile_SliceLayoutAttr : Tile_Attr<"SliceLayout", "slice",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "Layout of a tensor with one dimension of its parent removed";
  let description = [{
    The result of reducing a tensor of layout `parent` along `dim`: element
    `i` lives where element `i` with `dim` inserted (at any position) lived.

    ```mlir
    #tile.slice<{dim = 1, parent = #blocked}>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
  let assemblyFormat = "`<` `{` struct(params) `}` `>`";
  let genVerifyDecl = 1;
}

def Tile_MfmaLayoutAttr : Tile_Attr<"MfmaLayout", "mfma",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "Accumulator layout of AMD matrix-core (MFMA) instructions";
  let description = [{
    The C/D layout of `v_mfma_f32_MxNxK_*` on CDNA3/CDNA4, tiled over
    `wavesPerCTA`. `instrShape` is [M, N, K] of one instruction: 16x16x32,
    32x32x16 (fp8), 16x16x16, 32x32x8 (bf16), and on `version = 4` (CDNA4)
    also gfx950's double-rate fp8 16x16x128 and 32x32x64
    (`v_mfma_f32_*_f8f6f4`). The verifier checks shapes against the
    version; whether the kernel's target has the instruction is checked
    against TargetInfo.

    ```mlir
    #tile.mfma<{version = 3, instrShape = [16, 16, 32], wavesPerCTA = [4, 1], transposed = false}>
    ```
  }];
  let parameters = (ins "unsigned":$version,
                        ArrayRefParameter<"unsigned">:$instrShape,
                        ArrayRefParameter<"unsigned">:$wavesPerCTA,
                        "bool":$transposed);
  let assemblyFormat = [{
    `<` `{` `version` `=` $version `,` `instrShape` `=` `[` $instrShape `]` `,`
    `wavesPerCTA` `=` `[` $wavesPerCTA `]` `,` `transposed` `=` $transposed `}` `>`
  }];
  let genVerifyDecl = 1;
}

def Tile_NvMmaLayoutAttr : Tile_Attr<"NvMmaLayout", "nv_mma",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "Accumulator layout of NVIDIA mma.sync / wgmma";
  let description = [{
    The accumulator layout of `mma.sync` (version 2, instrShape [16, 8, K])
    or `wgmma` (version 3, instrShape [64, N, K]) tiled over `wavesPerCTA`.

    ```mlir
    #tile.nv_mma<{version = 2, instrShape = [16, 8, 32], wavesPerCTA = [4, 1]}>
    ```
  }];
  let parameters = (ins "unsigned":$version,
                        ArrayRefParameter<"unsigned">:$instrShape,
                        ArrayRefParameter<"unsigned">:$wavesPerCTA);
  let assemblyFormat = [{
    `<` `{` `version` `=` $version `,` `instrShape` `=` `[` $instrShape `]` `,`
    `wavesPerCTA` `=` `[` $wavesPerCTA `]` `}` `>`
  }];
  let genVerifyDecl = 1;
}

def Tile_DotOperandLayoutAttr : Tile_Attr<"DotOperandLayout", "dot_operand",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "Operand layout of a matrix instruction";
  let description = [{
    Operand `opIdx` (0 = A, 1 = B) of the matrix instruction whose result
    layout is `parent` (`#tile.mfma` or `#tile.nv_mma`); `kWidth` is the
    number of consecutive K elements one lane holds.

    ```mlir
    #tile.dot_operand<{opIdx = 0, parent = #mfma, kWidth = 8}>
    ```
  }];
  let parameters = (ins "unsigned":$opIdx, "::mlir::Attribute":$parent,
                        "unsigned":$kWidth);
  let assemblyFormat = "`<` `{` struct(params) `}` `>`";
  let genVerifyDecl = 1;
}

def Tile_LinearEncodingAttr : Tile_Attr<"LinearEncoding", "linear",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "A distributed layout written as its linear-layout bases";
  let description = [{
    The map (register, lane, wave) -> tensor coordinates over GF(2) that
    every distributed encoding stands for (LinearLayoutConversions.h),
    written out: basis i of `register` (of `lane`, of `wave`) is the
    coordinate, one entry per tensor dimension, that register slot (lane,
    wave) 2^i holds; the element of any other input is the XOR of the bases
    of its set bits. A zero basis is a broadcast. The numbers of lanes and
    waves are 2^(number of bases).

    `tile-assign-layouts` gives it to the result of a `tile.reshape` whose
    source has a matrix-instruction layout: the reshape then only relabels
    which coordinate bit each register, lane and wave bit holds, and costs
    nothing. For example the 16x16 MFMA accumulator [16, 16] reshaped to
    [2, 8, 16] (rows split in 2 x 8):

    ```mlir
    #tile.linear<{rank = 3, register = [[0, 1, 0], [0, 2, 0]],
                  lane = [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8],
                          [0, 4, 0], [1, 0, 0]],
                  wave = []}>
    ```

    The tensor it annotates must have `rank` dimensions, every coordinate
    must lie inside it, and every element must be held by some (register,
    lane, wave).
  }];
  let parameters = (ins "unsigned":$rank,
                        ArrayRefParameter<"int32_t">:$registerBases,
                        ArrayRefParameter<"int32_t">:$laneBases,
                        ArrayRefParameter<"int32_t">:$waveBases);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The encoding of a (register, lane, wave) -> (dim0, ...) layout.
    static LinearEncodingAttr get(::mlir::MLIRContext *ctx,
                                  const ::tessel::tile::LinearLayout &layout);
    /// The bases of input `in` (0 = register, 1 = lane, 2 = wave), `rank`
    /// entries each.
    ::llvm::SmallVector<::llvm::SmallVector<int32_t, 4>>
    getBases(unsigned in) const;
  }];
}

def Tile_SharedLayoutAttr : Tile_Attr<"SharedLayout", "shared",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "Layout of a tile staged in shared memory (LDS)";
  let description = [{
    A tile in workgroup memory, swizzled to avoid bank conflicts: rows are
    XORed in groups of `vec` elements with a phase that advances every
    `perPhase` rows and wraps at `maxPhase`. `order` is fastest first.

    ```mlir
    #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
    ```

    `perPhase = 0, maxPhase = 0` leaves the swizzle to the compiler: for a
    `tile.local_alloc` buffer, `convert-tile-to-simt` picks the phases that
    give the fewest bank-conflicted LDS accesses over every op that stores
    to or loads from the buffer (vec and order stay as written).
  }];
  let parameters = (ins "unsigned":$vec, "unsigned":$perPhase,
                        "unsigned":$maxPhase,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `{` `vec` `=` $vec `,` `perPhase` `=` $perPhase `,` `maxPhase` `=` $maxPhase
    `,` `order` `=` `[` $order `]` `}` `>`
  }];
  let genVerifyDecl = 1;
}

#endif // TESSEL_TILE_ATTRS
