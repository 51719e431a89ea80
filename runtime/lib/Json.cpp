//===- Json.cpp - A small JSON reader and writer --------------------------===//

#include "Json.h"
#include "Support.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tessel {

Json Json::boolean(bool b) {
  Json j;
  j.kind_ = Bool;
  j.b_ = b;
  return j;
}
Json Json::number(double d) {
  Json j;
  j.kind_ = Number;
  j.d_ = d;
  if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) {
    j.isInt_ = true;
    j.i_ = static_cast<int64_t>(d);
  }
  return j;
}
Json Json::integer(int64_t i) {
  Json j;
  j.kind_ = Number;
  j.isInt_ = true;
  j.i_ = i;
  j.d_ = static_cast<double>(i);
  return j;
}
Json Json::string(std::string s) {
  Json j;
  j.kind_ = String;
  j.s_ = std::move(s);
  return j;
}
Json Json::array() {
  Json j;
  j.kind_ = Array;
  return j;
}
Json Json::object() {
  Json j;
  j.kind_ = Object;
  return j;
}

const Json *Json::get(const std::string &key) const {
  if (kind_ != Object)
    return nullptr;
  for (const auto &m : o_)
    if (m.first == key)
      return &m.second;
  return nullptr;
}

void Json::set(const std::string &key, Json v) {
  for (auto &m : o_)
    if (m.first == key) {
      m.second = std::move(v);
      return;
    }
  o_.emplace_back(key, std::move(v));
}

static void dumpString(const std::string &s, std::string &out) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (c < 0x20) {
        char buf[8];
        snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  out += '"';
}

static void dumpValue(const Json &j, std::string &out) {
  switch (j.kind()) {
  case Json::Null:
    out += "null";
    break;
  case Json::Bool:
    out += j.asBool() ? "true" : "false";
    break;
  case Json::Number:
    if (j.isInteger()) {
      out += std::to_string(j.asInt());
    } else {
      char buf[40];
      snprintf(buf, sizeof(buf), "%.17g", j.asDouble());
      out += buf;
    }
    break;
  case Json::String:
    dumpString(j.asString(), out);
    break;
  case Json::Array: {
    out += '[';
    bool first = true;
    for (const auto &v : j.items()) {
      if (!first)
        out += ',';
      first = false;
      dumpValue(v, out);
    }
    out += ']';
    break;
  }
  case Json::Object: {
    out += '{';
    bool first = true;
    for (const auto &m : j.members()) {
      if (!first)
        out += ',';
      first = false;
      dumpString(m.first, out);
      out += ':';
      dumpValue(m.second, out);
    }
    out += '}';
    break;
  }
  }
}

std::string Json::dump() const {
  std::string out;
  dumpValue(*this, out);
  return out;
}

namespace {

class Parser {
public:
  explicit Parser(const std::string &t) : text(t) {}

  bool parseDocument(Json &out) {
    skipWs();
    if (!parseValue(out, 0))
      return false;
    skipWs();
    if (pos != text.size())
      return fail("unexpected trailing characters");
    return true;
  }

  std::string error;

private:
  const std::string &text;
  size_t pos = 0;
  static constexpr int kMaxDepth = 64;

  bool fail(const char *what) {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    error = format("line %zu, column %zu: %s", line, col, what);
    return false;
  }

  void skipWs() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  bool literal(const char *word) {
    size_t n = 0;
    while (word[n])
      ++n;
    if (text.compare(pos, n, word) != 0)
      return false;
    pos += n;
    return true;
  }

  bool parseValue(Json &out, int depth) {
    if (depth > kMaxDepth)
      return fail("nesting too deep");
    if (pos >= text.size())
      return fail("unexpected end of input");
    char c = text[pos];
    if (c == '{')
      return parseObject(out, depth);
    if (c == '[')
      return parseArray(out, depth);
    if (c == '"') {
      std::string s;
      if (!parseString(s))
        return false;
      out = Json::string(std::move(s));
      return true;
    }
    if (c == '-' || (c >= '0' && c <= '9'))
      return parseNumber(out);
    if (literal("true")) {
      out = Json::boolean(true);
      return true;
    }
    if (literal("false")) {
      out = Json::boolean(false);
      return true;
    }
    if (literal("null")) {
      out = Json();
      return true;
    }
    return fail("expected a value");
  }

  bool parseNumber(Json &out) {
    size_t start = pos;
    if (text[pos] == '-')
      ++pos;
    size_t digits = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
      ++pos;
    if (pos == digits)
      return fail("expected digits");
    bool isInt = true;
    if (pos < text.size() && text[pos] == '.') {
      isInt = false;
      ++pos;
      size_t f = pos;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
        ++pos;
      if (pos == f)
        return fail("expected digits after '.'");
    }
    if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
      isInt = false;
      ++pos;
      if (pos < text.size() && (text[pos] == '+' || text[pos] == '-'))
        ++pos;
      size_t e = pos;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
        ++pos;
      if (pos == e)
        return fail("expected exponent digits");
    }
    std::string lit = text.substr(start, pos - start);
    int64_t i;
    if (isInt && parseInt64(lit, i)) {
      out = Json::integer(i);
      return true;
    }
    out = Json::number(strtod(lit.c_str(), nullptr));
    return true;
  }

  static void appendUtf8(uint32_t cp, std::string &s) {
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xC0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      s += static_cast<char>(0xE0 | (cp >> 12));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool parseString(std::string &s) {
    ++pos; // opening quote
    while (true) {
      if (pos >= text.size())
        return fail("unterminated string");
      unsigned char c = static_cast<unsigned char>(text[pos]);
      if (c == '"') {
        ++pos;
        return true;
      }
      if (c < 0x20)
        return fail("control character in string");
      if (c != '\\') {
        s += static_cast<char>(c);
        ++pos;
        continue;
      }
      ++pos;
      if (pos >= text.size())
        return fail("unterminated escape");
      char e = text[pos++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        s += e;
        break;
      case 'b':
        s += '\b';
        break;
      case 'f':
        s += '\f';
        break;
      case 'n':
        s += '\n';
        break;
      case 'r':
        s += '\r';
        break;
      case 't':
        s += '\t';
        break;
      case 'u': {
        if (pos + 4 > text.size())
          return fail("short \\u escape");
        uint32_t cp = 0;
        for (int k = 0; k < 4; ++k) {
          char h = text[pos++];
          cp <<= 4;
          if (h >= '0' && h <= '9')
            cp |= h - '0';
          else if (h >= 'a' && h <= 'f')
            cp |= h - 'a' + 10;
          else if (h >= 'A' && h <= 'F')
            cp |= h - 'A' + 10;
          else
            return fail("bad hex digit in \\u escape");
        }
        appendUtf8(cp, s);
        break;
      }
      default:
        return fail("unknown escape");
      }
    }
  }

  bool parseArray(Json &out, int depth) {
    ++pos;
    out = Json::array();
    skipWs();
    if (pos < text.size() && text[pos] == ']') {
      ++pos;
      return true;
    }
    while (true) {
      skipWs();
      Json v;
      if (!parseValue(v, depth + 1))
        return false;
      out.push(std::move(v));
      skipWs();
      if (pos >= text.size())
        return fail("unterminated array");
      if (text[pos] == ',') {
        ++pos;
        continue;
      }
      if (text[pos] == ']') {
        ++pos;
        return true;
      }
      return fail("expected ',' or ']'");
    }
  }

  bool parseObject(Json &out, int depth) {
    ++pos;
    out = Json::object();
    skipWs();
    if (pos < text.size() && text[pos] == '}') {
      ++pos;
      return true;
    }
    while (true) {
      skipWs();
      if (pos >= text.size() || text[pos] != '"')
        return fail("expected a string key");
      std::string key;
      if (!parseString(key))
        return false;
      if (out.get(key))
        return fail("duplicate key");
      skipWs();
      if (pos >= text.size() || text[pos] != ':')
        return fail("expected ':'");
      ++pos;
      skipWs();
      Json v;
      if (!parseValue(v, depth + 1))
        return false;
      out.set(key, std::move(v));
      skipWs();
      if (pos >= text.size())
        return fail("unterminated object");
      if (text[pos] == ',') {
        ++pos;
        continue;
      }
      if (text[pos] == '}') {
        ++pos;
        return true;
      }
      return fail("expected ',' or '}'");
    }
  }
};

} // namespace

bool Json::parse(const std::string &text, Json &out, std::string &error) {
  Parser p(text);
  if (!p.parseDocument(out)) {
    error = p.error;
    return false;
  }
  return true;
}

} // namespace tessel
