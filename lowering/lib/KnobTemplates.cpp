//===- KnobTemplates.cpp - Tile shapes that follow knobs ------------------===//
//
// `{{EXPR}}`, `{{let NAME = EXPR}}` and `{{require EXPR : MESSAGE}}` in
// kernel source, expanded from the knob bindings before parsing
// (Pipeline.h).
//
//===----------------------------------------------------------------------===//

#include "tessel/Lowering/Pipeline.h"

#include "SourceScan.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"

#include <limits>

using namespace mlir;
using namespace tessel;

namespace {

bool isNameStart(char c) { return llvm::isAlpha(c) || c == '_'; }
bool isNameChar(char c) { return llvm::isAlnum(c) || c == '_'; }

/// The knob defaults a source declares: `#tile.knob<"NAME" : iN = V`.
std::map<std::string, int64_t> declaredDefaults(StringRef source) {
  std::map<std::string, int64_t> defaults;
  StringRef rest = source;
  for (size_t at; (at = rest.find("#tile.knob<\"")) != StringRef::npos;) {
    rest = rest.drop_front(at + strlen("#tile.knob<\""));
    size_t close = rest.find('"');
    if (close == StringRef::npos)
      break;
    std::string name = rest.take_front(close).str();
    StringRef decl = rest.drop_front(close + 1).ltrim();
    if (!decl.consume_front(":"))
      continue;
    decl = decl.ltrim();
    decl = decl.drop_while(isNameChar).ltrim(); // the type
    if (!decl.consume_front("="))
      continue;
    decl = decl.ltrim();
    int64_t value;
    StringRef digits =
        decl.take_while([](char c) { return llvm::isDigit(c) || c == '-'; });
    if (!digits.getAsInteger(10, value))
      defaults.emplace(name, value);
  }
  return defaults;
}

/// Recursive-descent evaluation of one template expression.
class Evaluator {
public:
  Evaluator(StringRef text, const std::map<std::string, int64_t> &names)
      : text(text), names(names) {}

  /// Evaluates the whole text; on failure `error` says why and `errorAt`
  /// where (an offset into the text).
  std::optional<int64_t> evaluate() {
    std::optional<int64_t> v = sum();
    skipSpace();
    if (v && pos != text.size())
      return fail("unexpected '" + text.substr(pos, 1).str() + "'");
    return v;
  }

  std::string error;
  size_t errorAt = 0;

private:
  std::optional<int64_t> fail(const std::string &msg) {
    if (error.empty()) {
      error = msg;
      errorAt = pos;
    }
    return std::nullopt;
  }
  void skipSpace() {
    while (pos < text.size() && llvm::isSpace(text[pos]))
      ++pos;
  }
  bool eat(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  std::optional<int64_t> checked(__int128 v) {
    if (v > std::numeric_limits<int64_t>::max() ||
        v < std::numeric_limits<int64_t>::min())
      return fail("template arithmetic overflows 64 bits");
    return int64_t(v);
  }
  std::optional<int64_t> sum() {
    std::optional<int64_t> v = product();
    while (v) {
      if (eat('+')) {
        std::optional<int64_t> r = product();
        v = r ? checked(__int128(*v) + *r) : r;
      } else if (eat('-')) {
        std::optional<int64_t> r = product();
        v = r ? checked(__int128(*v) - *r) : r;
      } else {
        break;
      }
    }
    return v;
  }
  std::optional<int64_t> product() {
    std::optional<int64_t> v = atom();
    while (v) {
      if (eat('*')) {
        std::optional<int64_t> r = atom();
        v = r ? checked(__int128(*v) * *r) : r;
      } else if (eat('/')) {
        skipSpace();
        size_t at = pos;
        std::optional<int64_t> r = atom();
        if (r && *r == 0) {
          pos = at;
          return fail("division by zero in a template");
        }
        v = r ? checked(__int128(*v) / *r) : r;
      } else {
        break;
      }
    }
    return v;
  }
  std::optional<int64_t> atom() {
    skipSpace();
    if (eat('(')) {
      std::optional<int64_t> v = sum();
      if (v && !eat(')'))
        return fail("expected ')'");
      return v;
    }
    if (eat('-')) {
      std::optional<int64_t> v = atom();
      return v ? checked(-__int128(*v)) : v;
    }
    size_t start = pos;
    if (pos < text.size() && llvm::isDigit(text[pos])) {
      while (pos < text.size() && llvm::isDigit(text[pos]))
        ++pos;
      int64_t v;
      if (text.slice(start, pos).getAsInteger(10, v))
        return fail("integer out of range");
      return v;
    }
    if (pos < text.size() && isNameStart(text[pos])) {
      while (pos < text.size() && isNameChar(text[pos]))
        ++pos;
      std::string name = text.slice(start, pos).str();
      auto it = names.find(name);
      if (it == names.end()) {
        pos = start;
        return fail("'" + name +
                    "' is neither a knob with a value (bound, or a default "
                    "in its declaration) nor defined by an earlier "
                    "{{let}}");
      }
      return it->second;
    }
    return fail(pos < text.size() ? "expected a number, a name or '(' at '" +
                                        text.substr(pos, 1).str() + "'"
                                  : "expected a number, a name or '('");
  }

  StringRef text;
  const std::map<std::string, int64_t> &names;
  size_t pos = 0;
};

} // namespace

std::optional<SourceProblem>
tessel::expandKnobTemplates(StringRef source, const KnobBindings &knobs,
                            std::string &expanded) {
  std::map<std::string, int64_t> names = declaredDefaults(source);
  for (const auto &[name, value] : knobs)
    names[name] = value;
  std::optional<SourceProblem> problem;
  unsigned line = 1;
  size_t lineStart = 0, copied = 0;
  expanded.clear();
  auto problemAt = [&](size_t offset, std::string msg) {
    if (!problem)
      problem = SourceProblem{line, unsigned(offset - lineStart + 1), offset,
                              std::move(msg)};
  };
  forEachCodeOffset(
      source,
      [&](size_t i) -> size_t {
        if (problem || !source.substr(i).starts_with("{{"))
          return i;
        size_t close = source.find("}}", i + 2);
        size_t eol = source.find('\n', i);
        if (close == StringRef::npos || close > eol) {
          problemAt(i, "template '{{' has no closing '}}' on its line");
          return i;
        }
        StringRef body = source.slice(i + 2, close);
        size_t exprStart = i + 2;
        std::string let;
        StringRef trimmed = body.ltrim();
        if (trimmed.starts_with("let") && trimmed.size() > 3 &&
            llvm::isSpace(trimmed[3])) {
          StringRef rest = trimmed.drop_front(3).ltrim();
          let = rest.take_while(isNameChar).str();
          rest = rest.drop_front(let.size()).ltrim();
          if (let.empty() || !isNameStart(let[0]) || !rest.consume_front("=")) {
            problemAt(i, "expected '{{let NAME = EXPR}}'");
            return i;
          }
          exprStart = close - rest.size();
          body = rest;
        }
        // {{require EXPR : MESSAGE}}: a knob combination the kernel cannot
        // compile is an error saying MESSAGE where EXPR is 0.
        std::optional<std::string> require;
        if (let.empty() && trimmed.starts_with("require") &&
            trimmed.size() > 7 && llvm::isSpace(trimmed[7])) {
          StringRef rest = trimmed.drop_front(7);
          size_t colon = rest.find(':');
          StringRef message =
              colon == StringRef::npos ? "" : rest.drop_front(colon + 1).trim();
          if (message.empty()) {
            problemAt(i, "expected '{{require EXPR : MESSAGE}}'");
            return i;
          }
          require = message.str();
          body = rest.take_front(colon);
          exprStart = body.data() - source.data();
        }
        Evaluator eval(body, names);
        std::optional<int64_t> value = eval.evaluate();
        if (!value) {
          problemAt(exprStart + eval.errorAt, eval.error);
          return i;
        }
        if (require && *value == 0) {
          problemAt(i, *require);
          return i;
        }
        expanded += source.slice(copied, i).str();
        if (!let.empty())
          names[let] = *value;
        else if (!require)
          expanded += std::to_string(*value);
        copied = close + 2;
        return close + 1;
      },
      [&](size_t next) {
        ++line;
        lineStart = next;
      });
  if (problem)
    return problem;
  expanded += source.substr(copied).str();
  return std::nullopt;
}

std::unique_ptr<llvm::MemoryBuffer>
tessel::expandKnobTemplates(const llvm::MemoryBuffer &buffer,
                            const KnobBindings &knobs,
                            mlir::MLIRContext *context) {
  std::string expanded;
  std::optional<SourceProblem> problem =
      expandKnobTemplates(buffer.getBuffer(), knobs, expanded);
  if (problem) {
    emitError(FileLineColLoc::get(context, buffer.getBufferIdentifier(),
                                  problem->line, problem->column))
        << problem->message;
    return nullptr;
  }
  return llvm::MemoryBuffer::getMemBufferCopy(expanded,
                                              buffer.getBufferIdentifier());
}
