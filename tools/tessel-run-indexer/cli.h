//===- cli.h - Declarative command-line options for the drivers -*- C++ -*-===//
//
// The GPU-host drivers link only the runtime (no LLVM), so they cannot use
// llvm::cl. Each declares its options once in a table; parsing, the errors
// (an unknown option, a missing or ill-formed value, an extra operand) and
// the usage text all come from that table; `--help` prints the usage.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_TOOLS_RUN_INDEXER_CLI_H
#define TESSEL_TOOLS_RUN_INDEXER_CLI_H

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace cli {

struct Option {
  const char *name; // "--device"; null for a positional operand
  const char *meta; // the value's placeholder; null for a flag
  const char *help;
  /// Takes the value (null for a flag); false when it is ill-formed.
  std::function<bool(const char *)> set;
};

inline Option flag(const char *name, const char *help, bool &target) {
  return {name, nullptr, help, [&target](const char *) {
            target = true;
            return true;
          }};
}

inline Option text(const char *name, const char *meta, const char *help,
                   std::string &target) {
  return {name, meta, help, [&target](const char *v) {
            target = v;
            return true;
          }};
}

/// A positional operand (an argument that names no option), taken in table
/// order; at most one argument each.
inline Option positional(const char *meta, const char *help,
                         std::string &target) {
  return {nullptr, meta, help, [&target](const char *v) {
            target = v;
            return true;
          }};
}

inline Option unsignedNumber(const char *name, const char *help,
                             uint64_t &target) {
  return {name, "N", help, [&target](const char *v) {
            char *end = nullptr;
            errno = 0;
            unsigned long long x = strtoull(v, &end, 10);
            if (!*v || *end || *v == '-' || errno == ERANGE)
              return false;
            target = x;
            return true;
          }};
}

inline std::string usage(const char *program,
                         const std::vector<Option> &options) {
  auto spelled = [](const Option &o) {
    if (!o.name)
      return std::string(o.meta);
    return std::string(o.name) + (o.meta ? std::string(" ") + o.meta : "");
  };
  std::string u = std::string("usage: ") + program;
  for (const Option &o : options)
    u += " [" + spelled(o) + "]";
  u += "\n";
  for (const Option &o : options)
    u += "  " + spelled(o) + "\n      " + o.help + "\n";
  return u;
}

/// Applies argv to the table. False with a message naming the argument.
/// `help` is set where `--help` stands in place of an option.
inline bool parse(int argc, char **argv, const std::vector<Option> &options,
                  std::string &error, bool &help) {
  help = false;
  size_t operands = 0; // positional operands taken so far
  for (int i = 1; i < argc; ++i) {
    if (argv[i] == std::string("--help")) {
      help = true;
      continue;
    }
    const Option *o = nullptr;
    for (const Option &c : options)
      if (c.name && argv[i] == std::string(c.name))
        o = &c;
    if (!o && argv[i][0] != '-') {
      size_t seen = 0;
      for (const Option &c : options)
        if (!c.name && seen++ == operands)
          o = &c;
      if (o) {
        ++operands;
        o->set(argv[i]);
        continue;
      }
    }
    if (!o) {
      error = std::string("unknown argument '") + argv[i] + "'";
      return false;
    }
    const char *value = nullptr;
    if (o->meta) {
      if (i + 1 >= argc) {
        error = std::string(o->name) + " needs a value (" + o->meta + ")";
        return false;
      }
      value = argv[++i];
    }
    if (!o->set(value)) {
      error =
          std::string(o->name) + ": '" + value + "' is not a valid " + o->meta;
      return false;
    }
  }
  return true;
}

/// parse(), or the error and the usage on stderr as "<tool>: <error>".
/// With `--help` (and no error), the usage on stdout and exit status 0.
inline bool parseOrReport(const char *tool, int argc, char **argv,
                          const std::vector<Option> &options) {
  std::string error;
  bool help = false;
  bool ok = parse(argc, argv, options, error, help);
  if (ok && help) {
    fputs(usage(argv[0], options).c_str(), stdout);
    exit(0);
  }
  if (ok)
    return true;
  fprintf(stderr, "%s: %s\n%s", tool, error.c_str(),
          usage(argv[0], options).c_str());
  return false;
}

} // namespace cli

#endif // TESSEL_TOOLS_RUN_INDEXER_CLI_H
