//===- CodeObjectMetadata.cpp - Resource usage read back from code objects ===//

#include "tessel/Lowering/CodeObjectMetadata.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace llvm;

namespace tessel {
namespace {

Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// Looks up `key` in a msgpack map; null if absent.
msgpack::DocNode *lookup(msgpack::MapDocNode &map, StringRef key) {
  for (auto &[k, v] : map)
    if (k.getKind() == msgpack::Type::String && k.getString() == key)
      return &v;
  return nullptr;
}

std::optional<uint64_t> getUInt(msgpack::MapDocNode &map, StringRef key) {
  msgpack::DocNode *node = lookup(map, key);
  if (!node)
    return std::nullopt;
  if (node->getKind() == msgpack::Type::UInt)
    return node->getUInt();
  if (node->getKind() == msgpack::Type::Int && node->getInt() >= 0)
    return static_cast<uint64_t>(node->getInt());
  return std::nullopt;
}

std::string getString(msgpack::MapDocNode &map, StringRef key) {
  msgpack::DocNode *node = lookup(map, key);
  if (!node || node->getKind() != msgpack::Type::String)
    return "";
  return node->getString().str();
}

Expected<KernelMetadata> readKernel(msgpack::DocNode &node) {
  if (!node.isMap())
    return makeError("amdhsa.kernels entry is not a map");
  msgpack::MapDocNode &map = node.getMap();
  KernelMetadata k;
  k.name = getString(map, ".name");
  k.symbol = getString(map, ".symbol");
  k.vgprCount = getUInt(map, ".vgpr_count");
  k.sgprCount = getUInt(map, ".sgpr_count");
  k.agprCount = getUInt(map, ".agpr_count");
  k.vgprSpillCount = getUInt(map, ".vgpr_spill_count");
  k.sgprSpillCount = getUInt(map, ".sgpr_spill_count");
  k.groupSegmentBytes = getUInt(map, ".group_segment_fixed_size").value_or(0);
  k.privateSegmentBytes = getUInt(map, ".private_segment_fixed_size");
  k.wavefrontSize = getUInt(map, ".wavefront_size");
  k.maxFlatWorkgroupSize = getUInt(map, ".max_flat_workgroup_size");
  k.kernargSegmentSize = getUInt(map, ".kernarg_segment_size");
  if (msgpack::DocNode *reqd = lookup(map, ".reqd_workgroup_size");
      reqd && reqd->isArray())
    for (msgpack::DocNode &d : reqd->getArray())
      if (d.getKind() == msgpack::Type::UInt)
        k.reqdWorkgroupSize.push_back(d.getUInt());
  if (msgpack::DocNode *args = lookup(map, ".args"); args && args->isArray()) {
    for (msgpack::DocNode &a : args->getArray()) {
      if (!a.isMap())
        return makeError("kernel '" + k.name + "' has a malformed .args entry");
      KernelArgMetadata arg;
      arg.offset = getUInt(a.getMap(), ".offset").value_or(0);
      arg.size = getUInt(a.getMap(), ".size").value_or(0);
      arg.kind = getString(a.getMap(), ".value_kind");
      arg.addressSpace = getString(a.getMap(), ".address_space");
      k.args.push_back(std::move(arg));
    }
  }
  if (k.name.empty())
    return makeError("amdhsa.kernels entry has no .name");
  return k;
}

} // namespace

Expected<CodeObjectMetadata> readHsacoMetadata(StringRef elf) {
  Expected<object::ELF64LEFile> fileOrErr = object::ELF64LEFile::create(elf);
  if (!fileOrErr)
    return makeError("not a 64-bit little-endian ELF: " +
                     toString(fileOrErr.takeError()));
  const object::ELF64LEFile &file = *fileOrErr;
  if (file.getHeader().e_machine != ELF::EM_AMDGPU)
    return makeError("ELF machine is not AMDGPU");
  auto sections = file.sections();
  if (!sections)
    return sections.takeError();

  std::string blob;
  bool found = false;
  for (const object::ELF64LE::Shdr &section : *sections) {
    if (section.sh_type != ELF::SHT_NOTE)
      continue;
    Error err = Error::success();
    for (const object::ELF64LE::Note &note : file.notes(section, err)) {
      if (note.getName() == "AMDGPU" &&
          note.getType() == ELF::NT_AMDGPU_METADATA) {
        blob = note.getDescAsStringRef(section.sh_addralign).str();
        found = true;
      }
    }
    if (err)
      return err;
  }
  if (!found)
    return makeError("the ELF has no NT_AMDGPU_METADATA note");

  msgpack::Document doc;
  if (!doc.readFromBlob(blob, /*Multi=*/false) || !doc.getRoot().isMap())
    return makeError("the AMDGPU metadata note is not a msgpack map");
  msgpack::MapDocNode &root = doc.getRoot().getMap();
  CodeObjectMetadata result;
  result.format = "hsaco";
  result.target = getString(root, "amdhsa.target");
  msgpack::DocNode *kernels = lookup(root, "amdhsa.kernels");
  if (!kernels || !kernels->isArray())
    return makeError("the AMDGPU metadata has no amdhsa.kernels list");
  for (msgpack::DocNode &node : kernels->getArray()) {
    Expected<KernelMetadata> k = readKernel(node);
    if (!k)
      return k.takeError();
    result.kernels.push_back(std::move(*k));
  }
  return result;
}

//===----------------------------------------------------------------------===//
// PTX
//===----------------------------------------------------------------------===//

namespace {

/// Size in bytes of a PTX fundamental type such as ".u64" (0 if unknown).
uint64_t ptxTypeSize(StringRef type) {
  type.consume_front(".");
  if (type == "pred")
    return 1;
  if (type.size() < 2)
    return 0;
  uint64_t bits = 0;
  if (type.drop_front().getAsInteger(10, bits))
    return 0;
  return bits / 8;
}

/// Parses a `.param` declaration (without the trailing comma) of an .entry.
KernelArgMetadata parseParam(StringRef decl, uint64_t &offset) {
  SmallVector<StringRef> tokens;
  decl.split(tokens, ' ', -1, /*KeepEmpty=*/false);
  KernelArgMetadata arg;
  uint64_t align = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    StringRef t = tokens[i];
    if (t == ".param" || t == ".ptr" || t == ".global" || t == ".shared" ||
        t == ".const" || t == ".local")
      continue;
    if (t == ".align" && i + 1 < tokens.size()) {
      tokens[++i].getAsInteger(10, align);
      continue;
    }
    if (t.starts_with(".") && arg.kind.empty()) {
      arg.kind = t.drop_front().str();
      arg.size = ptxTypeSize(t);
      continue;
    }
    // The name; an array suffix gives the element count.
    size_t open = t.find('[');
    if (open != StringRef::npos) {
      uint64_t count = 0;
      if (!t.substr(open + 1)
               .take_until([](char c) { return c == ']'; })
               .getAsInteger(10, count))
        arg.size *= count;
    }
  }
  if (align == 0)
    align = std::max<uint64_t>(arg.size, 1);
  offset = alignTo(offset, align);
  arg.offset = offset;
  offset += arg.size;
  return arg;
}

bool mentions(StringRef body, StringRef symbol) {
  size_t pos = 0;
  auto isIdent = [](char c) {
    return isAlnum(c) || c == '_' || c == '$' || c == '.';
  };
  while ((pos = body.find(symbol, pos)) != StringRef::npos) {
    bool startOk = pos == 0 || !isIdent(body[pos - 1]);
    size_t end = pos + symbol.size();
    bool endOk = end >= body.size() || !isIdent(body[end]);
    if (startOk && endOk)
      return true;
    pos = end;
  }
  return false;
}

/// Reads `.shared [.align A] .bN name[count];` declarations.
void collectShared(StringRef text, std::map<std::string, uint64_t> &shared) {
  Regex decl(
      "\\.shared[ \t]+(\\.align[ \t]+[0-9]+[ \t]+)?\\.([a-z]+[0-9]+)[ \t]+"
      "([A-Za-z_$][A-Za-z0-9_$]*)(\\[([0-9]*)\\])?");
  SmallVector<StringRef> lines;
  text.split(lines, '\n');
  for (StringRef line : lines) {
    SmallVector<StringRef> m;
    if (!decl.match(line, &m))
      continue;
    uint64_t elem = ptxTypeSize(m[2]);
    uint64_t count = 1;
    if (!m[4].empty() && m[5].getAsInteger(10, count))
      count = 0; // `name[]`: dynamic shared memory, sized at launch.
    shared[m[3].str()] = elem * count;
  }
}

} // namespace

Expected<CodeObjectMetadata> readPtxMetadata(StringRef ptx,
                                             StringRef ptxasPath) {
  CodeObjectMetadata result;
  result.format = "ptx";
  Regex version("^[ \t]*\\.version[ \t]+([0-9.]+)");
  Regex target("^[ \t]*\\.target[ \t]+([A-Za-z0-9_]+)");
  Regex entry("\\.entry[ \t]+([A-Za-z_$][A-Za-z0-9_$]*)");
  Regex reqntid("\\.reqntid[ \t]+([0-9]+)(,[ \t]*([0-9]+))?(,[ \t]*([0-9]+))?");
  Regex maxntid("\\.maxntid[ \t]+([0-9]+)(,[ \t]*([0-9]+))?(,[ \t]*([0-9]+))?");

  std::map<std::string, uint64_t> shared;
  collectShared(ptx, shared);

  SmallVector<StringRef> m;
  SmallVector<StringRef> lines;
  ptx.split(lines, '\n');
  for (StringRef line : lines) {
    if (result.ptxVersion.empty() && version.match(line, &m))
      result.ptxVersion = m[1].str();
    if (result.target.empty() && target.match(line, &m))
      result.target = m[1].str();
  }
  if (result.target.empty())
    return makeError("not PTX: no .target directive");

  size_t pos = 0;
  while (true) {
    size_t at = ptx.find(".entry", pos);
    if (at == StringRef::npos)
      break;
    StringRef rest = ptx.substr(at);
    if (!entry.match(rest, &m))
      return makeError("malformed .entry directive");
    KernelMetadata k;
    k.name = m[1].str();
    size_t open = rest.find('(');
    size_t close = rest.find(')');
    size_t brace = rest.find('{');
    if (brace == StringRef::npos)
      return makeError("kernel '" + k.name + "' has no body");
    uint64_t offset = 0;
    if (open != StringRef::npos && close != StringRef::npos && open < brace &&
        close < brace) {
      SmallVector<StringRef> params;
      rest.slice(open + 1, close).split(params, ',', -1, false);
      for (StringRef p : params) {
        p = p.trim();
        if (!p.empty())
          k.args.push_back(parseParam(p, offset));
      }
    }
    k.kernargSegmentSize = offset;
    StringRef directives =
        rest.slice(close == StringRef::npos ? 0 : close, brace);
    Regex *ntid = reqntid.match(directives, &m)   ? &reqntid
                  : maxntid.match(directives, &m) ? &maxntid
                                                  : nullptr;
    if (ntid) {
      uint64_t total = 1;
      for (int i : {1, 3, 5}) {
        uint64_t d = 1;
        if (!m[i].empty())
          m[i].getAsInteger(10, d);
        total *= d;
        if (ntid == &reqntid)
          k.reqdWorkgroupSize.push_back(d);
      }
      k.maxFlatWorkgroupSize = total;
    }
    // The body runs to the matching brace.
    int depth = 0;
    size_t end = brace;
    for (; end < rest.size(); ++end) {
      if (rest[end] == '{')
        ++depth;
      else if (rest[end] == '}' && --depth == 0)
        break;
    }
    StringRef body = rest.slice(brace, end);
    for (const auto &[symbol, bytes] : shared)
      if (mentions(body, symbol))
        k.groupSegmentBytes += bytes;
    k.wavefrontSize = 32;
    result.kernels.push_back(std::move(k));
    pos = at + (end == StringRef::npos ? rest.size() : end);
  }

  if (ptxasPath.empty())
    return result;

  // ptxas -v reports registers and spills per entry on stderr.
  SmallString<128> ptxPath, logPath;
  int fd;
  if (std::error_code ec =
          sys::fs::createTemporaryFile("tessel", "ptx", fd, ptxPath))
    return makeError("cannot create a temporary file: " + ec.message());
  FileRemover ptxRemover(ptxPath);
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  if (std::error_code ec =
          sys::fs::createTemporaryFile("tessel", "log", logPath))
    return makeError("cannot create a temporary file: " + ec.message());
  FileRemover logRemover(logPath);
  std::string arch = "--gpu-name=" + result.target;
  StringRef args[] = {ptxasPath, "-v", arch, "-o", "/dev/null", ptxPath};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logPath),
                                          StringRef(logPath)};
  std::string execError;
  int rc = sys::ExecuteAndWait(ptxasPath, args, std::nullopt, redirects, 60, 0,
                               &execError);
  auto log = MemoryBuffer::getFile(logPath);
  std::string logText = log ? (*log)->getBuffer().str() : "";
  if (rc != 0)
    return makeError("ptxas failed" +
                     (execError.empty() ? "" : ": " + execError) + "\n" +
                     logText);

  Regex compiling("Compiling entry function '([^']+)'");
  Regex properties("Function properties for ([A-Za-z0-9_$]+)");
  Regex used("Used ([0-9]+) registers");
  Regex spills("([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, "
               "([0-9]+) bytes spill loads");
  KernelMetadata *current = nullptr;
  auto find = [&](StringRef name) -> KernelMetadata * {
    for (KernelMetadata &k : result.kernels)
      if (k.name == name)
        return &k;
    return nullptr;
  };
  SmallVector<StringRef> logLines;
  StringRef(logText).split(logLines, '\n');
  for (StringRef line : logLines) {
    if (compiling.match(line, &m) || properties.match(line, &m)) {
      current = find(m[1]);
      continue;
    }
    if (!current)
      continue;
    uint64_t a = 0, b = 0, c = 0;
    if (used.match(line, &m) && !m[1].getAsInteger(10, a))
      current->registerCount = a;
    if (spills.match(line, &m) && !m[1].getAsInteger(10, a) &&
        !m[2].getAsInteger(10, b) && !m[3].getAsInteger(10, c)) {
      current->privateSegmentBytes = a;
      current->spillStoreBytes = b;
      current->spillLoadBytes = c;
    }
  }
  return result;
}

std::string findPtxas() {
  if (ErrorOr<std::string> p = sys::findProgramByName("ptxas"))
    return *p;
  if (ErrorOr<std::string> p =
          sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"}))
    return *p;
  return "";
}

json::Value toJSON(const CodeObjectMetadata &metadata) {
  json::Array kernels;
  for (const KernelMetadata &k : metadata.kernels) {
    json::Object o;
    o["name"] = k.name;
    if (!k.symbol.empty())
      o["symbol"] = k.symbol;
    auto put = [&](StringRef key, const std::optional<uint64_t> &v) {
      if (v)
        o[key] = static_cast<int64_t>(*v);
    };
    put("vgpr_count", k.vgprCount);
    put("sgpr_count", k.sgprCount);
    put("agpr_count", k.agprCount);
    put("vgpr_spill_count", k.vgprSpillCount);
    put("sgpr_spill_count", k.sgprSpillCount);
    put("registers", k.registerCount);
    put("spill_store_bytes", k.spillStoreBytes);
    put("spill_load_bytes", k.spillLoadBytes);
    o["lds_bytes"] = static_cast<int64_t>(k.groupSegmentBytes);
    put("scratch_bytes", k.privateSegmentBytes);
    put("wavefront_size", k.wavefrontSize);
    put("max_flat_workgroup_size", k.maxFlatWorkgroupSize);
    if (!k.reqdWorkgroupSize.empty()) {
      json::Array dims;
      for (uint64_t d : k.reqdWorkgroupSize)
        dims.push_back(static_cast<int64_t>(d));
      o["reqd_workgroup_size"] = std::move(dims);
    }
    put("kernarg_segment_size", k.kernargSegmentSize);
    json::Array args;
    for (const KernelArgMetadata &a : k.args) {
      json::Object ao{{"offset", static_cast<int64_t>(a.offset)},
                      {"size", static_cast<int64_t>(a.size)},
                      {"kind", a.kind}};
      if (!a.addressSpace.empty())
        ao["address_space"] = a.addressSpace;
      args.push_back(std::move(ao));
    }
    o["args"] = std::move(args);
    kernels.push_back(std::move(o));
  }
  json::Object root{{"format", metadata.format},
                    {"target", metadata.target},
                    {"kernels", std::move(kernels)}};
  if (!metadata.ptxVersion.empty())
    root["ptx_version"] = metadata.ptxVersion;
  return root;
}

} // namespace tessel
