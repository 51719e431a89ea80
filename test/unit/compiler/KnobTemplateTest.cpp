//===- KnobTemplateTest.cpp - `{{...}}` knob templates in kernel source ---===//
//
// expandKnobTemplates against hand-evaluated expansions: arithmetic and
// precedence, {{let}} definitions, {{require}} checks, knob values from
// bindings and from the declarations' defaults, code-only scanning
// (comments and strings keep their braces), and a located error for every
// kind of bad template.
//
//===----------------------------------------------------------------------===//
#include "tessel/Lowering/Pipeline.h"

#include <gtest/gtest.h>

using tessel::expandKnobTemplates;
using tessel::KnobBindings;
using tessel::SourceProblem;

namespace {

std::string expand(const std::string &src, const KnobBindings &knobs = {}) {
  std::string out;
  std::optional<SourceProblem> p = expandKnobTemplates(src, knobs, out);
  EXPECT_FALSE(p) << (p ? p->message : "");
  return out;
}

SourceProblem problemOf(const std::string &src,
                        const KnobBindings &knobs = {}) {
  std::string out;
  std::optional<SourceProblem> p = expandKnobTemplates(src, knobs, out);
  EXPECT_TRUE(p) << "expanded to: " << out;
  return p ? *p : SourceProblem{0, 0, 0, ""};
}

TEST(KnobTemplates, SourceWithoutTemplatesIsUnchanged) {
  std::string src = "tile.kernel @k() attributes {a = {b = 1}} {\n"
                    "  tile.return\n}\n";
  EXPECT_EQ(expand(src), src);
}

TEST(KnobTemplates, ArithmeticFollowsPrecedence) {
  EXPECT_EQ(expand("x{{2 + 3 * 4}}y"), "x14y");
  EXPECT_EQ(expand("{{(2 + 3) * 4}}"), "20");
  EXPECT_EQ(expand("{{7 / 2 - 1}}"), "2");
  EXPECT_EQ(expand("{{-3 + 10}}"), "7");
  EXPECT_EQ(expand("{{ 8-2-1 }}"), "5"); // left-associative
}

TEST(KnobTemplates, KnobsComeFromBindingsThenDeclaredDefaults) {
  std::string decl = "#tile.knob<\"heads\" : i32 = 64, values = [16, 64]>\n"
                     "#tile.knob<\"rows\" : i32 = 2>\n";
  EXPECT_EQ(expand(decl + "{{heads * rows}}"), decl + "128");
  EXPECT_EQ(expand(decl + "{{heads * rows}}", {{"heads", 16}}), decl + "32");
  EXPECT_EQ(expand("{{n}}", {{"n", 5}}), "5");
}

TEST(KnobTemplates, LetDefinesNamesForLaterTemplates) {
  EXPECT_EQ(expand("{{let M = r * h}}a{{M}}x{{M / 2}}", {{"r", 2}, {"h", 8}}),
            "a16x8");
  // A let may shadow a knob from there on.
  EXPECT_EQ(expand("{{n}}{{let n = n + 1}}{{n}}", {{"n", 1}}), "12");
}

TEST(KnobTemplates, RequireExpandsToNothingOrIsItsMessage) {
  EXPECT_EQ(expand("a{{require n - 1 : n must not be 1}}b", {{"n", 2}}), "ab");
  SourceProblem p =
      problemOf("x\n  {{require n - 1 : n must not be 1}}", {{"n", 1}});
  EXPECT_EQ(p.message, "n must not be 1");
  EXPECT_EQ(p.line, 2u);
  EXPECT_EQ(p.column, 3u);
  // The expression's own errors point into it.
  p = problemOf("{{require 1 / n : never}}", {{"n", 0}});
  EXPECT_NE(p.message.find("division by zero"), std::string::npos);
  EXPECT_EQ(p.column, 15u);
  p = problemOf("{{require n}}", {{"n", 1}});
  EXPECT_NE(p.message.find("expected '{{require EXPR : MESSAGE}}'"),
            std::string::npos);
  p = problemOf("{{require n :  }}", {{"n", 1}});
  EXPECT_NE(p.message.find("expected '{{require EXPR : MESSAGE}}'"),
            std::string::npos);
}

TEST(KnobTemplates, CommentsAndStringsAreLeftAlone) {
  std::string src = "// CHECK: {{.*}} vector<{{[0-9]+}}>\n"
                    "%s = \"x{{1}}\" {{1 + 1}}\n";
  EXPECT_EQ(expand(src), "// CHECK: {{.*}} vector<{{[0-9]+}}>\n"
                         "%s = \"x{{1}}\" 2\n");
}

TEST(KnobTemplates, BadTemplatesAreLocatedErrors) {
  SourceProblem p = problemOf("a\n  b {{m}}\n");
  EXPECT_EQ(p.line, 2u);
  EXPECT_EQ(p.column, 7u);
  EXPECT_NE(p.message.find("'m' is neither a knob"), std::string::npos);

  p = problemOf("x {{1 + 2\n}}");
  EXPECT_EQ(p.line, 1u);
  EXPECT_EQ(p.column, 3u);
  EXPECT_NE(p.message.find("no closing '}}'"), std::string::npos);

  p = problemOf("{{4 / (n - 2)}}", {{"n", 2}});
  EXPECT_NE(p.message.find("division by zero"), std::string::npos);
  EXPECT_EQ(p.column, 7u);

  p = problemOf("{{9223372036854775807 + 1}}");
  EXPECT_NE(p.message.find("overflows"), std::string::npos);

  p = problemOf("{{let = 3}}");
  EXPECT_NE(p.message.find("expected '{{let NAME = EXPR}}'"),
            std::string::npos);

  p = problemOf("{{2 3}}");
  EXPECT_NE(p.message.find("unexpected '3'"), std::string::npos);

  p = problemOf("{{(1 + 2}}");
  EXPECT_NE(p.message.find("expected ')'"), std::string::npos);

  p = problemOf("{{}}");
  EXPECT_NE(p.message.find("expected a number"), std::string::npos);
}

} // namespace
