//===- Bundle.cpp - Bundle reader and writer ------------------------------===//
//
// See tessel/bundle.h for the format. The reader treats the file as hostile:
// every offset is checked against the file size before it is used.
//
//===----------------------------------------------------------------------===//

#include "tessel/bundle.h"

#include "Json.h"
#include "Support.h"

#include <cstring>
#include <set>

namespace tessel {

const char *argKindName(ArgKind k) {
  switch (k) {
  case ArgKind::Ptr:
    return "ptr";
  case ArgKind::I32:
    return "i32";
  case ArgKind::I64:
    return "i64";
  case ArgKind::F32:
    return "f32";
  }
  return "?";
}

const char *codeFormatName(CodeFormat f) {
  switch (f) {
  case CodeFormat::Hsaco:
    return "hsaco";
  case CodeFormat::Ptx:
    return "ptx";
  case CodeFormat::Simt:
    return "simt";
  }
  return "?";
}

namespace {
// Every code-object target, once.
constexpr CodeTarget kCodeTargets[] = {
    {"gfx942", CodeFormat::Hsaco, "gfx942", 1, TESSEL_DTYPE_FP8_E4M3FNUZ},
    {"gfx950", CodeFormat::Hsaco, "gfx950", 1, TESSEL_DTYPE_FP8_E4M3FN},
    {"sm_90a", CodeFormat::Ptx, "sm_90", 2, TESSEL_DTYPE_FP8_E4M3FN},
    {"sm_90", CodeFormat::Ptx, "sm_90", 1, TESSEL_DTYPE_FP8_E4M3FN},
};
} // namespace

const CodeTarget *findCodeTarget(const std::string &name) {
  for (const CodeTarget &t : kCodeTargets)
    if (name == t.name)
      return &t;
  return nullptr;
}

int codeObjectRank(const BundleEntry &e, const std::string &deviceArch,
                   CodeFormat deviceFormat) {
  const CodeTarget *t = findCodeTarget(e.target);
  if (!t || e.format != deviceFormat || deviceArch != t->deviceArch)
    return -1;
  return t->rank;
}

const CodeTarget *preferredCodeTarget(const std::string &deviceArch) {
  const CodeTarget *best = nullptr;
  for (const CodeTarget &t : kCodeTargets)
    if (deviceArch == t.deviceArch && (!best || t.rank > best->rank))
      best = &t;
  return best;
}

bool BundleEntry::knob(const std::string &n, int64_t &value) const {
  for (const auto &k : knobs)
    if (k.first == n) {
      value = k.second;
      return true;
    }
  return false;
}

namespace {

const char kMagic[8] = {'T', 'S', 'L', 'B', 'N', 'D', 'L', '\0'};

uint32_t rd32(const unsigned char *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
         uint32_t(p[3]) << 24;
}
uint64_t rd64(const unsigned char *p) {
  return uint64_t(rd32(p)) | uint64_t(rd32(p + 4)) << 32;
}
void wr32(std::string &s, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    s[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
void wr64(std::string &s, size_t at, uint64_t v) {
  wr32(s, at, static_cast<uint32_t>(v));
  wr32(s, at + 4, static_cast<uint32_t>(v >> 32));
}

bool isIdentifier(const std::string &s) {
  if (s.empty() || s.size() > 256)
    return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    bool digit = c >= '0' && c <= '9';
    if (!(alpha || (i > 0 && (digit || c == '.' || c == '$' || c == '-'))))
      return false;
  }
  return true;
}

const Json &emptyArray() {
  static const Json a = Json::array();
  return a;
}

bool fail(std::string &error, std::string msg) {
  error = std::move(msg);
  return false;
}

// The manifest rules shared by the reader and the writer.
bool verifyEntry(const BundleEntry &e, std::string &error) {
  const char *n = e.name.c_str();
  if (!isIdentifier(e.name))
    return fail(error, format("code object name '%s' is not an identifier", n));
  if (!isIdentifier(e.kernel))
    return fail(error, format("code object '%s': kernel '%s' is not an "
                              "identifier",
                              n, e.kernel.c_str()));
  const CodeTarget *t = findCodeTarget(e.target);
  if (!t)
    return fail(error, format("code object '%s': unknown target '%s'", n,
                              e.target.c_str()));
  bool simtOk = e.format == CodeFormat::Simt && t->format == CodeFormat::Hsaco;
  if (e.format != t->format && !simtOk)
    return fail(error,
                format("code object '%s': %s code cannot target %s (%s "
                       "needs %s%s)",
                       n, codeFormatName(e.format), e.target.c_str(),
                       e.target.c_str(), codeFormatName(t->format),
                       t->format == CodeFormat::Hsaco ? " or simt" : ""));
  if (e.code.empty())
    return fail(error, format("code object '%s': empty code", n));
  if (e.format == CodeFormat::Hsaco &&
      (e.code.size() < 4 || memcmp(e.code.data(),
                                   "\x7f"
                                   "ELF",
                                   4) != 0))
    return fail(error, format("code object '%s': hsaco blob is not an ELF "
                              "file",
                              n));
  if (e.format != CodeFormat::Hsaco &&
      memchr(e.code.data(), '\0', e.code.size()))
    return fail(error, format("code object '%s': %s blob contains a NUL byte",
                              n, codeFormatName(e.format)));
  uint64_t threads = 1;
  for (int i = 0; i < 3; ++i) {
    if (e.block[i] < 1 || e.block[i] > 1024)
      return fail(error, format("code object '%s': block[%d] = %u is out of "
                                "[1, 1024]",
                                n, i, e.block[i]));
    threads *= e.block[i];
  }
  if (threads > 1024)
    return fail(error, format("code object '%s': block has %llu threads "
                              "(max 1024)",
                              n, (unsigned long long)threads));
  if (e.args.size() > 256)
    return fail(error, format("code object '%s': too many arguments", n));
  for (const auto &a : e.args) {
    uint32_t want = (a.kind == ArgKind::I32 || a.kind == ArgKind::F32) ? 4 : 8;
    if (a.size != want)
      return fail(error,
                  format("code object '%s': argument '%s' of kind %s "
                         "has size %u, expected %u",
                         n, a.name.c_str(), argKindName(a.kind), a.size, want));
  }
  std::set<std::string> knobNames;
  for (const auto &k : e.knobs)
    if (!knobNames.insert(k.first).second)
      return fail(error, format("code object '%s': duplicate knob '%s'", n,
                                k.first.c_str()));
  return true;
}

bool verifyBundle(const Bundle &b, std::string &error) {
  std::set<std::string> names;
  for (const auto &e : b.entries) {
    if (!verifyEntry(e, error))
      return false;
    if (!names.insert(e.name).second)
      return fail(error,
                  format("duplicate code object name '%s'", e.name.c_str()));
  }
  return true;
}

// Converts one manifest entry. In description mode the code comes from the
// "file" member; otherwise from blobs[blob].
bool entryFromJson(const Json &j, size_t idx, bool description,
                   const std::string &baseDir,
                   const std::vector<std::string> *blobs,
                   std::vector<bool> *blobUsed, BundleEntry &e,
                   std::string &error) {
  std::string where = format("code_objects[%zu]", idx);
  if (!j.isObject())
    return fail(error, where + " is not an object");
  auto str = [&](const char *key, std::string &out, bool required) {
    const Json *v = j.get(key);
    if (!v) {
      if (required)
        return fail(error, where + ": missing \"" + key + "\"");
      return true;
    }
    if (!v->isString())
      return fail(error, where + ": \"" + key + "\" must be a string");
    out = v->asString();
    return true;
  };
  if (!str("name", e.name, true) || !str("kernel", e.kernel, true) ||
      !str("target", e.target, true) ||
      !str("source_hash", e.sourceHash, false))
    return false;
  where += " ('" + e.name + "')";
  // Resources are an opaque string; a description may give a JSON object.
  if (const Json *r = j.get("resources")) {
    if (r->isString())
      e.resources = r->asString();
    else if (r->isObject() || r->isArray())
      e.resources = r->dump();
    else
      return fail(error, where + ": \"resources\" must be a string or an "
                                 "object");
  }
  std::string fmt;
  if (!str("format", fmt, false))
    return false;
  bool emu = false;
  if (e.target == "emu-gfx942" || e.target == "emu-gfx950") {
    e.target = e.target.substr(4);
    emu = true;
  }
  if (fmt.empty()) {
    const CodeTarget *t = findCodeTarget(e.target);
    fmt = emu ? "simt" : codeFormatName(t ? t->format : CodeFormat::Hsaco);
  }
  if (fmt == "hsaco")
    e.format = CodeFormat::Hsaco;
  else if (fmt == "ptx")
    e.format = CodeFormat::Ptx;
  else if (fmt == "simt")
    e.format = CodeFormat::Simt;
  else
    return fail(error, where + ": unknown format '" + fmt + "'");
  if (emu && e.format != CodeFormat::Simt)
    return fail(error, where + ": emu targets need format simt");

  if (const Json *k = j.get("knobs")) {
    if (!k->isObject())
      return fail(error, where + ": \"knobs\" must be an object");
    for (const auto &m : k->members()) {
      if (!m.second.isInteger())
        return fail(error,
                    where + ": knob '" + m.first + "' must be an integer");
      e.knobs.emplace_back(m.first, m.second.asInt());
    }
  }
  // A description may give the kernel's signature instead of the flattened
  // args: "memref NAME" expands to the five parameters of lowering/SIMT_IR.md
  // (NAME.allocated ptr, NAME.aligned ptr, NAME.offset/size/stride i64).
  const Json *sig = description ? j.get("signature") : nullptr;
  if (sig) {
    if (j.get("args"))
      return fail(error, where + ": give \"args\" or \"signature\", not both");
    if (!sig->isArray())
      return fail(error, where + ": \"signature\" must be an array");
    for (size_t i = 0; i < sig->items().size(); ++i) {
      const Json &p = sig->items()[i];
      std::string text = p.isString() ? p.asString() : "";
      size_t sp = text.find(' ');
      std::string kind = text.substr(0, sp);
      std::string name = sp == std::string::npos ? "" : text.substr(sp + 1);
      if (name.empty())
        return fail(error, format("%s: signature[%zu] must be \"KIND NAME\"",
                                  where.c_str(), i));
      if (kind == "memref") {
        const char *parts[5] = {"allocated", "aligned", "offset", "size",
                                "stride"};
        for (int f = 0; f < 5; ++f)
          e.args.push_back(
              {name + "." + parts[f], f < 2 ? ArgKind::Ptr : ArgKind::I64, 8});
      } else if (kind == "ptr") {
        e.args.push_back({name, ArgKind::Ptr, 8});
      } else if (kind == "i32") {
        e.args.push_back({name, ArgKind::I32, 4});
      } else if (kind == "i64") {
        e.args.push_back({name, ArgKind::I64, 8});
      } else if (kind == "f32") {
        e.args.push_back({name, ArgKind::F32, 4});
      } else {
        return fail(error, format("%s: signature[%zu] has unknown kind '%s'",
                                  where.c_str(), i, kind.c_str()));
      }
    }
  }
  const Json *args = j.get("args");
  if (!sig && (!args || !args->isArray()))
    return fail(error, where + ": \"args\" must be an array");
  if (!args)
    args = &emptyArray();
  for (size_t i = 0; i < args->items().size(); ++i) {
    const Json &a = args->items()[i];
    const Json *an = a.get("name");
    const Json *ak = a.get("kind");
    const Json *as = a.get("size");
    if (!an || !an->isString() || !ak || !ak->isString())
      return fail(error, format("%s: args[%zu] needs string \"name\" and "
                                "\"kind\"",
                                where.c_str(), i));
    BundleArg arg;
    arg.name = an->asString();
    const std::string &kind = ak->asString();
    if (kind == "ptr")
      arg.kind = ArgKind::Ptr;
    else if (kind == "i32")
      arg.kind = ArgKind::I32;
    else if (kind == "i64")
      arg.kind = ArgKind::I64;
    else if (kind == "f32")
      arg.kind = ArgKind::F32;
    else
      return fail(error, format("%s: args[%zu] has unknown kind '%s'",
                                where.c_str(), i, kind.c_str()));
    arg.size = (arg.kind == ArgKind::I32 || arg.kind == ArgKind::F32) ? 4 : 8;
    if (as) {
      if (!as->isInteger() || as->asInt() < 0 || as->asInt() > 64)
        return fail(error, format("%s: args[%zu] has a bad \"size\"",
                                  where.c_str(), i));
      arg.size = static_cast<uint32_t>(as->asInt());
    }
    e.args.push_back(arg);
  }
  const Json *block = j.get("block");
  if (!block || !block->isArray() || block->items().empty() ||
      block->items().size() > 3)
    return fail(error, where + ": \"block\" must be an array of 1 to 3 sizes");
  for (size_t i = 0; i < block->items().size(); ++i) {
    const Json &v = block->items()[i];
    if (!v.isInteger() || v.asInt() < 1 || v.asInt() > 1024)
      return fail(error, format("%s: block[%zu] must be an integer in [1, "
                                "1024]",
                                where.c_str(), i));
    e.block[i] = static_cast<uint32_t>(v.asInt());
  }

  if (description) {
    std::string file;
    if (!str("file", file, true))
      return false;
    std::string path = (!file.empty() && file[0] == '/') || baseDir.empty()
                           ? file
                           : baseDir + "/" + file;
    if (Status s = readFile(path, e.code))
      return fail(error, where + ": " + s.message());
  } else {
    const Json *bi = j.get("blob");
    if (!bi || !bi->isInteger())
      return fail(error, where + ": \"blob\" must be an integer");
    int64_t b = bi->asInt();
    if (b < 0 || static_cast<uint64_t>(b) >= blobs->size())
      return fail(error, format("%s: blob %lld is out of range (%zu blobs)",
                                where.c_str(), (long long)b, blobs->size()));
    if ((*blobUsed)[b])
      return fail(error, format("%s: blob %lld is used twice", where.c_str(),
                                (long long)b));
    (*blobUsed)[b] = true;
    e.code = (*blobs)[b];
  }
  return true;
}

bool bundleFromJson(const std::string &text, bool description,
                    const std::string &baseDir,
                    const std::vector<std::string> *blobs, Bundle &out,
                    std::string &error) {
  Json root;
  std::string perr;
  if (!Json::parse(text, root, perr))
    return fail(error, "manifest is not valid JSON: " + perr);
  if (!root.isObject())
    return fail(error, "manifest is not a JSON object");
  const Json *ver = root.get("tessel_bundle");
  if (!ver || !ver->isInteger() || ver->asInt() != kBundleVersion)
    return fail(
        error, format("manifest \"tessel_bundle\" must be %u", kBundleVersion));
  if (const Json *cv = root.get("compiler_version")) {
    if (!cv->isString())
      return fail(error, "manifest \"compiler_version\" must be a string");
    out.compilerVersion = cv->asString();
  }
  const Json *cos = root.get("code_objects");
  if (!cos || !cos->isArray())
    return fail(error, "manifest \"code_objects\" must be an array");
  std::vector<bool> used(blobs ? blobs->size() : 0, false);
  out.entries.clear();
  for (size_t i = 0; i < cos->items().size(); ++i) {
    BundleEntry e;
    if (!entryFromJson(cos->items()[i], i, description, baseDir, blobs, &used,
                       e, error))
      return false;
    out.entries.push_back(std::move(e));
  }
  for (size_t i = 0; i < used.size(); ++i)
    if (!used[i])
      return fail(error, format("blob %zu is not used by any code object", i));
  return verifyBundle(out, error);
}

Json entryToJson(const BundleEntry &e, size_t blob) {
  Json j = Json::object();
  j.set("name", Json::string(e.name));
  j.set("kernel", Json::string(e.kernel));
  j.set("target", Json::string(e.target));
  j.set("format", Json::string(codeFormatName(e.format)));
  j.set("blob", Json::integer(static_cast<int64_t>(blob)));
  Json knobs = Json::object();
  for (const auto &k : e.knobs)
    knobs.set(k.first, Json::integer(k.second));
  j.set("knobs", knobs);
  Json args = Json::array();
  for (const auto &a : e.args) {
    Json aj = Json::object();
    aj.set("name", Json::string(a.name));
    aj.set("kind", Json::string(argKindName(a.kind)));
    aj.set("size", Json::integer(a.size));
    args.push(aj);
  }
  j.set("args", args);
  Json block = Json::array();
  for (uint32_t b : e.block)
    block.push(Json::integer(b));
  j.set("block", block);
  j.set("resources", Json::string(e.resources));
  j.set("source_hash", Json::string(e.sourceHash));
  return j;
}

} // namespace

std::string bundleManifestJson(const Bundle &b) {
  Json root = Json::object();
  root.set("tessel_bundle", Json::integer(kBundleVersion));
  root.set("compiler_version", Json::string(b.compilerVersion));
  Json cos = Json::array();
  for (size_t i = 0; i < b.entries.size(); ++i)
    cos.push(entryToJson(b.entries[i], i));
  root.set("code_objects", cos);
  return root.dump();
}

bool serializeBundle(const Bundle &b, std::string &out, std::string &error) {
  if (!verifyBundle(b, error))
    return false;
  std::string manifest = bundleManifestJson(b);
  size_t n = b.entries.size();
  size_t tableEnd = kBundleHeaderSize + 24 * n;
  size_t pos = tableEnd + manifest.size();
  std::vector<size_t> offs(n);
  for (size_t i = 0; i < n; ++i) {
    pos = (pos + 15) & ~size_t(15);
    offs[i] = pos;
    pos += b.entries[i].code.size();
  }
  out.assign(pos, '\0');
  memcpy(&out[0], kMagic, 8);
  wr32(out, 8, kBundleVersion);
  wr32(out, 12, kBundleHeaderSize);
  wr64(out, 16, pos);
  wr32(out, 24, static_cast<uint32_t>(n));
  wr32(out, 28, 0);
  wr64(out, 32, tableEnd);
  wr64(out, 40, manifest.size());
  wr64(out, 48, fnv1a64(manifest.data(), manifest.size()));
  for (size_t i = 0; i < n; ++i) {
    const std::string &c = b.entries[i].code;
    size_t t = kBundleHeaderSize + 24 * i;
    wr64(out, t, offs[i]);
    wr64(out, t + 8, c.size());
    wr64(out, t + 16, fnv1a64(c.data(), c.size()));
    memcpy(&out[offs[i]], c.data(), c.size());
  }
  memcpy(&out[tableEnd], manifest.data(), manifest.size());
  uint64_t h = fnv1a64(out.data(), 56);
  h = fnv1a64(out.data() + kBundleHeaderSize, 24 * n, h);
  wr64(out, 56, h);
  return true;
}

bool parseBundle(const void *data, size_t size, Bundle &out,
                 std::string &error) {
  const unsigned char *p = static_cast<const unsigned char *>(data);
  if (!p || size < kBundleHeaderSize)
    return fail(error, format("not a Tessel bundle: %zu bytes is shorter than "
                              "the %zu-byte header",
                              size, kBundleHeaderSize));
  if (memcmp(p, kMagic, 8) != 0)
    return fail(error, "not a Tessel bundle: bad magic");
  uint32_t version = rd32(p + 8);
  if (version != kBundleVersion)
    return fail(error, format("unsupported bundle version %u (this runtime "
                              "reads version %u)",
                              version, kBundleVersion));
  if (rd32(p + 12) != kBundleHeaderSize)
    return fail(error, "bad bundle header size");
  uint64_t fileSize = rd64(p + 16);
  if (fileSize != size)
    return fail(error, format("bundle is truncated or has trailing bytes: "
                              "header says %llu bytes, file has %zu",
                              (unsigned long long)fileSize, size));
  uint64_t n = rd32(p + 24);
  if (n > (size - kBundleHeaderSize) / 24)
    return fail(error, format("bundle blob table (%llu entries) does not fit "
                              "in the file",
                              (unsigned long long)n));
  uint64_t tableEnd = kBundleHeaderSize + 24 * n;
  uint64_t h = fnv1a64(p, 56);
  h = fnv1a64(p + kBundleHeaderSize, 24 * n, h);
  if (h != rd64(p + 56))
    return fail(error, "bundle header checksum mismatch (corrupt header or "
                       "blob table)");
  if (rd32(p + 28) != 0)
    return fail(error, "bundle has unknown flags");
  uint64_t mOff = rd64(p + 32), mSize = rd64(p + 40);
  if (mOff < tableEnd || mOff > size || mSize > size - mOff)
    return fail(error, "bundle manifest lies outside the file");
  if (fnv1a64(p + mOff, mSize) != rd64(p + 48))
    return fail(error, "bundle manifest checksum mismatch");
  std::vector<std::string> blobs(n);
  // Regions [start, end) that must not overlap: the table+manifest, blobs.
  std::vector<std::pair<uint64_t, uint64_t>> regions;
  regions.emplace_back(0, mOff + mSize);
  for (uint64_t i = 0; i < n; ++i) {
    const unsigned char *t = p + kBundleHeaderSize + 24 * i;
    uint64_t off = rd64(t), sz = rd64(t + 8);
    if (off > size || sz > size - off)
      return fail(error, format("bundle blob %llu lies outside the file",
                                (unsigned long long)i));
    if (fnv1a64(p + off, sz) != rd64(t + 16))
      return fail(error, format("bundle blob %llu checksum mismatch",
                                (unsigned long long)i));
    for (const auto &r : regions)
      if (sz && off < r.second && r.first < off + sz)
        return fail(error, format("bundle blob %llu overlaps another region",
                                  (unsigned long long)i));
    regions.emplace_back(off, off + sz);
    blobs[i].assign(reinterpret_cast<const char *>(p + off), sz);
  }
  std::string manifest(reinterpret_cast<const char *>(p + mOff), mSize);
  Bundle b;
  if (!bundleFromJson(manifest, false, "", &blobs, b, error)) {
    error = "bundle manifest: " + error;
    return false;
  }
  out = std::move(b);
  return true;
}

bool readBundleFile(const std::string &path, Bundle &out, std::string &error) {
  std::string bytes;
  if (Status s = readFile(path, bytes))
    return fail(error, s.message());
  if (!parseBundle(bytes.data(), bytes.size(), out, error)) {
    error = "bundle '" + path + "': " + error;
    return false;
  }
  return true;
}

bool bundleFromDescription(const std::string &json, const std::string &baseDir,
                           Bundle &out, std::string &error) {
  return bundleFromJson(json, true, baseDir, nullptr, out, error);
}

bool bundleEntryFromManifest(const std::string &entryJson, std::string code,
                             BundleEntry &out, std::string &error) {
  Json j;
  std::string perr;
  if (!Json::parse(entryJson, j, perr))
    return fail(error, "manifest entry is not valid JSON: " + perr);
  if (!j.isObject())
    return fail(error, "manifest entry is not a JSON object");
  j.set("blob", Json::integer(0));
  std::vector<std::string> blobs{std::move(code)};
  std::vector<bool> used(1, false);
  BundleEntry e;
  if (!entryFromJson(j, 0, false, "", &blobs, &used, e, error) ||
      !verifyEntry(e, error))
    return false;
  out = std::move(e);
  return true;
}

bool resourceCounts(const BundleEntry &e,
                    std::vector<std::pair<std::string, int64_t>> &out,
                    std::string &error) {
  out.clear();
  if (e.resources.empty() || e.resources == "{}")
    return true;
  Json j;
  if (!Json::parse(e.resources, j, error))
    return fail(error, e.name + ": resources: " + error);
  const Json *kernels = j.get("kernels");
  if (!kernels)
    return true;
  if (!kernels->isArray())
    return fail(error, e.name + ": resources: \"kernels\" is not an array");
  if (kernels->items().empty())
    return true;
  const Json &k = kernels->items().front();
  if (!k.isObject())
    return fail(error, e.name + ": resources: a kernel is not an object");
  for (const auto &m : k.members())
    if (m.second.isInteger())
      out.emplace_back(m.first, m.second.asInt());
  return true;
}

} // namespace tessel
