//===- CodeObjectMetadataTest.cpp - Back end and metadata reader tests ----===//
//
// Compiles small SIMT IR kernels in-process and reads the resulting code
// objects back. Expected values come from the kernels' declarations (LDS
// attribution sizes, block sizes, the memref launch ABI), not from earlier
// compiler output.
//
//===----------------------------------------------------------------------===//

#include "tessel/Lowering/CodeObjectMetadata.h"
#include "tessel/Lowering/Pipeline.h"
#include "tessel/Lowering/TargetBackend.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace {

// One kernel: block of BLOCK threads, an LDS buffer of LDS_ELEMS f32, two
// memrefs and an i32 argument.
std::string kernelSource(const std::string &target, int block, int ldsElems) {
  std::string fp8 = target == "gfx942" ? "f8E4M3FNUZ" : "f8E4M3FN";
  return R"(
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>,
                %o: memref<?xi8, #gpu.address_space<global>>, %n: i32)
        workgroup(%lds: memref<)" +
         std::to_string(ldsElems) + R"(xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: )" +
         std::to_string(block) + R"(, 1, 1>} {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      memref.store %x, %lds[%tid] : memref<)" +
         std::to_string(ldsElems) + R"(xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %c0 = arith.constant 0 : index
      %y = memref.load %lds[%c0] : memref<)" +
         std::to_string(ldsElems) + R"(xf32, #gpu.address_space<workgroup>>
      %t = arith.truncf %y : f32 to )" +
         fp8 + R"(
      %b = arith.bitcast %t : )" +
         fp8 + R"( to i8
      memref.store %b, %o[%tid] : memref<?xi8, #gpu.address_space<global>>
      gpu.return
    }
  }
}
)";
}

struct Compiled {
  bool ok = false;
  tessel::BackendArtifacts artifacts;
};

Compiled compile(const std::string &target, int block, int ldsElems) {
  mlir::DialectRegistry registry;
  tessel::registerTesselDialects(registry);
  tessel::registerBackendDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  Compiled result;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(
          kernelSource(target, block, ldsElems), &context);
  if (!module)
    return result;
  std::unique_ptr<tessel::TargetInfo> info = tessel::TargetInfo::create(target);
  if (!info)
    return result;
  mlir::FailureOr<tessel::BackendArtifacts> artifacts =
      tessel::compileSimtModule(*module, *info);
  if (mlir::failed(artifacts))
    return result;
  result.ok = true;
  result.artifacts = std::move(*artifacts);
  return result;
}

TEST(HsacoMetadata, ReadsResourcesOfACompiledKernel) {
  Compiled c = compile("gfx942", 128, 128);
  ASSERT_TRUE(c.ok);
  llvm::Expected<tessel::CodeObjectMetadata> md =
      tessel::readHsacoMetadata(c.artifacts.binary);
  ASSERT_TRUE(static_cast<bool>(md)) << llvm::toString(md.takeError());
  EXPECT_EQ(md->format, "hsaco");
  EXPECT_EQ(md->target, "amdgcn-amd-amdhsa--gfx942");
  ASSERT_EQ(md->kernels.size(), 1u);
  const tessel::KernelMetadata &k = md->kernels[0];
  EXPECT_EQ(k.name, "k");
  EXPECT_EQ(k.symbol, "k.kd");
  ASSERT_TRUE(k.vgprCount.has_value());
  EXPECT_GT(*k.vgprCount, 0u);
  ASSERT_TRUE(k.sgprCount.has_value());
  EXPECT_GT(*k.sgprCount, 0u);
  EXPECT_EQ(k.agprCount, 0u);
  EXPECT_EQ(k.vgprSpillCount, 0u);
  EXPECT_EQ(k.sgprSpillCount, 0u);
  EXPECT_EQ(k.wavefrontSize, 64u);
  // 128 f32 of LDS.
  EXPECT_EQ(k.groupSegmentBytes, 128u * 4u);
  EXPECT_EQ(k.privateSegmentBytes, 0u);
  EXPECT_EQ(k.maxFlatWorkgroupSize, 128u);
  EXPECT_EQ(k.reqdWorkgroupSize, (std::vector<uint64_t>{128, 1, 1}));
  // Two memrefs of five 8-byte parameters, then an i32.
  ASSERT_EQ(k.args.size(), 11u);
  EXPECT_EQ(k.kernargSegmentSize, 2u * 5u * 8u + 4u);
  EXPECT_EQ(k.args[0].kind, "global_buffer");
  EXPECT_EQ(k.args[0].addressSpace, "global");
  EXPECT_EQ(k.args[2].kind, "by_value");
  EXPECT_EQ(k.args[5].offset, 40u);
  EXPECT_EQ(k.args[10].offset, 80u);
  EXPECT_EQ(k.args[10].size, 4u);
}

TEST(HsacoMetadata, LdsFollowsTheDeclaredAttribution) {
  Compiled c = compile("gfx950", 256, 1024);
  ASSERT_TRUE(c.ok);
  llvm::Expected<tessel::CodeObjectMetadata> md =
      tessel::readHsacoMetadata(c.artifacts.binary);
  ASSERT_TRUE(static_cast<bool>(md)) << llvm::toString(md.takeError());
  EXPECT_EQ(md->target, "amdgcn-amd-amdhsa--gfx950");
  ASSERT_EQ(md->kernels.size(), 1u);
  EXPECT_EQ(md->kernels[0].groupSegmentBytes, 1024u * 4u);
  EXPECT_EQ(md->kernels[0].maxFlatWorkgroupSize, 256u);
}

TEST(HsacoMetadata, JsonCarriesTheResourceFields) {
  Compiled c = compile("gfx942", 64, 64);
  ASSERT_TRUE(c.ok);
  llvm::Expected<tessel::CodeObjectMetadata> md =
      tessel::readHsacoMetadata(c.artifacts.binary);
  ASSERT_TRUE(static_cast<bool>(md)) << llvm::toString(md.takeError());
  llvm::json::Value json = tessel::toJSON(*md);
  const llvm::json::Object *root = json.getAsObject();
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->getString("target"), "amdgcn-amd-amdhsa--gfx942");
  const llvm::json::Array *kernels = root->getArray("kernels");
  ASSERT_NE(kernels, nullptr);
  ASSERT_EQ(kernels->size(), 1u);
  const llvm::json::Object *k = (*kernels)[0].getAsObject();
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->getInteger("lds_bytes"), 256);
  EXPECT_EQ(k->getInteger("scratch_bytes"), 0);
  EXPECT_EQ(k->getInteger("wavefront_size"), 64);
  EXPECT_GT(k->getInteger("vgpr_count").value_or(0), 0);
  EXPECT_TRUE(k->getInteger("sgpr_spill_count").has_value());
  EXPECT_FALSE(k->get("registers")) << "PTX-only field on an hsaco";
}

TEST(HsacoMetadata, RejectsNonElfInput) {
  llvm::Expected<tessel::CodeObjectMetadata> md =
      tessel::readHsacoMetadata("this is not an ELF file");
  ASSERT_FALSE(static_cast<bool>(md));
  llvm::consumeError(md.takeError());
}

TEST(HsacoMetadata, RejectsTruncatedElf) {
  Compiled c = compile("gfx942", 64, 64);
  ASSERT_TRUE(c.ok);
  for (size_t len : {size_t(4), size_t(64), c.artifacts.binary.size() / 2}) {
    llvm::Expected<tessel::CodeObjectMetadata> md = tessel::readHsacoMetadata(
        llvm::StringRef(c.artifacts.binary).take_front(len));
    EXPECT_FALSE(static_cast<bool>(md)) << "length " << len;
    if (!md)
      llvm::consumeError(md.takeError());
  }
}

TEST(HsacoMetadata, RejectsElfOfAnotherMachine) {
  // This test program is a host ELF, not an AMDGPU one.
  auto self = llvm::MemoryBuffer::getFile("/proc/self/exe");
  ASSERT_TRUE(static_cast<bool>(self));
  llvm::Expected<tessel::CodeObjectMetadata> md =
      tessel::readHsacoMetadata((*self)->getBuffer());
  ASSERT_FALSE(static_cast<bool>(md));
  EXPECT_NE(llvm::toString(md.takeError()).find("not AMDGPU"),
            std::string::npos);
}

// Hand-written PTX: two parameters of 8 bytes, one of 4, a 2 KiB shared
// buffer used by the kernel and another one it does not use.
const char *kHandPtx = R"(
//
.version 8.4
.target sm_90
.address_size 64

.shared .align 16 .b8 used_buf[2048];
.shared .align 4 .b32 other_buf[16];

.visible .entry hand(
	.param .u64 .ptr .global .align 1 hand_param_0,
	.param .u64 hand_param_1,
	.param .u32 hand_param_2
)
.reqntid 256, 1, 1
{
	.reg .b64 %rd<3>;
	mov.u64 %rd1, used_buf;
	ret;
}
)";

TEST(PtxMetadata, ReadsEntryParametersAndSharedMemory) {
  llvm::Expected<tessel::CodeObjectMetadata> md =
      tessel::readPtxMetadata(kHandPtx);
  ASSERT_TRUE(static_cast<bool>(md)) << llvm::toString(md.takeError());
  EXPECT_EQ(md->format, "ptx");
  EXPECT_EQ(md->target, "sm_90");
  EXPECT_EQ(md->ptxVersion, "8.4");
  ASSERT_EQ(md->kernels.size(), 1u);
  const tessel::KernelMetadata &k = md->kernels[0];
  EXPECT_EQ(k.name, "hand");
  ASSERT_EQ(k.args.size(), 3u);
  EXPECT_EQ(k.args[0].size, 8u);
  EXPECT_EQ(k.args[1].offset, 8u);
  EXPECT_EQ(k.args[2].kind, "u32");
  EXPECT_EQ(k.args[2].offset, 16u);
  EXPECT_EQ(k.kernargSegmentSize, 20u);
  EXPECT_EQ(k.groupSegmentBytes, 2048u) << "only the buffer the body uses";
  EXPECT_EQ(k.reqdWorkgroupSize, (std::vector<uint64_t>{256, 1, 1}));
  EXPECT_EQ(k.maxFlatWorkgroupSize, 256u);
  EXPECT_EQ(k.wavefrontSize, 32u);
  EXPECT_FALSE(k.registerCount.has_value());
}

TEST(PtxMetadata, RejectsTextWithoutTarget) {
  llvm::Expected<tessel::CodeObjectMetadata> md =
      tessel::readPtxMetadata(".version 8.4\n.entry x() {}\n");
  ASSERT_FALSE(static_cast<bool>(md));
  llvm::consumeError(md.takeError());
}

TEST(PtxMetadata, CompiledKernelMatchesItsDeclaration) {
  Compiled c = compile("sm_90", 128, 64);
  ASSERT_TRUE(c.ok);
  EXPECT_EQ(c.artifacts.binary, c.artifacts.assembly) << "PTX is the object";
  llvm::Expected<tessel::CodeObjectMetadata> md =
      tessel::readPtxMetadata(c.artifacts.binary);
  ASSERT_TRUE(static_cast<bool>(md)) << llvm::toString(md.takeError());
  ASSERT_EQ(md->kernels.size(), 1u);
  EXPECT_EQ(md->kernels[0].groupSegmentBytes, 64u * 4u);
  EXPECT_EQ(md->kernels[0].args.size(), 11u);
  EXPECT_EQ(md->kernels[0].kernargSegmentSize, 84u);
  EXPECT_EQ(md->kernels[0].maxFlatWorkgroupSize, 128u);
  EXPECT_EQ(md->kernels[0].reqdWorkgroupSize,
            (std::vector<uint64_t>{128, 1, 1}));
}

TEST(PtxMetadata, PtxasReportsRegistersWhenInstalled) {
  std::string ptxas = tessel::findPtxas();
  if (ptxas.empty())
    GTEST_SKIP() << "ptxas is not installed";
  Compiled c = compile("sm_90", 128, 64);
  ASSERT_TRUE(c.ok);
  llvm::Expected<tessel::CodeObjectMetadata> md =
      tessel::readPtxMetadata(c.artifacts.binary, ptxas);
  ASSERT_TRUE(static_cast<bool>(md)) << llvm::toString(md.takeError());
  ASSERT_EQ(md->kernels.size(), 1u);
  ASSERT_TRUE(md->kernels[0].registerCount.has_value());
  EXPECT_GT(*md->kernels[0].registerCount, 0u);
  EXPECT_EQ(md->kernels[0].spillStoreBytes, 0u);
}

TEST(Backend, ConcurrentCompilationsEachGetTheirOwnObject) {
  Compiled a, b;
  std::thread ta([&] { a = compile("gfx942", 64, 32); });
  std::thread tb([&] { b = compile("gfx950", 128, 16); });
  ta.join();
  tb.join();
  ASSERT_TRUE(a.ok);
  ASSERT_TRUE(b.ok);
  llvm::Expected<tessel::CodeObjectMetadata> ma =
      tessel::readHsacoMetadata(a.artifacts.binary);
  llvm::Expected<tessel::CodeObjectMetadata> mb =
      tessel::readHsacoMetadata(b.artifacts.binary);
  ASSERT_TRUE(static_cast<bool>(ma)) << llvm::toString(ma.takeError());
  ASSERT_TRUE(static_cast<bool>(mb)) << llvm::toString(mb.takeError());
  EXPECT_EQ(ma->target, "amdgcn-amd-amdhsa--gfx942");
  EXPECT_EQ(mb->target, "amdgcn-amd-amdhsa--gfx950");
  EXPECT_EQ(ma->kernels[0].groupSegmentBytes, 32u * 4u);
  EXPECT_EQ(mb->kernels[0].groupSegmentBytes, 16u * 4u);
}

TEST(Backend, RejectsModuleWithoutGpuModule) {
  mlir::DialectRegistry registry;
  tessel::registerTesselDialects(registry);
  tessel::registerBackendDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::string diagnostics;
  context.getDiagEngine().registerHandler([&](mlir::Diagnostic &d) {
    diagnostics += d.str();
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>("module {}", &context);
  ASSERT_TRUE(module);
  std::unique_ptr<tessel::TargetInfo> info =
      tessel::TargetInfo::create("gfx942");
  ASSERT_TRUE(info);
  EXPECT_TRUE(mlir::failed(tessel::compileSimtModule(*module, *info)));
  EXPECT_NE(diagnostics.find("no gpu.module"), std::string::npos);
}

} // namespace
