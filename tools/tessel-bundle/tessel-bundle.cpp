//===- tessel-bundle.cpp - Pack and list Tessel bundles -------------------===//
//
//   tessel-bundle -o OUT.tbundle DESCRIPTION.json
//       Packs the code objects a description names into one bundle. The
//       description is a bundle manifest (see tessel/bundle.h) whose entries
//       carry "file": "<path>" (relative to the description's folder)
//       instead of "blob".
//   tessel-bundle --list FILE
//       Verifies a bundle and prints its manifest, one code object per line.
//   tessel-bundle --json FILE
//       Verifies a bundle and prints its manifest JSON.
//
//===----------------------------------------------------------------------===//

#include "Support.h"
#include "cli.h"
#include "tessel/bundle.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <string>

namespace {

int list(const std::string &path, bool json) {
  tessel::Bundle b;
  std::string err;
  if (!tessel::readBundleFile(path, b, err)) {
    fprintf(stderr, "tessel-bundle: error: %s\n", err.c_str());
    return 1;
  }
  if (json) {
    printf("%s\n", tessel::bundleManifestJson(b).c_str());
    return 0;
  }
  printf("bundle %s: version %u, compiler '%s', %zu code objects\n",
         path.c_str(), tessel::kBundleVersion, b.compilerVersion.c_str(),
         b.entries.size());
  for (const auto &e : b.entries) {
    printf("%s: kernel=%s target=%s format=%s bytes=%zu block=%ux%ux%u",
           e.name.c_str(), e.kernel.c_str(), e.target.c_str(),
           tessel::codeFormatName(e.format), e.code.size(), e.block[0],
           e.block[1], e.block[2]);
    printf(" knobs={");
    for (size_t i = 0; i < e.knobs.size(); ++i)
      printf("%s%s=%lld", i ? "," : "", e.knobs[i].first.c_str(),
             (long long)e.knobs[i].second);
    printf("} args=%zu(", e.args.size());
    for (size_t i = 0; i < e.args.size(); ++i)
      printf("%s%s:%s", i ? "," : "", e.args[i].name.c_str(),
             tessel::argKindName(e.args[i].kind));
    printf(") source_hash=%s resources=%s\n", e.sourceHash.c_str(),
           e.resources.c_str());
  }
  return 0;
}

int pack(const std::string &out, const std::string &desc) {
  std::string text;
  if (tessel::Status s = tessel::readFile(desc, text)) {
    fprintf(stderr, "tessel-bundle: error: %s\n", s.message().c_str());
    return 1;
  }
  size_t slash = desc.rfind('/');
  std::string base = slash == std::string::npos ? "." : desc.substr(0, slash);
  tessel::Bundle b;
  std::string err, bytes;
  if (!tessel::bundleFromDescription(text, base, b, err) ||
      !tessel::serializeBundle(b, bytes, err)) {
    fprintf(stderr, "tessel-bundle: error: %s: %s\n", desc.c_str(),
            err.c_str());
    return 1;
  }
  std::string tmp = out + ".tmp";
  {
    std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
    o.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!o) {
      fprintf(stderr, "tessel-bundle: error: cannot write '%s'\n", tmp.c_str());
      return 1;
    }
  }
  if (std::rename(tmp.c_str(), out.c_str()) != 0) {
    fprintf(stderr, "tessel-bundle: error: cannot write '%s'\n", out.c_str());
    return 1;
  }
  return 0;
}

int run(int argc, char **argv) {
  std::string out, desc, listed, json;
  const std::vector<cli::Option> options = {
      cli::text("-o", "OUT", "pack DESCRIPTION into the bundle OUT", out),
      cli::text("--list", "FILE",
                "verify the bundle FILE and print its code objects, one per "
                "line",
                listed),
      cli::text("--json", "FILE",
                "verify the bundle FILE and print its manifest JSON", json),
      cli::positional("DESCRIPTION",
                      "a bundle manifest whose entries name their code "
                      "objects' files (with -o)",
                      desc)};
  if (!cli::parseOrReport("tessel-bundle", argc, argv, options))
    return 2;
  int modes = !out.empty() + !listed.empty() + !json.empty();
  if (modes == 1 && !out.empty() && !desc.empty())
    return pack(out, desc);
  if (modes == 1 && out.empty() && desc.empty())
    return listed.empty() ? list(json, true) : list(listed, false);
  fprintf(stderr,
          "tessel-bundle: give one of -o OUT DESCRIPTION, --list FILE or "
          "--json FILE\n%s",
          cli::usage(argv[0], options).c_str());
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  // Bad input gets a message, never an abort.
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc &) {
    fprintf(stderr, "tessel-bundle: error: out of memory\n");
  } catch (const std::exception &e) {
    fprintf(stderr, "tessel-bundle: error: %s\n", e.what());
  }
  return 1;
}
