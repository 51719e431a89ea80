//===- TileOps.td - tile dialect operations ----------------*- tablegen -*-===//
#ifndef TESSEL_TILE_OPS
#define TESSEL_TILE_OPS

include "tessel/Dialect/Tile/TileDialect.td"
include "tessel/Dialect/Tile/TileTypes.td"
include "tessel/Dialect/Tile/TileAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tile_Elem : AnyTypeOf<[AnySignlessInteger, AnyFloat]>;
// Tiles have static shapes: distribution needs them, and specialization
// binds every size before lowering.
def Tile_Tensor : StaticShapeTensorOf<[Tile_Elem]>;
def Tile_Value : AnyTypeOf<[Tile_Elem, Tile_Tensor]>;
def Tile_IntTensor : StaticShapeTensorOf<[AnySignlessInteger]>;
def Tile_Offsets : AnyTypeOf<[I32, I64, StaticShapeTensorOf<[I32, I64]>]>;
def Tile_Mask : AnyTypeOf<[I1, StaticShapeTensorOf<[I1]>]>;

//===----------------------------------------------------------------------===//
// Kernels and knobs
//===----------------------------------------------------------------------===//

def Tile_KernelOp : Tile_Op<"kernel", [IsolatedFromAbove, FunctionOpInterface,
                                       AutomaticAllocationScope]> {
  let summary = "A GPU kernel: one program of a grid";
  let description = [{
    The body describes one program instance. Arguments are pointers
    (`!tile.ptr<T>`) and scalars (`i32`, `i64`, `f32`); kernels return
    nothing. `knobs` declares the compile-time knobs that `tile.knob` may
    read; specialization binds them.

    ```mlir
    tile.kernel @scale(%x: !tile.ptr<f32>, %n: i32) attributes {
        knobs = [#tile.knob<"block" : i32 = 256>]} {
      %b = tile.knob "block" : i32
      ...
      tile.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       OptionalAttr<TypedArrayAttrBase<Tile_KnobAttr,
                                    "knob declarations">>:$knobs);
  let regions = (region AnyRegion:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    /// Returns the declaration of knob `name`, or null.
    KnobAttr lookupKnob(::llvm::StringRef name);
  }];
}

def Tile_ReturnOp : Tile_Op<"return", [Pure, HasParent<"KernelOp">,
                                       ReturnLike, Terminator]> {
  let summary = "Ends a kernel";
  let description = [{
    Terminates the body of a `tile.kernel`.

    ```mlir
    tile.return
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_KnobOp : Tile_Op<"knob", [Pure]> {
  let summary = "Reads a compile-time knob";
  let description = [{
    Yields the value of a knob declared by the enclosing kernel. The
    `tile-specialize-knobs` pass replaces it with a constant.

    ```mlir
    %tpp = tile.knob "tokens_per_program" : i32
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs AnySignlessInteger:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Program ids
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "Index of this program along a grid axis";
  let description = [{
    ```mlir
    %pid = tile.program_id 0 : i32
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "Number of programs along a grid axis";
  let description = [{
    ```mlir
    %n = tile.num_programs 0 : i32
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Tensor construction
//===----------------------------------------------------------------------===//

def Tile_RangeOp : Tile_Op<"range", [Pure]> {
  let summary = "The 1-D tensor [start, start+1, ..., end-1]";
  let description = [{
    ```mlir
    %r = tile.range 0 to 128 : tensor<128xi32>
    ```
  }];
  let arguments = (ins I64Attr:$start, I64Attr:$end);
  let results = (outs StaticShapeTensorOf<[I32, I64]>:$result);
  let assemblyFormat = "$start `to` $end attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure]> {
  let summary = "A tensor with every element equal to a scalar";
  let description = [{
    ```mlir
    %t = tile.splat %s : f32 -> tensor<4x128xf32>
    ```
  }];
  let arguments = (ins Tile_Elem:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "Repeats size-1 dimensions to a larger shape";
  let description = [{
    ```mlir
    %b = tile.broadcast %x : tensor<4x1xf32> -> tensor<4x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure]> {
  let summary = "Inserts a size-1 dimension";
  let description = [{
    ```mlir
    %e = tile.expand_dims %x, 1 : tensor<4xf32> -> tensor<4x1xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src `,` $axis attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "Reinterprets a tensor with another shape of equal size";
  let description = [{
    Elements keep their row-major order.

    ```mlir
    %r = tile.reshape %x : tensor<4x32xf32> -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_TransposeOp : Tile_Op<"transpose", [Pure]> {
  let summary = "Permutes the dimensions of a tensor";
  let description = [{
    Result dimension `i` is source dimension `order[i]`.

    ```mlir
    %t = tile.transpose %x, [1, 0] : tensor<16x32xf32> -> tensor<32x16xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src `,` $order attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure]> {
  let summary = "Moves a tensor to another layout encoding";
  let description = [{
    Same shape and element type; only the encoding changes.

    ```mlir
    %c = tile.convert_layout %x : tensor<128xf32, #a> -> tensor<128xf32, #b>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def Tile_PtrCastOp : Tile_Op<"ptr_cast", [Pure]> {
  let summary = "Views a byte buffer as a buffer of another element type";
  let description = [{
    Only pointers to `i8` may be cast; offsets into the result count
    elements of the new type from the same base address.

    ```mlir
    %f = tile.ptr_cast %bytes : !tile.ptr<i8> to !tile.ptr<f32>
    ```
  }];
  let arguments = (ins Tile_PtrType:$src);
  let results = (outs Tile_PtrType:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `to` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load", [MemoryEffects<[MemRead]>, AttrSizedOperandSegments]> {
  let summary = "Loads (gathers) elements at base + offsets";
  let description = [{
    Loads `ptr[offsets[i]]` for every element of `offsets` (a scalar offset
    loads a scalar). Offsets are element counts, i32 or i64. Where `mask` is
    false nothing is read and the result holds `other` (0 when absent).
    Offsets computed from loaded indices (for example a paged block table)
    make this a gather. `data_layout` declares how a paged KV block is
    arranged in memory (`plain` or `preshuffled`); the preshuffle rewrite
    uses it.

    ```mlir
    %v = tile.load %p[%offs] mask(%m : tensor<128xi1>) other(%z : tensor<128xf32>)
           : !tile.ptr<f32>, tensor<128xi64> -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Tile_PtrType:$ptr, Tile_Offsets:$offsets,
                       Optional<Tile_Mask>:$mask, Optional<Tile_Value>:$other,
                       OptionalAttr<Tile_DataLayoutAttr>:$data_layout,
                       UnitAttr:$volatile_);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $ptr `[` $offsets `]` (`mask` `(` $mask^ `:` type($mask) `)`)?
    (`other` `(` $other^ `:` type($other) `)`)? attr-dict `:`
    qualified(type($ptr)) `,` type($offsets) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "Stores (scatters) elements to base + offsets";
  let description = [{
    Stores `value[i]` to `ptr[offsets[i]]` where `mask` is true.

    ```mlir
    tile.store %v, %p[%offs] mask(%m : tensor<128xi1>)
      : tensor<128xf32>, !tile.ptr<f32>, tensor<128xi64>
    ```
  }];
  let arguments = (ins Tile_Value:$value, Tile_PtrType:$ptr,
                       Tile_Offsets:$offsets, Optional<Tile_Mask>:$mask,
                       OptionalAttr<Tile_DataLayoutAttr>:$data_layout);
  let assemblyFormat = [{
    $value `,` $ptr `[` $offsets `]` (`mask` `(` $mask^ `:` type($mask) `)`)?
    attr-dict `:` type($value) `,` qualified(type($ptr)) `,` type($offsets)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [MemoryEffects<[MemRead, MemWrite]>,
                                              AllTypesMatch<["value", "result"]>]> {
  let summary = "Atomic read-modify-write on global memory";
  let description = [{
    For each element, atomically replaces `ptr[offsets[i]]` by
    `kind(old, value[i])` where `mask` is true and returns `old`.

    ```mlir
    %old = tile.atomic_rmw add, %p[%o], %v : !tile.ptr<i32>, tensor<256xi64>, tensor<256xi32>
    ```
  }];
  let arguments = (ins Tile_AtomicKindAttr:$kind, Tile_PtrType:$ptr,
                       Tile_Offsets:$offsets, Tile_Value:$value,
                       Optional<Tile_Mask>:$mask,
                       DefaultValuedAttr<Tile_MemScopeAttr,
                                         "::tessel::tile::MemScope::device">:$scope);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $kind `,` $ptr `[` $offsets `]` `,` $value (`mask` `(` $mask^ `:` type($mask) `)`)?
    attr-dict `:` qualified(type($ptr)) `,` type($offsets) `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [MemoryEffects<[MemRead, MemWrite]>,
                                              AllTypesMatch<["cmp", "value", "result"]>]> {
  let summary = "Atomic compare-and-swap on global memory";
  let description = [{
    Atomically stores `value` to `ptr[offsets]` if it holds `cmp`; returns
    the old value.

    ```mlir
    %old = tile.atomic_cas %p[%o], %cmp, %v : !tile.ptr<i32>, i64, i32
    ```
  }];
  let arguments = (ins Tile_PtrType:$ptr, Tile_Offsets:$offsets,
                       Tile_Value:$cmp, Tile_Value:$value,
                       DefaultValuedAttr<Tile_MemScopeAttr,
                                         "::tessel::tile::MemScope::device">:$scope);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $ptr `[` $offsets `]` `,` $cmp `,` $value attr-dict `:`
    qualified(type($ptr)) `,` type($offsets) `,` type($value)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["c", "result"]>]> {
  let summary = "Matrix product with accumulation: a * b + c";
  let description = [{
    `a` is MxK, `b` is KxN, `c` and the result are MxN f32. Operand pairs:
    fp8 x fp8 (both `f8E4M3FN` or both `f8E4M3FNUZ`) and bf16 x bf16.

    ```mlir
    %d = tile.dot %a, %b, %c : tensor<64x128xf8E4M3FN>, tensor<128x64xf8E4M3FN> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$a, Tile_Tensor:$b, Tile_Tensor:$c);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "Reduces a tensor along one axis with add, max or min";
  let description = [{
    Removes dimension `axis`; reducing a 1-D tensor gives a scalar.

    ```mlir
    %m = tile.reduce max %x, 1 : tensor<4x128xf32> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Tile_CombineKindAttr:$kind, Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = "$kind $src `,` $axis attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan", [Pure, SameOperandsAndResultType]> {
  let summary = "Prefix scan along one axis (inclusive or exclusive)";
  let description = [{
    Element `i` along `axis` becomes the combination of elements `0..i`
    (inclusive) or `0..i-1` (exclusive; the identity at 0). `reverse` scans
    from the end.

    ```mlir
    %s = tile.scan add %x, 0 {exclusive} : tensor<256xi32>
    ```
  }];
  let arguments = (ins Tile_CombineKindAttr:$kind, Tile_Tensor:$src, I32Attr:$axis,
                       UnitAttr:$exclusive, UnitAttr:$reverse);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$kind $src `,` $axis attr-dict `:` type($src)";
  let hasVerifier = 1;
}

def Tile_HistogramOp : Tile_Op<"histogram", [Pure]> {
  let summary = "Counts keys per bin";
  let description = [{
    Result element `b` is the number of elements of `keys` equal to `b`
    (where `mask` is true). Keys outside [0, bins) are not counted. This is
    the per-digit building block of radix select.

    ```mlir
    %h = tile.histogram %digits : tensor<1024xi32> -> tensor<256xi32>
    ```
  }];
  let arguments = (ins Tile_IntTensor:$keys, Optional<Tile_Mask>:$mask);
  let results = (outs StaticShapeTensorOf<[I32]>:$result);
  let assemblyFormat = [{
    $keys (`mask` `(` $mask^ `:` type($mask) `)`)? attr-dict `:` type($keys) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_TopKOp : Tile_Op<"topk", [Pure]> {
  let summary = "Indices of the k largest of the first n elements (radix select)";
  let description = [{
    Returns the positions of the `k` largest values among `values[0..n)`.
    When `n < k` the result is `0..n-1` followed by `-1`. Order is
    unspecified unless `sorted` (descending by value). With `stable`, ties
    at the k-th value go to the smaller index, so every caller picks the
    same set. `tile-expand-radix-select` lowers it to histograms, scans and
    compaction over order-preserving integer keys.

    ```mlir
    %idx = tile.topk %row, %n {k = 2048 : i32, stable} : tensor<8192xf32>, i32 -> tensor<2048xi32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$values, I32:$n, I32Attr:$k,
                       UnitAttr:$stable, UnitAttr:$sorted);
  let results = (outs StaticShapeTensorOf<[I32]>:$result);
  let assemblyFormat = "$values `,` $n attr-dict `:` type($values) `,` type($n) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_GridBarrierOp : Tile_Op<"grid_barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Waits until every program of a persistent grid arrives";
  let description = [{
    A software grid barrier on an i32 counter at `ptr[offset]`, which must
    start at 0 and is left at 0 again (the workspace resets itself, so the
    kernel is safe under graph capture). All programs of the grid must be
    resident at once.

    ```mlir
    tile.grid_barrier %ws[%c0] : !tile.ptr<i32>, i64
    ```
  }];
  let arguments = (ins Tile_PtrType:$ptr, AnyTypeOf<[I32, I64]>:$offset);
  let assemblyFormat = "$ptr `[` $offset `]` attr-dict `:` qualified(type($ptr)) `,` type($offset)";
  let hasVerifier = 1;
}

#endif // TESSEL_TILE_OPS
