//===- Json.h - A small JSON reader and writer ------------------*- C++ -*-===//
//
// Enough JSON for bundle manifests and manifest descriptions. The parser
// never crashes on arbitrary bytes: it bounds nesting depth and reports the
// line and column of the first error.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_RUNTIME_JSON_H
#define TESSEL_RUNTIME_JSON_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessel {

class Json {
public:
  enum Kind { Null, Bool, Number, String, Array, Object };

  Json() = default;
  static Json boolean(bool b);
  static Json number(double d);
  static Json integer(int64_t i);
  static Json string(std::string s);
  static Json array();
  static Json object();

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Null; }
  bool isBool() const { return kind_ == Bool; }
  bool isNumber() const { return kind_ == Number; }
  bool isString() const { return kind_ == String; }
  bool isArray() const { return kind_ == Array; }
  bool isObject() const { return kind_ == Object; }
  /// True for a number that is an exact integer in int64 range.
  bool isInteger() const { return kind_ == Number && isInt_; }

  bool asBool() const { return b_; }
  double asDouble() const { return d_; }
  int64_t asInt() const { return i_; }
  const std::string &asString() const { return s_; }
  const std::vector<Json> &items() const { return a_; }
  const std::vector<std::pair<std::string, Json>> &members() const {
    return o_;
  }

  /// Object member lookup; null if absent or not an object.
  const Json *get(const std::string &key) const;
  void push(Json v) { a_.push_back(std::move(v)); }
  void set(const std::string &key, Json v);

  /// Compact serialization with sorted-as-inserted members.
  std::string dump() const;

  /// Parses text. On failure returns false with "line L, column C: what".
  static bool parse(const std::string &text, Json &out, std::string &error);

private:
  Kind kind_ = Null;
  bool b_ = false;
  bool isInt_ = false;
  double d_ = 0;
  int64_t i_ = 0;
  std::string s_;
  std::vector<Json> a_;
  std::vector<std::pair<std::string, Json>> o_;
};

} // namespace tessel

#endif
