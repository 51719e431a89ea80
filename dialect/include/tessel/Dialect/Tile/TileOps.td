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
def Tile_DotOperand : AnyTypeOf<[Tile_Tensor, Tile_MemDescType]>;
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
    arranged in memory (`plain` or `preshuffled`).

    A `preshuffled` load reads a K tile of shape [128, N] (D = 128 fp8
    bytes along dimension 0, N tokens) as `i8` from blocks whose value
    bytes are stored `[block_size/16][128/16][16 tokens][16 bytes]`
    (DESIGN.md §3.1). With `block_base`, an i64 tile of the offsets' shape
    holding the byte offset of each element's block, the offsets are the
    plain in-block offsets `o * 128 + d` (token row o, byte d), and the
    element read is `ptr[block_base + P(offsets)]`, where `P` moves byte d
    of row o to `[o/16][d/16][o%16][d%16]`; `tile-preshuffle-kv` rewrites
    the address. Without `block_base` the offsets already address the
    preshuffled bytes, and the attribute asks layout assignment to keep 16
    consecutive D bytes per lane (one 16-byte load in matrix-operand
    order).

    ```mlir
    %v = tile.load %p[%offs] mask(%m : tensor<128xi1>) other(%z : tensor<128xf32>)
           : !tile.ptr<f32>, tensor<128xi64> -> tensor<128xf32>
    %k = tile.load %kv[%inblock] block_base(%base : tensor<128x64xi64>)
           {data_layout = #tile.data_layout<preshuffled>}
           : !tile.ptr<i8>, tensor<128x64xi64> -> tensor<128x64xi8>
    ```
  }];
  let arguments = (ins Tile_PtrType:$ptr, Tile_Offsets:$offsets,
                       Optional<Tile_IntTensor>:$block_base,
                       Optional<Tile_Mask>:$mask, Optional<Tile_Value>:$other,
                       OptionalAttr<Tile_DataLayoutAttr>:$data_layout,
                       UnitAttr:$volatile_);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $ptr `[` $offsets `]`
    (`block_base` `(` $block_base^ `:` type($block_base) `)`)?
    (`mask` `(` $mask^ `:` type($mask) `)`)?
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
  let summary = "Atomic read-modify-write on global or shared memory";
  let description = [{
    For each element, atomically replaces `ptr[offsets[i]]` by
    `kind(old, value[i])` where `mask` is true and returns `old`.

    `ptr` is a global pointer or a shared-memory tile (`!tile.memdesc`,
    1-D, without stages; `offsets` are its element positions). On a
    shared-memory tile the atomics are the workgroup's (`ds_add_u32` and
    friends on AMD, `atom.shared` on NVIDIA) whatever `scope` says, and
    like `tile.local_store` the op puts a workgroup barrier before them
    (earlier reads of the tile finish first) and one after them (later
    reads by any wave see the results).

    ```mlir
    %old = tile.atomic_rmw add, %p[%o], %v : !tile.ptr<i32>, tensor<256xi64>, tensor<256xi32>
    %cnt = tile.atomic_rmw add, %bins[%b], %one : !tile.memdesc<2048xi32, #shared1d>, tensor<256xi32>, tensor<256xi32>
    ```
  }];
  let arguments = (ins Tile_AtomicKindAttr:$kind,
                       AnyTypeOf<[Tile_PtrType, Tile_MemDescType]>:$ptr,
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

def Tile_DotOp : Tile_Op<"dot", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    AlwaysSpeculatable, AllTypesMatch<["c", "result"]>]> {
  let summary = "Matrix product with accumulation: a * b + c";
  let description = [{
    `a` is MxK, `b` is KxN, `c` and the result are MxN f32. Operand pairs:
    fp8 x fp8 (both `f8E4M3FN` or both `f8E4M3FNUZ`) and bf16 x bf16.

    ```mlir
    %d = tile.dot %a, %b, %c : tensor<64x128xf8E4M3FN>, tensor<128x64xf8E4M3FN> -> tensor<64x64xf32>
    ```

    On targets whose matrix instruction reads its operands from shared
    memory (wgmma on sm_90a), `a` and/or `b` may be a single-stage
    `!tile.memdesc` (take a stage with `tile.memdesc_index`): the instruction
    then reads the buffer directly instead of staging registers. The buffer
    must be in the canonical K-major layout the instruction reads: K fastest
    (`order = [1, 0]` for `a` [M, K], `order = [0, 1]` for `b` [K, N]), K of
    32, 64 or 128 bytes (one swizzle span), 16-byte vectors, and the phase
    advancing every 128 bytes: `perPhase = 128 / Kbytes`,
    `maxPhase = Kbytes / 16`. For fp8 with K = 128:

    ```mlir
    #wgA = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>
    #wgB = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1]}>
    %d = tile.dot %sa, %sb, %c : !tile.memdesc<64x128xf8E4M3FN, #wgA>, !tile.memdesc<128x64xf8E4M3FN, #wgB> -> tensor<64x64xf32>
    ```

    Writes to the buffer must be complete (`tile.async_wait`, or a
    `tile.local_store`) before the dot; the lowering fences them for the
    matrix unit. The op reads its memdesc operands (a memory effect, so it
    does not move across their writes); with tensor operands it is pure.
    Where the matrix instruction reads registers,
    `tile-assign-layouts` loads a memdesc operand with `tile.local_load` in
    the instruction's operand layout.

    With `async`, where the matrix instruction runs asynchronously (wgmma),
    the dot's instructions are committed as one group and not waited for:
    the result is still being written. It may be used only as the
    accumulator `c` of another async dot, by `tile.dot_wait` (which makes
    it readable), or carried through an `scf.for` to such uses; the
    verifier rejects any other use. A memdesc operand must not be
    overwritten before a `tile.dot_wait` has retired the dot. Elsewhere
    `async` changes nothing.

    ```mlir
    %r = tile.dot %sa, %sb, %d {async} : !tile.memdesc<64x64xf8E4M3FN, #wgA>, !tile.memdesc<64x128xf8E4M3FN, #wgB> -> tensor<64x128xf32>
    %s = tile.dot_wait pending = 0, %r : tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_DotOperand:$a, Tile_DotOperand:$b, Tile_Tensor:$c,
                       UnitAttr:$async);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Shape of a (or b): a tensor's, or one stage of a memdesc's.
    static ::llvm::ArrayRef<int64_t> operandShape(::mlir::Value v);
    /// Element type of a (or b).
    static ::mlir::Type operandElementType(::mlir::Value v);
  }];
}

def Tile_DotWaitOp : Tile_Op<"dot_wait", [
    MemoryEffects<[MemRead, MemWrite]>,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "Waits until at most `pending` async dots are in flight";
  let description = [{
    Returns once all but the `pending` most recently issued `async`
    `tile.dot`s of this program have completed (their instructions have
    written their accumulators and read their operands), and returns
    `values` unchanged: those produced by the completed dots can now be
    read like any tensor (pass only those: a value of a dot still in
    flight stays unreadable, and tying its registers here would stall). The memdesc operands of the completed dots may
    be overwritten after it (with a workgroup barrier between, as
    `tile.async_copy_global_to_local` puts one).

    wgmma (sm_90a): `wgmma.wait_group.sync.aligned pending`, with the
    values' registers tied to it so that no read of them moves above it.
    Elsewhere dots complete in order and it returns its operands.

    ```mlir
    tile.dot_wait pending = 1
    %ready = tile.dot_wait pending = 0, %acc : tensor<64x128xf32>
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>]>:$pending,
                       Variadic<Tile_Tensor>:$values);
  let results = (outs Variadic<Tile_Tensor>:$results);
  let assemblyFormat = [{
    `pending` `=` $pending (`,` $values^ `:` type($values))? attr-dict
  }];
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "Reduces a tensor along one axis with add, max, min, umax or umin";
  let description = [{
    Removes dimension `axis`; reducing a 1-D tensor gives a scalar. `max`
    and `min` compare integers as signed, `umax` and `umin` (integers only)
    as unsigned.

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
    from the end. The kinds are those of `tile.reduce`.

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

def Tile_PrefixCountOp : Tile_Op<"prefix_count", [Pure]> {
  let summary = "Positions of a 1-D mask's true elements among them, and their count";
  let description = [{
    `positions[i]` is the number of true elements of `mask` before `i`
    (an exclusive count in index order); `total` is the number of true
    elements. Where `mask[i]` holds, `positions[i]` is the slot of element
    `i` in a compaction of the true elements: the building block of stream
    compaction (radix select's output and candidate buffers).

    It is a scan of 0/1 values, lowered without one: a ballot of each
    register of the wave, the count of the ballot's bits below the lane
    (`v_mbcnt` on AMD, `popc` of the masked ballot on NVIDIA), and one
    exchange of the waves' totals through LDS. The mask needs a blocked
    layout in which every lane of a wave holds distinct elements.

    ```mlir
    %pos, %n = tile.prefix_count %sel : tensor<4096xi1> -> tensor<4096xi32>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[I1]>:$mask);
  let results = (outs StaticShapeTensorOf<[I32]>:$positions, I32:$total);
  let assemblyFormat = [{
    $mask attr-dict `:` type($mask) `->` type($positions)
  }];
  let hasVerifier = 1;
}

def Tile_GatherOp : Tile_Op<"gather", [Pure]> {
  let summary = "Reads a tile's elements at data-dependent indices along one axis";
  let description = [{
    Along `axis`, element `(i0, .., ia, .., in)` of the result is
    `src[i0, .., indices[i0, .., ia, .., in], .., in]`: the result has the
    shape of `indices` and the element type of `src`. `src` and `indices`
    have the same rank and the same size in every dimension but `axis`.
    An index outside `[0, size of src along axis)` reads 0, so no access
    leaves the tile.

    It is the register-tile counterpart of a gathering `tile.load`: a table
    lookup, or a step of a binary search over a scanned tile. Lowered
    through LDS: one copy of `src`, then one read per result element.

    ```mlir
    %v = tile.gather %prefix[%pos], 0 : tensor<4096xi32>, tensor<512xi32> -> tensor<512xi32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, StaticShapeTensorOf<[I32]>:$indices,
                       I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $src `[` $indices `]` `,` $axis attr-dict `:` type($src) `,`
    type($indices) `->` type($result)
  }];
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

def Tile_HistogramAddOp : Tile_Op<"histogram_add", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Adds the counts of keys per bin to a shared-memory histogram";
  let description = [{
    For every element of `keys` (where `mask` is true) whose value `b` lies
    in [0, bins), adds one to `bins[b]`, where `bins` is a 1-D i32 tile in
    shared memory without stages. Keys outside the range are not counted.
    Repeated calls accumulate, so a histogram over many chunks costs only
    the atomics per chunk; the caller zeroes the bins once (a
    `tile.local_alloc` with an initial value or a `tile.local_store`, whose
    barriers order the zeroing after earlier reads).

    Unlike `tile.atomic_rmw` on a shared-memory tile, the op inserts no
    barrier: its adds are workgroup atomics, which commute, and a wave may
    run ahead into the next chunk. A reader of `bins` must come after a
    `tile.barrier`. The lanes of a wave that hit one bin combine first where
    the target can, so that one atomic per distinct bin of the wave is
    issued.

    ```mlir
    tile.histogram_add %digits mask(%m : tensor<1024xi1>) into %bins
        : tensor<1024xi32>, !tile.memdesc<2048xi32, #shared1d>
    ```
  }];
  let arguments = (ins Tile_IntTensor:$keys,
                       Optional<StaticShapeTensorOf<[I1]>>:$mask,
                       Tile_MemDescType:$bins);
  let assemblyFormat = [{
    $keys (`mask` `(` $mask^ `:` type($mask) `)`)? `into` $bins attr-dict
    `:` type($keys) `,` qualified(type($bins))
  }];
  let hasVerifier = 1;
}

def Tile_BarrierOp : Tile_Op<"barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Waits for every wave of the workgroup (orders shared memory)";
  let description = [{
    A workgroup barrier: the shared-memory accesses of every wave before it
    complete before any wave's accesses after it. The shared-memory ops put
    their own barriers (see `tile.local_store`); this one is for the ops
    that do not, such as `tile.histogram_add` before its bins are read.

    ```mlir
    tile.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_TopKOp : Tile_Op<"topk", [MemoryEffects<[MemRead, MemWrite]>,
                                    AttrSizedOperandSegments]> {
  let summary = "Writes the indices of the k largest of a row's first n values (radix select)";
  let description = [{
    Reads the f32 row `src[src_offset + i]` for `0 <= i < n` and writes the
    positions `i` of its `k` largest values to `dst[dst_offset + j]`,
    `0 <= j < k`. When `n <= k` the row is `0..n-1` followed by `-1`; a
    negative `n` counts as 0. Order inside the row is unspecified unless
    `sorted`: then the positions are in descending order of value, equal
    values by the smaller position, and a row with `n < k` holds its
    `0..n-1` in that order, then `-1`; `sorted` needs k to be a power of
    two. With `stable`, ties at the k-th value go to the smaller index, so
    every caller picks the same set.

    Values are ordered as their order-preserving u32 keys: -0.0 equals
    +0.0, and every NaN ranks above +inf.

    The whole program (workgroup) computes one row; every lane must reach
    the op. `chunk` is how many elements the program holds per step.
    `tile-expand-radix-select` lowers it to histograms of key digits,
    suffix scans and compaction (see that pass).

    With `split`, the row is shared by `parts` programs (1 to 256), of
    which this one is `part`: each reads a chunk-aligned slice of the row,
    the first digit's histogram is summed in the global workspace `ws`
    from `ws_offset` (layout and size in tessel/topk_workspace.h; `row`,
    below 64, picks the row's region) and grid barriers join the phases;
    part 0 refines the later digits alone. Every lane of every program of
    the grid must reach the op, and the grid must be resident at once (see
    `tile.grid_barrier`). The workspace must be zero before the first
    launch; the op leaves it so.

    ```mlir
    tile.topk %logits[%row_off], %n -> %out[%out_off] {k = 2048 : i32, chunk = 4096 : i32, stable}
        : !tile.ptr<f32>, !tile.ptr<i32>
    tile.topk %logits[%row_off], %n -> %out[%out_off]
        split(%ws[%c0], %row, %part, %parts) {k = 2048 : i32, chunk = 4096 : i32, stable}
        : !tile.ptr<f32>, !tile.ptr<i32>, !tile.ptr<i32>
    ```
  }];
  let arguments = (ins Tile_PtrType:$src, I64:$src_offset, I32:$n,
                       Tile_PtrType:$dst, I64:$dst_offset,
                       Optional<Tile_PtrType>:$ws, Optional<I64>:$ws_offset,
                       Optional<I32>:$row, Optional<I32>:$part,
                       Optional<I32>:$parts, I32Attr:$k,
                       I32Attr:$chunk, UnitAttr:$stable, UnitAttr:$sorted);
  let assemblyFormat = [{
    $src `[` $src_offset `]` `,` $n `->` $dst `[` $dst_offset `]`
    (`split` `(` $ws^ `[` $ws_offset `]` `,` $row `,` $part `,` $parts `)`)?
    attr-dict `:` qualified(type($src)) `,` qualified(type($dst))
    (`,` qualified(type($ws))^)?
  }];
  let extraClassDeclaration = [{
    /// Whether several programs share the row (the `split` operands).
    bool isSplit() { return getWs() != nullptr; }
  }];
  let hasVerifier = 1;
}

def Tile_GridBarrierOp : Tile_Op<"grid_barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Waits until every program of a persistent grid arrives";
  let description = [{
    A software barrier over every program of the grid. Its workspace is
    the i32 word at `ptr[offset]`, 0 before the first launch. Each barrier
    only flips the word's top bit (its low bits come back to 0), so the
    workspace needs no reset between barriers, launches or graph replays.
    Every lane of every program must reach the op, and all programs of
    the grid must be resident at once (size the grid by occupancy); the
    emulator refuses a grid it cannot hold.

    `convert-tile-to-simt` lowers it to a workgroup barrier, then, by one
    lane of the program, a release fence and a relaxed device-scope atomic
    add on the word: program 0 adds 2^31 - (programs - 1), the others 1, so
    the top bit flips when the last one arrives; each spins, with a
    backoff, until the bit differs from the one its add returned; an
    acquire fence and a second workgroup barrier end it.

    ```mlir
    tile.grid_barrier %ws[%c0] : !tile.ptr<i32>, i64
    ```
  }];
  let arguments = (ins Tile_PtrType:$ptr, AnyTypeOf<[I32, I64]>:$offset);
  let assemblyFormat = "$ptr `[` $offset `]` attr-dict `:` qualified(type($ptr)) `,` type($offset)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shared memory (LDS)
//===----------------------------------------------------------------------===//

def Tile_LocalAllocOp : Tile_Op<"local_alloc", [
    MemoryEffects<[MemAlloc<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Allocates a tile in shared memory (LDS), optionally from a tensor";
  let description = [{
    Returns a buffer of the memdesc type. The kernel's buffers are laid out
    by one liveness-based allocator during `convert-tile-to-simt`: a buffer
    lives from this op to its last use (through `tile.memdesc_index` and
    loops), and buffers whose lives do not overlap share space. A kernel
    whose buffers need more than the target's LDS fails to compile with an
    error that lists every buffer with its location and size.

    With `init`, the tensor is stored into the buffer as by
    `tile.local_store` (the buffer must then have no stage dimension).
    Without it the contents are undefined until written.

    ```mlir
    %a = tile.local_alloc : !tile.memdesc<2x64x128xf8E4M3FN, #shared>
    %b = tile.local_alloc (%t : tensor<64x64xf32>) : !tile.memdesc<64x64xf32, #shared>
    ```
  }];
  let arguments = (ins Optional<Tile_Tensor>:$init);
  let results = (outs Tile_MemDescType:$result);
  let assemblyFormat = [{
    (`(` $init^ `:` type($init) `)`)? attr-dict `:` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_MemDescIndexOp : Tile_Op<"memdesc_index", [Pure]> {
  let summary = "One stage of a multi-buffered shared-memory tile";
  let description = [{
    Stage `index` (0 <= index < stages; not checked at run time) of a
    buffer with a leading stage dimension: a view of that stage's tile with
    the same element type and shared layout.

    ```mlir
    %s = tile.memdesc_index %buf[%i] : !tile.memdesc<2x64x128xf8E4M3FN, #shared> -> !tile.memdesc<64x128xf8E4M3FN, #shared>
    ```
  }];
  let arguments = (ins Tile_MemDescType:$src, I32:$index);
  let results = (outs Tile_MemDescType:$result);
  let assemblyFormat = [{
    $src `[` $index `]` attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_LocalStoreOp : Tile_Op<"local_store", [MemoryEffects<[MemWrite]>]> {
  let summary = "Stores a tensor into a shared-memory tile";
  let description = [{
    Writes every element of `value` to its place in `dst` (given by `dst`'s
    shared layout). The tensor may have any distributed layout; the lowering
    composes the two layouts and uses the widest accesses (up to 16 bytes)
    that both allow. It puts a workgroup barrier before the stores (earlier
    reads of the buffer finish first) and one after them (so that a later
    `tile.local_load` by any wave sees the data).

    ```mlir
    tile.local_store %t, %buf : tensor<64x128xf8E4M3FN> -> !tile.memdesc<64x128xf8E4M3FN, #shared>
    ```
  }];
  let arguments = (ins Tile_Tensor:$value, Tile_MemDescType:$dst);
  let assemblyFormat = [{
    $value `,` $dst attr-dict `:` type($value) `->` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def Tile_LocalLoadOp : Tile_Op<"local_load", [MemoryEffects<[MemRead]>]> {
  let summary = "Loads a tensor from a shared-memory tile";
  let description = [{
    Reads the tile in the result's layout, which is free: loading in a
    different layout from the one the tile was stored in (transposed access,
    a matrix instruction's operand layout) is how LDS changes layouts. It
    inserts no barrier itself; the `tile.local_store` or `tile.async_wait`
    that wrote the data ends with one.

    ```mlir
    %t = tile.local_load %buf : !tile.memdesc<64x128xf8E4M3FN, #shared> -> tensor<64x128xf8E4M3FN>
    ```
  }];
  let arguments = (ins Tile_MemDescType:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $src attr-dict `:` qualified(type($src)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_AsyncCopyGlobalToLocalOp : Tile_Op<"async_copy_global_to_local", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Copies a tile from global to shared memory asynchronously";
  let description = [{
    Copies `ptr[offsets[i]]` into element `i` of `dst` (same shape as
    `offsets`); where `mask` is false the element is written as zero. The
    copy may complete later: group copies with `tile.async_commit_group` and
    wait for groups with `tile.async_wait` before reading `dst`.

    On sm_90 each lane issues `cp.async` (16 bytes with `.cg` where the
    offsets are contiguous and aligned, else 4 or 8) straight from global to
    shared memory. On gfx942/gfx950 each lane loads from global memory and
    stores to LDS. Before the copy the lowering puts a workgroup barrier, so
    that earlier reads of the buffer (the previous use of a stage) finish
    before it is overwritten.

    ```mlir
    %tok = tile.async_copy_global_to_local %p[%offs] mask(%m : tensor<64x128xi1>), %buf
        : !tile.ptr<f8E4M3FN>, tensor<64x128xi32> -> !tile.memdesc<64x128xf8E4M3FN, #shared>
    ```
  }];
  let arguments = (ins Tile_PtrType:$ptr, Tile_IntTensor:$offsets,
                       Optional<StaticShapeTensorOf<[I1]>>:$mask,
                       Tile_MemDescType:$dst);
  let results = (outs Tile_AsyncTokenType:$token);
  let assemblyFormat = [{
    $ptr `[` $offsets `]` (`mask` `(` $mask^ `:` type($mask) `)`)? `,` $dst
    attr-dict `:` qualified(type($ptr)) `,` type($offsets) `->` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def Tile_AsyncBarrierAllocOp : Tile_Op<"async_barrier_alloc", [
    MemoryEffects<[MemAlloc<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Allocates a ring of completion barriers for asynchronous copies";
  let description = [{
    Returns `stages` barriers (`!tile.async_barrier`) in the kernel's LDS,
    each initialised for one arrival per lane of the program; the op ends
    with a workgroup barrier, so every lane sees them initialised. They
    are placed by the kernel's one LDS allocator (8 bytes each) and live
    for the whole kernel: a barrier's memory is not reused for other data.

    NVIDIA: an `mbarrier` per stage (`mbarrier.init.shared.b64` by lane 0,
    arrival count = lanes of the program). AMD, whose copies complete in
    each lane: the space and the barrier only.

    ```mlir
    %bar = tile.async_barrier_alloc : !tile.async_barrier<3>
    ```
  }];
  let results = (outs Tile_AsyncBarrierType:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
}

def Tile_AsyncCommitGroupOp : Tile_Op<"async_commit_group", [
    MemoryEffects<[MemWrite]>, AttrSizedOperandSegments]> {
  let summary = "Closes a group of asynchronous copies";
  let description = [{
    Every `tile.async_copy_global_to_local` issued by this program since the
    previous commit forms one group. The tokens only order the ops in the
    IR.

    Without `barrier`, `tile.async_wait {num}` counts groups. NVIDIA:
    `cp.async.commit_group`; AMD, where the copy completes when the lane's
    load and store do: nothing.

    With `barrier(%bar[%fill])` the group completes fill `fill` of the
    ring (barrier `fill mod stages`), and `tile.async_wait` with the same
    barrier and fill waits for it. NVIDIA: every lane issues
    `cp.async.mbarrier.arrive.noinc` on that barrier, which counts as the
    lane's arrival once its copies land; AMD: nothing.

    ```mlir
    %g = tile.async_commit_group %t0, %t1
    %h = tile.async_commit_group %t2, %t3 barrier(%bar[%i] : !tile.async_barrier<3>)
    ```
  }];
  let arguments = (ins Variadic<Tile_AsyncTokenType>:$tokens,
                       Optional<Tile_AsyncBarrierType>:$barrier,
                       Optional<I32>:$fill);
  let results = (outs Tile_AsyncTokenType:$token);
  let assemblyFormat = [{
    $tokens (`barrier` `(` $barrier^ `[` $fill `]` `:` qualified(type($barrier)) `)`)?
    attr-dict
  }];
  let hasVerifier = 1;
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait", [MemoryEffects<[MemRead, MemWrite]>,
                                              AttrSizedOperandSegments]> {
  let summary = "Waits for asynchronous copies to complete";
  let description = [{
    Exactly one of two forms:

    - `{num = N}`: returns once all but the `N` most recently committed
      groups (committed without a barrier) of this program's asynchronous
      copies are complete, and makes their data visible to every wave: the
      lowering ends it with a workgroup barrier, so a `tile.local_load` may
      follow directly. NVIDIA: `cp.async.wait_group N` and `bar.sync`; AMD:
      the barrier (the copies are complete in each lane already).
    - `barrier(%bar[%fill])`: returns once fill `fill` of the ring has
      completed, i.e. every lane's copies committed to it have landed;
      they are then visible to this lane. NVIDIA: `mbarrier.try_wait.parity`
      on barrier `fill mod stages` with parity `(fill div stages) mod 2`,
      and no `bar.sync`; AMD: a workgroup barrier. A fill must not be
      waited for after the ring has been filled `stages` more times.

    ```mlir
    %w = tile.async_wait %g {num = 1 : i32}
    %v = tile.async_wait %h barrier(%bar[%i] : !tile.async_barrier<3>)
    ```
  }];
  let arguments = (ins Variadic<Tile_AsyncTokenType>:$tokens,
                       Optional<Tile_AsyncBarrierType>:$barrier,
                       Optional<I32>:$fill,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<0>]>>:$num);
  let results = (outs Tile_AsyncTokenType:$token);
  let assemblyFormat = [{
    $tokens (`barrier` `(` $barrier^ `[` $fill `]` `:` qualified(type($barrier)) `)`)?
    attr-dict
  }];
  let hasVerifier = 1;
}

#endif // TESSEL_TILE_OPS
