//===- SpecializeKnobs.cpp - Bind tile.knob values to constants -----------===//

#include "tessel/Passes/Passes.h"

#include "tessel/Lowering/ModuleTarget.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace tessel {
#define GEN_PASS_DEF_TILESPECIALIZEKNOBS
#include "tessel/Passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;
using namespace tessel::tile;

namespace {

/// Parses "NAME=VALUE" bindings; VALUE is an integer or true/false.
LogicalResult parseBindings(ArrayRef<std::string> specs, Location loc,
                            llvm::StringMap<int64_t> &out) {
  for (const std::string &spec : specs) {
    StringRef s(spec);
    auto [name, value] = s.split('=');
    name = name.trim();
    value = value.trim();
    if (name.empty() || !s.contains('='))
      return emitError(loc)
             << "knob binding '" << spec << "' is not of the form NAME=VALUE";
    int64_t v;
    if (value == "true")
      v = 1;
    else if (value == "false")
      v = 0;
    else if (value.getAsInteger(0, v))
      return emitError(loc) << "knob '" << name << "' has value '" << value
                            << "', which is not an integer";
    if (!out.insert({name, v}).second)
      return emitError(loc) << "knob '" << name << "' is bound twice";
  }
  return success();
}

struct SpecializeKnobsPass
    : public tessel::impl::TileSpecializeKnobsBase<SpecializeKnobsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringMap<int64_t> bindings;
    if (failed(parseBindings(knobs, module.getLoc(), bindings)))
      return signalPassFailure();

    if (!target.empty()) {
      std::unique_ptr<TargetInfo> info =
          claimModuleTarget(module, target, getArgument());
      if (!info)
        return signalPassFailure();
      targetKnobs["fp8_fnuz"] =
          isa<Float8E4M3FNUZType>(info->fp8Type(module.getContext()));
    }
    llvm::StringSet<> used;
    bool failedAny = false;
    module.walk([&](KernelOp kernel) {
      if (failed(specialize(kernel, bindings, used)))
        failedAny = true;
    });
    if (failedAny)
      return signalPassFailure();
    for (auto &b : bindings)
      if (!used.contains(b.getKey())) {
        module.emitError() << "unknown knob '" << b.getKey()
                           << "': no kernel in this module declares it";
        return signalPassFailure();
      }
  }

  llvm::StringMap<int64_t> targetKnobs;

  LogicalResult specialize(KernelOp kernel,
                           const llvm::StringMap<int64_t> &bindings,
                           llvm::StringSet<> &used) {
    MLIRContext *ctx = kernel.getContext();
    llvm::StringMap<IntegerAttr> values;
    SmallVector<NamedAttribute> recorded;
    if (kernel.getKnobs()) {
      for (Attribute a : kernel.getKnobsAttr()) {
        auto decl = cast<KnobAttr>(a);
        StringRef name = decl.getName();
        auto type = cast<IntegerType>(decl.getType());
        IntegerAttr value;
        auto fromTarget = targetKnobs.find(name);
        if (fromTarget != targetKnobs.end()) {
          if (auto it = bindings.find(name);
              it != bindings.end() && it->second != fromTarget->second)
            return kernel.emitError()
                   << "knob '" << name << "' is fixed by target " << target
                   << " to " << fromTarget->second << ", but was bound to "
                   << it->second;
          if (bindings.count(name))
            used.insert(name);
          value = IntegerAttr::get(type, fromTarget->second);
        } else if (auto it = bindings.find(name); it != bindings.end()) {
          used.insert(name);
          int64_t v = it->second;
          if (decl.getValues() &&
              !llvm::is_contained(decl.getValues().asArrayRef(), v))
            return kernel.emitError()
                   << "knob '" << name << "' of kernel @" << kernel.getSymName()
                   << " may not be " << v
                   << "; allowed values: " << decl.getValues();
          if (!fitsIn(v, type))
            return kernel.emitError() << "value " << v << " of knob '" << name
                                      << "' does not fit in " << type;
          value = IntegerAttr::get(type, v);
        } else if (decl.getDefaultValue()) {
          value = IntegerAttr::get(type, *decl.getDefaultValue());
        } else {
          return kernel.emitError()
                 << "knob '" << name << "' of kernel @" << kernel.getSymName()
                 << " has no value and no default; bind it with " << name
                 << "=VALUE";
        }
        values[name] = value;
        recorded.push_back(NamedAttribute(StringAttr::get(ctx, name), value));
      }
    }
    kernel->setAttr("tessel.knobs", DictionaryAttr::get(ctx, recorded));

    kernel.walk([&](KnobOp knob) {
      OpBuilder b(knob);
      IntegerAttr v = values.lookup(knob.getName());
      Value c = arith::ConstantOp::create(b, knob.getLoc(), v);
      knob.replaceAllUsesWith(c);
      knob.erase();
    });
    return success();
  }
};

} // namespace
